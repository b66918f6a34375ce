-- CreateTable
CREATE TABLE "AgentRunHour" (
    "agentId" INTEGER NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "status" INTEGER NOT NULL,
    "runs" INTEGER NOT NULL,
    "recordsExtracted" BIGINT NOT NULL,
    "recordsExported" BIGINT NOT NULL,
    "errorCount" BIGINT NOT NULL,
    "pageCount" BIGINT NOT NULL,

    CONSTRAINT "AgentRunHour_pkey" PRIMARY KEY ("agentId","hour","status")
);

-- CreateTable
CREATE TABLE "SpaceRunHour" (
    "spaceId" INTEGER NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "status" INTEGER NOT NULL,
    "runs" INTEGER NOT NULL,
    "recordsExtracted" BIGINT NOT NULL,
    "recordsExported" BIGINT NOT NULL,
    "errorCount" BIGINT NOT NULL,
    "pageCount" BIGINT NOT NULL,

    CONSTRAINT "SpaceRunHour_pkey" PRIMARY KEY ("spaceId","hour","status")
);

-- CreateTable
CREATE TABLE "SpaceRunDay" (
    "spaceId" INTEGER NOT NULL,
    "organizationId" INTEGER NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "status" INTEGER NOT NULL,
    "runs" INTEGER NOT NULL,
    "recordsExtracted" BIGINT NOT NULL,
    "recordsExported" BIGINT NOT NULL,
    "errorCount" BIGINT NOT NULL,
    "pageCount" BIGINT NOT NULL,

    CONSTRAINT "SpaceRunDay_pkey" PRIMARY KEY ("spaceId","day","status")
);

-- CreateIndex
CREATE INDEX "SpaceRunHour_organizationId_hour_idx" ON "SpaceRunHour"("organizationId", "hour");

-- CreateIndex
CREATE INDEX "SpaceRunDay_organizationId_day_idx" ON "SpaceRunDay"("organizationId", "day");

-- CreateIndex
CREATE INDEX "Run_agentId_created_idx" ON "Run"("agentId", "created");

-- AddForeignKey
ALTER TABLE "AgentRunHour" ADD CONSTRAINT "AgentRunHour_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SpaceRunHour" ADD CONSTRAINT "SpaceRunHour_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SpaceRunDay" ADD CONSTRAINT "SpaceRunDay_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (docs/decisions.md, "Analytics"): one function adds (sign 1) or removes (sign -1) a
-- settled Run's totals to the rollups of its Agent (by hour) and of the Agent's current Space (by hour
-- and by day). The settlement step calls it; the triggers below call it, or move whole Agent totals,
-- whenever a settled Run or an Agent is deleted or an Agent changes Space, so the rollups stay equal to
-- the settled Runs by any path.
CREATE FUNCTION analytics_rollup_run(p_agent INTEGER, p_created TIMESTAMP(3), p_status INTEGER, p_extracted BIGINT,
                                     p_exported BIGINT, p_errors BIGINT, p_pages BIGINT, p_sign INTEGER)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_space INTEGER;
  v_org INTEGER;
  v_hour TIMESTAMP(3) := date_trunc('hour', p_created);
