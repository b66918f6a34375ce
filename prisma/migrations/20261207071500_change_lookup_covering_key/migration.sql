-- A Run's lookups of its record keys (one per key, a thousand at a time) read each key's values hash from
-- the primary key itself: with the hash included in its entries, a lookup is an index-only scan, with no
-- heap page per key while the table's pages are all-visible. On 1,000,000 keys, 10,000 lookups took 15 ms
-- (20-24 ms with every row fetched from the heap, as right after a merge) against 39-67 ms through the
-- hash index on keyHash, which goes: the merge now writes one index per changed row instead of two
-- (5,000 changed rows: 29-33 ms against 61-104 ms).
ALTER TABLE "AgentRecordState" DROP CONSTRAINT "AgentRecordState_pkey",
  ADD CONSTRAINT "AgentRecordState_pkey" PRIMARY KEY ("agentId", "keyHash") INCLUDE ("valuesHash");
DROP INDEX "AgentRecordState_keyHash_idx";
