-- Record key hashes (base64url) compare byte by byte: with the "C" collation every lookup of the
-- primary keys is a memcmp rather than a locale comparison (the indexes are rebuilt, the rows stay).
ALTER TABLE "AgentRecordState" ALTER COLUMN "keyHash" SET DATA TYPE TEXT COLLATE "C";
ALTER TABLE "RunChangeStage" ALTER COLUMN "keyHash" SET DATA TYPE TEXT COLLATE "C";

-- A Run that finds a key unchanged does not write its row: the column names the Run that last changed
-- the key's values.
ALTER TABLE "AgentRecordState" RENAME COLUMN "lastRunId" TO "changedRunId";

-- CreateTable
CREATE TABLE "RunChangeSeen" (
    "runId" INTEGER NOT NULL,
    "batch" INTEGER NOT NULL,
    "keys" TEXT[] COLLATE "C",

    CONSTRAINT "RunChangeSeen_pkey" PRIMARY KEY ("runId","batch")
);

-- AddForeignKey
ALTER TABLE "RunChangeSeen" ADD CONSTRAINT "RunChangeSeen_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The type change dropped the key column's statistics: the planner gets them back at once.
ANALYZE "AgentRecordState";
