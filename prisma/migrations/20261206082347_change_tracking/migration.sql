-- CreateTable
CREATE TABLE "AgentRecordState" (
    "agentId" INTEGER NOT NULL,
    "keyHash" TEXT NOT NULL,
    "valuesHash" TEXT NOT NULL,
    "listHash" TEXT NOT NULL,
    "values" JSONB NOT NULL,
    "firstRunId" INTEGER NOT NULL,
    "lastRunId" INTEGER NOT NULL,

    CONSTRAINT "AgentRecordState_pkey" PRIMARY KEY ("agentId","keyHash")
);

-- CreateTable
CREATE TABLE "RunChangeTracking" (
    "runId" INTEGER NOT NULL,
    "agentId" INTEGER NOT NULL,
    "trackDeletes" BOOLEAN NOT NULL,

    CONSTRAINT "RunChangeTracking_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "RunChangeStage" (
    "runId" INTEGER NOT NULL,
    "keyHash" TEXT NOT NULL,
    "valuesHash" TEXT NOT NULL,
    "listHash" TEXT NOT NULL,
    "values" JSONB NOT NULL,

    CONSTRAINT "RunChangeStage_pkey" PRIMARY KEY ("runId","keyHash")
);

-- AddForeignKey
ALTER TABLE "AgentRecordState" ADD CONSTRAINT "AgentRecordState_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunChangeTracking" ADD CONSTRAINT "RunChangeTracking_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunChangeStage" ADD CONSTRAINT "RunChangeStage_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
