-- DropIndex
DROP INDEX "Agent_name_trgm_idx";

-- DropIndex
DROP INDEX "Agent_description_trgm_idx";

-- CreateTable
CREATE TABLE "AgentSearchText" (
    "agentId" INTEGER NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "spaceId" INTEGER NOT NULL,
    "isArchived" BOOLEAN NOT NULL,
    "configType" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,

    CONSTRAINT "AgentSearchText_pkey" PRIMARY KEY ("agentId")
);

-- Hand-written: the existing Agents, copied before the indexes are built (one build, not one insert per row).
INSERT INTO "AgentSearchText" ("agentId", "organizationId", "spaceId", "isArchived", "configType", "name", "description")
SELECT "id", "organizationId", "spaceId", "isArchived", "configType", "name", "description" FROM "Agent";

-- CreateIndex
CREATE INDEX "AgentSearchText_name_trgm_idx" ON "AgentSearchText" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "AgentSearchText_description_trgm_idx" ON "AgentSearchText" USING GIN ("description" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "AgentSearchText" ADD CONSTRAINT "AgentSearchText_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: "AgentSearchText" is kept by these triggers (the application never writes it); deleting an Agent
-- deletes its row by the foreign key. A Run's status change names none of these columns in its SET list, so it
-- never fires the update trigger and never touches the trigram indexes.

-- New Agents, per statement (a bulk insert of 5,000 Agents is one insert, not 5,000).
CREATE FUNCTION "agent_search_text_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "AgentSearchText" ("agentId", "organizationId", "spaceId", "isArchived", "configType", "name", "description")
  SELECT n."id", n."organizationId", n."spaceId", n."isArchived", n."configType", n."name", n."description" FROM new_agents n;
  RETURN NULL;
END $$;

CREATE TRIGGER "Agent_search_text_inserted" AFTER INSERT ON "Agent"
  REFERENCING NEW TABLE AS new_agents FOR EACH STATEMENT EXECUTE FUNCTION "agent_search_text_inserted"();

-- A renamed, redescribed, archived, unarchived or moved Agent.
CREATE FUNCTION "agent_search_text_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "AgentSearchText" SET "organizationId" = NEW."organizationId", "spaceId" = NEW."spaceId",
    "isArchived" = NEW."isArchived", "configType" = NEW."configType", "name" = NEW."name", "description" = NEW."description"
  WHERE "agentId" = NEW."id";
  RETURN NULL;
END $$;

CREATE TRIGGER "Agent_search_text_changed"
  AFTER UPDATE OF "organizationId", "spaceId", "isArchived", "configType", "name", "description" ON "Agent"
  FOR EACH ROW WHEN (
    OLD."organizationId" IS DISTINCT FROM NEW."organizationId" OR OLD."spaceId" IS DISTINCT FROM NEW."spaceId"
    OR OLD."isArchived" IS DISTINCT FROM NEW."isArchived" OR OLD."configType" IS DISTINCT FROM NEW."configType"
    OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."description" IS DISTINCT FROM NEW."description")
  EXECUTE FUNCTION "agent_search_text_changed"();
