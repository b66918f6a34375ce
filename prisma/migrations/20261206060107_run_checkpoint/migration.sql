-- CreateTable
CREATE TABLE "RunCheckpoint" (
    "runId" INTEGER NOT NULL,
    "state" JSONB,
    "recordsSeq" INTEGER NOT NULL DEFAULT 0,
    "interruptions" INTEGER NOT NULL DEFAULT 0,
    "takeovers" INTEGER NOT NULL DEFAULT 0,
    "updated" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunCheckpoint_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "RunCheckpointRecords" (
    "runId" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "records" JSONB NOT NULL,

    CONSTRAINT "RunCheckpointRecords_pkey" PRIMARY KEY ("runId","seq")
);

-- AddForeignKey
ALTER TABLE "RunCheckpoint" ADD CONSTRAINT "RunCheckpoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunCheckpointRecords" ADD CONSTRAINT "RunCheckpointRecords_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
