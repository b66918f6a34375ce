-- A Run's lookups of its record keys (one per key, a thousand at a time) go through a hash index:
-- one bucket page per key instead of a descent of the primary key's btree, about half the CPU per key
-- over an Agent of a million keys. The row's agentId is checked on the row.
-- CreateIndex
CREATE INDEX "AgentRecordState_keyHash_idx" ON "AgentRecordState" USING HASH ("keyHash");
