-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "evidence" JSONB,
ADD COLUMN     "settledAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Run_settledAt_idx" ON "Run"("settledAt");

-- Runs that ended before settlement existed are not metered retroactively.
UPDATE "Run" SET "settledAt" = COALESCE("endTime", "updated") WHERE "status" IN (6, 8, 9, 10, 11);
