-- AlterTable
ALTER TABLE "CreditGrant" ADD COLUMN     "expiredAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "UsageDaily" (
    "agentId" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "serverTimeCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportGbCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "agentInputsCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "proxyDataCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportCpmCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "totalCost" DECIMAL(18,6) NOT NULL DEFAULT 0,

    CONSTRAINT "UsageDaily_pkey" PRIMARY KEY ("agentId","day")
);

-- CreateIndex
CREATE INDEX "UsageDaily_organizationId_day_idx" ON "UsageDaily"("organizationId", "day");

-- CreateIndex
CREATE INDEX "CreditTransaction_runId_idx" ON "CreditTransaction"("runId");

-- AddForeignKey
ALTER TABLE "UsageDaily" ADD CONSTRAINT "UsageDaily_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageDaily" ADD CONSTRAINT "UsageDaily_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (not derivable from schema.prisma; allowed by name in test/foundation/migrations.test.ts):
-- no debit, however raced, can make a grant negative.
ALTER TABLE "CreditGrant" ADD CONSTRAINT "CreditGrant_remaining_nonnegative" CHECK ("remaining" >= 0);
