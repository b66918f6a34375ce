-- What a change-tracking Run that ended Success staged is merged into its Agent's state after its end,
-- not in the transaction that ends it: its settlement only marks it (succeeded).
-- AlterTable
ALTER TABLE "RunChangeTracking" ADD COLUMN     "succeeded" BOOLEAN NOT NULL DEFAULT false;

-- A Run's staged records become one row per batch of its export (arrays, the records as one JSON
-- array). Staged rows belong to Runs exporting right now, which the upgrade interrupts: a resumed
-- Run's export stages everything again, so they go.
DELETE FROM "RunChangeStage";

-- AlterTable
ALTER TABLE "RunChangeStage" DROP CONSTRAINT "RunChangeStage_pkey",
DROP COLUMN "keyHash",
DROP COLUMN "listHash",
DROP COLUMN "valuesHash",
ADD COLUMN     "batch" INTEGER NOT NULL,
ADD COLUMN     "keys" TEXT[] COLLATE "C",
ADD COLUMN     "listHashes" TEXT[],
ADD COLUMN     "valuesHashes" TEXT[],
ADD CONSTRAINT "RunChangeStage_pkey" PRIMARY KEY ("runId", "batch");

-- CreateIndex
CREATE INDEX "RunChangeTracking_agentId_idx" ON "RunChangeTracking"("agentId");
