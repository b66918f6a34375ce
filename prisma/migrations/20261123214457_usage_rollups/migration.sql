-- CreateTable
CREATE TABLE "UsageWeekly" (
    "agentId" INTEGER NOT NULL,
    "week" DATE NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "serverTimeCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportGbCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "agentInputsCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "proxyDataCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportCpmCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "totalCost" DECIMAL(18,6) NOT NULL DEFAULT 0,

    CONSTRAINT "UsageWeekly_pkey" PRIMARY KEY ("agentId","week")
);

-- CreateIndex
CREATE INDEX "UsageWeekly_organizationId_week_idx" ON "UsageWeekly"("organizationId", "week");

-- AddForeignKey
ALTER TABLE "UsageWeekly" ADD CONSTRAINT "UsageWeekly_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageWeekly" ADD CONSTRAINT "UsageWeekly_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "UsageHourly" (
    "agentId" INTEGER NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "serverTimeCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportGbCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "agentInputsCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "proxyDataCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "exportCpmCost" DECIMAL(18,6) NOT NULL DEFAULT 0,
    "totalCost" DECIMAL(18,6) NOT NULL DEFAULT 0,

    CONSTRAINT "UsageHourly_pkey" PRIMARY KEY ("agentId","hour")
);

-- CreateIndex
CREATE INDEX "UsageHourly_organizationId_hour_idx" ON "UsageHourly"("organizationId", "hour");

-- AddForeignKey
ALTER TABLE "UsageHourly" ADD CONSTRAINT "UsageHourly_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageHourly" ADD CONSTRAINT "UsageHourly_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the weeks and hours of the usage recorded before this migration (the billing
-- settlement step keeps them from now on, in the statement that writes the usage records). ISO weeks
-- start on Monday, which is what date_trunc('week') returns.
INSERT INTO "UsageWeekly" ("agentId", "week", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
SELECT "agentId", date_trunc('week', "created")::date, "organizationId",
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Server Time'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Export GB'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Agent Inputs'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Proxy Data'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Export CPM'), 0),
       SUM("cost")
FROM "UsageRecord"
GROUP BY 1, 2, 3;

INSERT INTO "UsageHourly" ("agentId", "hour", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
SELECT "agentId", date_trunc('hour', "created"), "organizationId",
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Server Time'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Export GB'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Agent Inputs'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Proxy Data'), 0),
       COALESCE(SUM("cost") FILTER (WHERE "usageType" = 'Export CPM'), 0),
       SUM("cost")
FROM "UsageRecord"
GROUP BY 1, 2, 3;
