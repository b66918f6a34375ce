-- AlterTable
ALTER TABLE "AgentBuilderSession" ADD COLUMN     "preview" JSONB,
ADD COLUMN     "proxyPoolId" INTEGER,
ADD COLUMN     "step" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "AgentBuilderSession_updated_idx" ON "AgentBuilderSession"("updated");
