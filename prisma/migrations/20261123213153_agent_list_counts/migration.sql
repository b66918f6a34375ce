-- DropIndex
DROP INDEX "Agent_organizationId_isArchived_name_idx";

-- DropIndex
DROP INDEX "Agent_organizationId_isArchived_lastActivity_idx";

-- DropIndex
DROP INDEX "Agent_organizationId_isArchived_created_idx";

-- DropIndex
DROP INDEX "Agent_organizationId_isArchived_updated_idx";

-- DropIndex
DROP INDEX "Agent_organizationId_isArchived_status_idx";

-- CreateTable
CREATE TABLE "AgentCount" (
    "organizationId" INTEGER NOT NULL,
    "spaceId" INTEGER NOT NULL,
    "configType" INTEGER NOT NULL,
    "agents" INTEGER NOT NULL,

    CONSTRAINT "AgentCount_pkey" PRIMARY KEY ("organizationId","spaceId","configType")
);

-- CreateIndex
CREATE INDEX "AgentCount_spaceId_idx" ON "AgentCount"("spaceId");

-- CreateIndex
CREATE INDEX "Agent_list_name_idx" ON "Agent"("organizationId", "isArchived", "name", "id", "spaceId", "status", "configType");

-- CreateIndex
CREATE INDEX "Agent_list_lastActivity_idx" ON "Agent"("organizationId", "isArchived", "lastActivity", "id", "spaceId", "status", "configType");

-- CreateIndex
CREATE INDEX "Agent_list_created_idx" ON "Agent"("organizationId", "isArchived", "created", "id", "spaceId", "status", "configType");

-- CreateIndex
CREATE INDEX "Agent_list_updated_idx" ON "Agent"("organizationId", "isArchived", "updated", "id", "spaceId", "status", "configType");

-- CreateIndex
CREATE INDEX "Agent_list_status_idx" ON "Agent"("organizationId", "isArchived", "status", "id", "spaceId", "configType");

-- CreateIndex
CREATE INDEX "Agent_list_configType_idx" ON "Agent"("organizationId", "isArchived", "configType", "id", "spaceId", "status");

-- AddForeignKey
ALTER TABLE "AgentCount" ADD CONSTRAINT "AgentCount_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: "AgentCount" is kept by these triggers (the application never writes it). Every
-- change is one INSERT ... ON CONFLICT over the keys it touches, in key order, so two transactions
-- moving Agents between the same Spaces in opposite directions lock the counter rows in the same
-- order and cannot deadlock. Status is not counted: Run status changes never touch these rows.

-- New Agents, per statement (a bulk insert of 5,000 Agents is one upsert per key, not 5,000).
CREATE FUNCTION "agent_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "AgentCount" AS c ("organizationId", "spaceId", "configType", "agents")
  SELECT n."organizationId", n."spaceId", n."configType", count(*)::int
  FROM new_agents n WHERE NOT n."isArchived"
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT ("organizationId", "spaceId", "configType") DO UPDATE SET "agents" = c."agents" + EXCLUDED."agents";
  RETURN NULL;
END $$;

CREATE TRIGGER "Agent_count_inserted" AFTER INSERT ON "Agent"
  REFERENCING NEW TABLE AS new_agents FOR EACH STATEMENT EXECUTE FUNCTION "agent_count_inserted"();

-- Deleted Agents (in practice: cascades of a Space or organization deletion, which delete the
-- counter rows too): only an UPDATE, so a counter row already gone is never re-created.
CREATE FUNCTION "agent_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "AgentCount" c SET "agents" = c."agents" - d."agents"
  FROM (
    SELECT o."organizationId", o."spaceId", o."configType", count(*)::int AS "agents"
    FROM old_agents o WHERE NOT o."isArchived" GROUP BY 1, 2, 3
  ) d
  WHERE c."organizationId" = d."organizationId" AND c."spaceId" = d."spaceId" AND c."configType" = d."configType";
  RETURN NULL;
END $$;

CREATE TRIGGER "Agent_count_deleted" AFTER DELETE ON "Agent"
  REFERENCING OLD TABLE AS old_agents FOR EACH STATEMENT EXECUTE FUNCTION "agent_count_deleted"();

-- Archive, unarchive, a move between Spaces: per row, and only when a counted column changed (the
-- WHEN clause costs nothing to the frequent updates of status, lastActivity and the like).
CREATE FUNCTION "agent_count_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "AgentCount" AS c ("organizationId", "spaceId", "configType", "agents")
  SELECT k."organizationId", k."spaceId", k."configType", sum(k."delta")::int
  FROM (VALUES
    (OLD."organizationId", OLD."spaceId", OLD."configType", CASE WHEN OLD."isArchived" THEN 0 ELSE -1 END),
    (NEW."organizationId", NEW."spaceId", NEW."configType", CASE WHEN NEW."isArchived" THEN 0 ELSE 1 END)
  ) AS k("organizationId", "spaceId", "configType", "delta")
  GROUP BY 1, 2, 3 HAVING sum(k."delta") <> 0 ORDER BY 1, 2, 3
  ON CONFLICT ("organizationId", "spaceId", "configType") DO UPDATE SET "agents" = c."agents" + EXCLUDED."agents";
  RETURN NULL;
END $$;

CREATE TRIGGER "Agent_count_changed" AFTER UPDATE ON "Agent" FOR EACH ROW
  WHEN (OLD."isArchived" IS DISTINCT FROM NEW."isArchived" OR OLD."spaceId" IS DISTINCT FROM NEW."spaceId"
        OR OLD."configType" IS DISTINCT FROM NEW."configType" OR OLD."organizationId" IS DISTINCT FROM NEW."organizationId")
  EXECUTE FUNCTION "agent_count_changed"();

-- The counts of the Agents that exist already; no write to "Agent" can come between the triggers
-- above and this (the migration's transaction holds a lock that blocks them until it commits).
LOCK TABLE "Agent" IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "AgentCount" ("organizationId", "spaceId", "configType", "agents")
SELECT "organizationId", "spaceId", "configType", count(*)::int FROM "Agent" WHERE NOT "isArchived" GROUP BY 1, 2, 3;
