// Prisma access of change tracking (definition `changes`): what an Agent remembers of each record key
// (AgentRecordState), and what a Run found, kept until its end: its new and updated records
// (RunChangeStage), the keys it saw when it tracks deletes (RunChangeSeen, one array per batch) and
// whether it does (RunChangeTracking). Every statement is set-based: a batch of keys is one statement
// (unnest of arrays), never a round trip per record, and a key the Run finds unchanged is written nowhere.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

/** A known key as a Run's skipped detail page or deleted row needs it: its list values hash and its last values. */
export interface KnownRecord {
  keyHash: string;
  listHash: string;
  values: Record<string, unknown>;
}

/** A batch of a Run's records to classify, as parallel arrays (one element per record). */
export interface StagedBatch {
  /** The batch's number in the Run's export pass (its seen keys' row). */
  batch: number;
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
        WITH gone AS (DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int),
          unseen AS (DELETE FROM "RunChangeSeen" WHERE "runId" = ${runId}::int)
        INSERT INTO "RunChangeTracking" ("runId", "agentId", "trackDeletes")
        SELECT id, "agentId", ${trackDeletes}::boolean FROM "Run" WHERE id = ${runId}::int
        ON CONFLICT ("runId") DO UPDATE SET "trackDeletes" = EXCLUDED."trackDeletes"`);
    },

    /** The known records among `keys` (of the Run's Agent), in no particular order. */
    async known(runId: number, keys: string[]): Promise<KnownRecord[]> {
      if (keys.length === 0) return [];
      return db.$rows<KnownRecord>(Prisma.sql`
        SELECT "keyHash", "listHash", "values" FROM "AgentRecordState"
        WHERE "agentId" = ${agentOfRun(runId)} AND "keyHash" = ANY(${keys}::text[])`);
    },

    /**
     * Classifies a batch of the Run's records (keys distinct, not staged by an earlier batch) and answers,
     * for each record in order, the values hash its key had when the Agent last saw it (null: a new key).
     * One statement: one join on the state's primary key; only the records whose values hash differs
     * (new or updated) are staged with their values, and, tracking deletes, the batch's keys are kept as
     * one array row.
     */
    async stage(runId: number, batch: StagedBatch): Promise<Array<string | null>> {
      if (batch.keys.length === 0) return [];
      const rows = await db.$rows<{ previous: Array<string | null> | null }>(Prisma.sql`
        WITH tracking AS (
          SELECT "agentId", "trackDeletes" FROM "RunChangeTracking" WHERE "runId" = ${runId}::int
        ), input AS (
          SELECT * FROM unnest(${batch.keys}::text[], ${batch.valuesHashes}::text[], ${batch.listHashes}::text[],
            ${batch.values}::text[]) WITH ORDINALITY AS t(k, v, l, j, n)
        ), looked AS (
          SELECT input.*, s."valuesHash" AS previous FROM input CROSS JOIN tracking t
          LEFT JOIN "AgentRecordState" s ON s."agentId" = t."agentId" AND s."keyHash" = input.k
        ), staged AS (
          INSERT INTO "RunChangeStage" ("runId", "keyHash", "valuesHash", "listHash", "values")
          SELECT ${runId}::int, k, v, l, j::jsonb FROM looked WHERE previous IS DISTINCT FROM v
          ON CONFLICT ("runId", "keyHash") DO NOTHING
        ), seen AS (
          INSERT INTO "RunChangeSeen" ("runId", "batch", "keys")
          SELECT ${runId}::int, ${batch.batch}::int, ${batch.keys}::text[] FROM tracking WHERE "trackDeletes"
          ON CONFLICT ("runId", "batch") DO UPDATE SET "keys" = EXCLUDED."keys"
        )
        SELECT array_agg(previous ORDER BY n) AS previous FROM looked`);
      const previous = rows[0]?.previous;
      if (!previous) throw new Error(`Run ${runId} has not begun its change tracking`);
      return previous;
    },

    /**
     * The Agent's known keys after `after` in key order, at most `limit`: pages of a keyset walk over the
     * primary key (an index-only scan), so memory stays flat however many there are.
     */
    async keysAfter(runId: number, after: string | null, limit: number): Promise<string[]> {
      const rows = await db.$rows<{ keyHash: string }>(Prisma.sql`
        SELECT "keyHash" FROM "AgentRecordState"
        WHERE "agentId" = ${agentOfRun(runId)} AND "keyHash" > ${after ?? ''}
        ORDER BY "keyHash" LIMIT ${limit}::int`);
      return rows.map((r) => r.keyHash);
    },

    /** Forgets everything the Agent remembers of its records; the number of keys forgotten. */
    reset: (agentId: number) =>
      db.$executeRaw(Prisma.sql`DELETE FROM "AgentRecordState" WHERE "agentId" = ${agentId}::int`),
  };
}
export type ChangesRepository = ReturnType<typeof createChangesRepository>;

/**
 * The settlement's statement for a Run's end: a Run that ended Success merges its new and updated records
 * into its Agent's state (the keys it found unchanged are not touched) and, tracking deletes, forgets the
 * keys it did not see; whatever way it ended, what it staged goes. A Run that tracked nothing finds
 * nothing to do (three primary-key lookups).
 */
export function settleChangesSql(run: { id: number; agentId: number }, success: boolean): Prisma.Sql {
  const runId = run.id;
  return Prisma.sql`
    WITH tracking AS (
      DELETE FROM "RunChangeTracking" WHERE "runId" = ${runId}::int RETURNING "agentId", "trackDeletes"
    ), stage AS (
      DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int
      RETURNING "keyHash", "valuesHash", "listHash", "values"
    ), seen AS (
      DELETE FROM "RunChangeSeen" WHERE "runId" = ${runId}::int RETURNING "keys"
    ), merged AS (
      INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "changedRunId")
      SELECT t."agentId", s."keyHash", s."valuesHash", s."listHash", s."values", ${runId}::int, ${runId}::int
      FROM stage s CROSS JOIN tracking t WHERE ${success}::boolean
      ON CONFLICT ("agentId", "keyHash") DO UPDATE SET "valuesHash" = EXCLUDED."valuesHash",
        "listHash" = EXCLUDED."listHash", "values" = EXCLUDED."values", "changedRunId" = EXCLUDED."changedRunId"
      RETURNING 1
    ), forgotten AS (
      DELETE FROM "AgentRecordState" st USING tracking t
      WHERE ${success}::boolean AND t."trackDeletes" AND st."agentId" = ${run.agentId}::int
        AND NOT EXISTS (SELECT 1 FROM (SELECT unnest("keys") AS k FROM seen) u WHERE u.k = st."keyHash")
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM merged) AS merged, (SELECT count(*) FROM forgotten) AS forgotten`;
}
