-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateIndex
CREATE INDEX "Agent_name_trgm_idx" ON "Agent" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Agent_description_trgm_idx" ON "Agent" USING GIN ("description" gin_trgm_ops);