BEGIN
  -- FOR SHARE waits for a concurrent move of the Agent to another Space, so the Run is counted where
  -- the move leaves the Agent. No row: the Agent is being deleted and its rollups go with it.
  SELECT "spaceId", "organizationId" INTO v_space, v_org FROM "Agent" WHERE "id" = p_agent FOR SHARE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO "AgentRunHour" AS t ("agentId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
  VALUES (p_agent, v_hour, p_status, p_sign, p_sign * p_extracted, p_sign * p_exported, p_sign * p_errors, p_sign * p_pages)
  ON CONFLICT ("agentId", "hour", "status") DO UPDATE SET
    "runs" = t."runs" + EXCLUDED."runs",
    "recordsExtracted" = t."recordsExtracted" + EXCLUDED."recordsExtracted",
    "recordsExported" = t."recordsExported" + EXCLUDED."recordsExported",
    "errorCount" = t."errorCount" + EXCLUDED."errorCount",
    "pageCount" = t."pageCount" + EXCLUDED."pageCount";
  INSERT INTO "SpaceRunHour" AS t ("spaceId", "organizationId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
  VALUES (v_space, v_org, v_hour, p_status, p_sign, p_sign * p_extracted, p_sign * p_exported, p_sign * p_errors, p_sign * p_pages)
  ON CONFLICT ("spaceId", "hour", "status") DO UPDATE SET
    "runs" = t."runs" + EXCLUDED."runs",
    "recordsExtracted" = t."recordsExtracted" + EXCLUDED."recordsExtracted",
    "recordsExported" = t."recordsExported" + EXCLUDED."recordsExported",
    "errorCount" = t."errorCount" + EXCLUDED."errorCount",
    "pageCount" = t."pageCount" + EXCLUDED."pageCount";
  INSERT INTO "SpaceRunDay" AS t ("spaceId", "organizationId", "day", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
  VALUES (v_space, v_org, date_trunc('day', p_created), p_status, p_sign, p_sign * p_extracted, p_sign * p_exported, p_sign * p_errors, p_sign * p_pages)
  ON CONFLICT ("spaceId", "day", "status") DO UPDATE SET
    "runs" = t."runs" + EXCLUDED."runs",
    "recordsExtracted" = t."recordsExtracted" + EXCLUDED."recordsExtracted",
    "recordsExported" = t."recordsExported" + EXCLUDED."recordsExported",
    "errorCount" = t."errorCount" + EXCLUDED."errorCount",
    "pageCount" = t."pageCount" + EXCLUDED."pageCount";
END;
$$;

-- Adds (sign 1) or removes (sign -1) all of an Agent's totals to or from a Space's hours and days.
CREATE FUNCTION analytics_shift_agent_hours(p_agent INTEGER, p_space INTEGER, p_org INTEGER, p_sign INTEGER)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "SpaceRunHour" AS t ("spaceId", "organizationId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
  SELECT p_space, p_org, a."hour", a."status", p_sign * a."runs", p_sign * a."recordsExtracted", p_sign * a."recordsExported",
         p_sign * a."errorCount", p_sign * a."pageCount"
  FROM "AgentRunHour" a WHERE a."agentId" = p_agent
  ON CONFLICT ("spaceId", "hour", "status") DO UPDATE SET
    "runs" = t."runs" + EXCLUDED."runs",
    "recordsExtracted" = t."recordsExtracted" + EXCLUDED."recordsExtracted",
    "recordsExported" = t."recordsExported" + EXCLUDED."recordsExported",
    "errorCount" = t."errorCount" + EXCLUDED."errorCount",
    "pageCount" = t."pageCount" + EXCLUDED."pageCount";
  INSERT INTO "SpaceRunDay" AS t ("spaceId", "organizationId", "day", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
  SELECT p_space, p_org, date_trunc('day', a."hour"), a."status", p_sign * sum(a."runs"), p_sign * sum(a."recordsExtracted"),
         p_sign * sum(a."recordsExported"), p_sign * sum(a."errorCount"), p_sign * sum(a."pageCount")
  FROM "AgentRunHour" a WHERE a."agentId" = p_agent GROUP BY 3, 4
  ON CONFLICT ("spaceId", "day", "status") DO UPDATE SET
    "runs" = t."runs" + EXCLUDED."runs",
    "recordsExtracted" = t."recordsExtracted" + EXCLUDED."recordsExtracted",
    "recordsExported" = t."recordsExported" + EXCLUDED."recordsExported",
    "errorCount" = t."errorCount" + EXCLUDED."errorCount",
    "pageCount" = t."pageCount" + EXCLUDED."pageCount";
END;
$$;

CREATE FUNCTION analytics_run_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_rollup_run(OLD."agentId", OLD."created", OLD."status", OLD."recordsExtracted", OLD."recordsExported",
                               OLD."errorCount", OLD."pageCount", -1);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "Run_analytics_deleted" AFTER DELETE ON "Run"
  FOR EACH ROW WHEN (OLD."settledAt" IS NOT NULL) EXECUTE FUNCTION analytics_run_deleted();

CREATE FUNCTION analytics_agent_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_shift_agent_hours(OLD."id", OLD."spaceId", OLD."organizationId", -1);
  RETURN OLD;
END;
$$;
CREATE TRIGGER "Agent_analytics_deleted" BEFORE DELETE ON "Agent"
  FOR EACH ROW EXECUTE FUNCTION analytics_agent_deleted();

CREATE FUNCTION analytics_agent_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_shift_agent_hours(NEW."id", OLD."spaceId", OLD."organizationId", -1);
  PERFORM analytics_shift_agent_hours(NEW."id", NEW."spaceId", NEW."organizationId", 1);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "Agent_analytics_moved" AFTER UPDATE OF "spaceId" ON "Agent"
  FOR EACH ROW WHEN (OLD."spaceId" IS DISTINCT FROM NEW."spaceId") EXECUTE FUNCTION analytics_agent_moved();

-- Runs settled before this migration.
INSERT INTO "AgentRunHour" ("agentId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
SELECT r."agentId", date_trunc('hour', r."created"), r."status", count(*), sum(r."recordsExtracted"), sum(r."recordsExported"),
       sum(r."errorCount"), sum(r."pageCount")
FROM "Run" r WHERE r."settledAt" IS NOT NULL GROUP BY 1, 2, 3;
INSERT INTO "SpaceRunHour" ("spaceId", "organizationId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
SELECT a."spaceId", a."organizationId", h."hour", h."status", sum(h."runs"), sum(h."recordsExtracted"), sum(h."recordsExported"),
       sum(h."errorCount"), sum(h."pageCount")
FROM "AgentRunHour" h JOIN "Agent" a ON a."id" = h."agentId" GROUP BY 1, 2, 3, 4;
INSERT INTO "SpaceRunDay" ("spaceId", "organizationId", "day", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
SELECT h."spaceId", h."organizationId", date_trunc('day', h."hour"), h."status", sum(h."runs"), sum(h."recordsExtracted"), sum(h."recordsExported"),
       sum(h."errorCount"), sum(h."pageCount")
FROM "SpaceRunHour" h GROUP BY 1, 2, 3, 4;
