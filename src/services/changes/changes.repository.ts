// Prisma access of change tracking (definition `changes`): what an Agent remembers of each record key
// (AgentRecordState), and the records a Run exported, staged until its end (RunChangeStage,
// RunChangeTracking). Every statement is set-based: a batch of keys is one statement (unnest of arrays),
// never a round trip per record.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

/** A known key as a Run's skipped detail page needs it: its list values hash and its last values. */
export interface KnownRecord {
  keyHash: string;
  listHash: string;
  values: Record<string, unknown>;
}

/** A batch of a Run's records to stage, as parallel arrays (one element per record). */
export interface StagedBatch {
  keys: string[];
  valuesHashes: string[];
  listHashes: string[];
  /** Each record as JSON text. */
  values: string[];
}

const agentOfRun = (runId: number) => Prisma.sql`(SELECT "agentId" FROM "Run" WHERE id = ${runId}::int)`;

export function createChangesRepository(db: Db) {
  return {
    /**
     * A Run's change tracking begins (again, for an attempt after an interruption: what an earlier
     * attempt staged goes, its export is made again from all the Run's records).
     */
    async begin(runId: number, trackDeletes: boolean): Promise<void> {
      await db.$executeRaw(Prisma.sql`
        WITH gone AS (DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int)
        INSERT INTO "RunChangeTracking" ("runId", "agentId", "trackDeletes")
        SELECT id, "agentId", ${trackDeletes}::boolean FROM "Run" WHERE id = ${runId}::int
        ON CONFLICT ("runId") DO UPDATE SET "trackDeletes" = EXCLUDED."trackDeletes"`);
    },

    /** The known records among `keys` (of the Run's Agent), in no particular order. */
    async known(runId: number, keys: string[]): Promise<KnownRecord[]> {
      if (keys.length === 0) return [];
      return db.$queryRaw<KnownRecord[]>(Prisma.sql`
        SELECT "keyHash", "listHash", "values" FROM "AgentRecordState"
        WHERE "agentId" = ${agentOfRun(runId)} AND "keyHash" = ANY(${keys}::text[])`);
    },

    /**
     * Stages a batch of the Run's records (a key staged already keeps its first record) and answers, for
     * each record in order, the values hash its key had when the Agent last saw it (null: a new key).
     * One statement.
     */
    async stage(runId: number, batch: StagedBatch): Promise<Array<string | null>> {
      if (batch.keys.length === 0) return [];
      const rows = await db.$queryRaw<Array<{ previous: string | null }>>(Prisma.sql`
        WITH input AS (
          SELECT * FROM unnest(${batch.keys}::text[], ${batch.valuesHashes}::text[], ${batch.listHashes}::text[],
            ${batch.values}::text[]) WITH ORDINALITY AS t(k, v, l, j, n)
        ), staged AS (
          INSERT INTO "RunChangeStage" ("runId", "keyHash", "valuesHash", "listHash", "values")
          SELECT ${runId}::int, k, v, l, j::jsonb FROM input
          ON CONFLICT ("runId", "keyHash") DO NOTHING
        )
        SELECT s."valuesHash" AS previous FROM input
        LEFT JOIN "AgentRecordState" s ON s."agentId" = ${agentOfRun(runId)} AND s."keyHash" = input.k
        ORDER BY input.n`);
      return rows.map((r) => r.previous);
    },

    /**
     * Known keys the Run has not staged (deleted since the Agent last saw them), after `after` in key
     * order, at most `limit`: pages of a keyset walk, so memory stays flat however many there are.
     */
    async unseen(runId: number, after: string | null, limit: number): Promise<KnownRecord[]> {
      return db.$queryRaw<KnownRecord[]>(Prisma.sql`
        SELECT s."keyHash", s."listHash", s."values" FROM "AgentRecordState" s
        WHERE s."agentId" = ${agentOfRun(runId)} AND s."keyHash" > ${after ?? ''}
          AND NOT EXISTS (SELECT 1 FROM "RunChangeStage" g WHERE g."runId" = ${runId}::int AND g."keyHash" = s."keyHash")
        ORDER BY s."keyHash" LIMIT ${limit}::int`);
    },

    /** Forgets everything the Agent remembers of its records; the number of keys forgotten. */
    reset: (agentId: number) =>
      db.$executeRaw(Prisma.sql`DELETE FROM "AgentRecordState" WHERE "agentId" = ${agentId}::int`),
  };
}
export type ChangesRepository = ReturnType<typeof createChangesRepository>;

/**
 * The settlement's statement for a Run's end: a Run that ended Success merges what it staged into its
 * Agent's state (and, tracking deletes, forgets the keys it did not see); whatever way it ended, its
 * staged records go. A Run that tracked nothing finds nothing to do (two primary-key lookups).
 */
export function settleChangesSql(runId: number, success: boolean): Prisma.Sql {
  return Prisma.sql`
    WITH tracking AS (
      DELETE FROM "RunChangeTracking" WHERE "runId" = ${runId}::int RETURNING "agentId", "trackDeletes"
    ), stage AS (
      DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int
      RETURNING "keyHash", "valuesHash", "listHash", "values"
    ), merged AS (
      INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "lastRunId")
      SELECT t."agentId", s."keyHash", s."valuesHash", s."listHash", s."values", ${runId}::int, ${runId}::int
      FROM stage s CROSS JOIN tracking t WHERE ${success}::boolean
      ON CONFLICT ("agentId", "keyHash") DO UPDATE SET "valuesHash" = EXCLUDED."valuesHash",
        "listHash" = EXCLUDED."listHash", "values" = EXCLUDED."values", "lastRunId" = EXCLUDED."lastRunId"
      RETURNING 1
    ), forgotten AS (
      DELETE FROM "AgentRecordState" st USING tracking t
      WHERE ${success}::boolean AND t."trackDeletes" AND st."agentId" = t."agentId"
        AND NOT EXISTS (SELECT 1 FROM stage s WHERE s."keyHash" = st."keyHash")
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM merged) AS merged, (SELECT count(*) FROM forgotten) AS forgotten`;
}
