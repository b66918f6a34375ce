// Prisma access of change tracking (definition `changes`): what an Agent remembers of each record key
// (AgentRecordState), and what a Run found, kept until its end: its new and updated records
// (RunChangeStage), the keys it saw when it tracks deletes (RunChangeSeen, one array per batch) and
// whether it does (RunChangeTracking). Every statement is set-based: a batch of keys is one statement
// (unnest of arrays), never a round trip per record; a key the Run finds unchanged is written nowhere,
// and only new and updated records' values are sent at all.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

/** A known key as a Run's skipped detail page or deleted row needs it: its list values hash and its last values. */
export interface KnownRecord {
  keyHash: string;
  listHash: string;
  values: Record<string, unknown>;
}

/** A Run's new and updated records to stage, as parallel arrays (one element per record). */
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
     * For each of a batch of the Run's keys (distinct, in no earlier batch), in order, the values hash
     * the Agent last saw for it (null: a new key); tracking deletes, the batch's keys are kept as one
     * array row. One statement: a lookup of the state's primary key per key (a scalar subquery, so that
     * no plan turns a big batch into a scan of the Agent's whole state); nothing is written per key.
     */
    async classify(runId: number, batch: number, keys: string[]): Promise<Array<string | null>> {
      if (keys.length === 0) return [];
      const rows = await db.$rows<{ previous: Array<string | null> | null }>(Prisma.sql`
        WITH tracking AS (
          SELECT "agentId", "trackDeletes" FROM "RunChangeTracking" WHERE "runId" = ${runId}::int
        ), seen AS (
          INSERT INTO "RunChangeSeen" ("runId", "batch", "keys")
          SELECT ${runId}::int, ${batch}::int, ${keys}::text[] FROM tracking WHERE "trackDeletes"
          ON CONFLICT ("runId", "batch") DO UPDATE SET "keys" = EXCLUDED."keys"
        )
        SELECT array_agg((SELECT s."valuesHash" FROM "AgentRecordState" s
            WHERE s."agentId" = t."agentId" AND s."keyHash" = u.k) ORDER BY u.n) AS previous
        FROM tracking t CROSS JOIN unnest(${keys}::text[]) WITH ORDINALITY AS u(k, n)`);
      const previous = rows[0]?.previous;
      if (!previous) throw new Error(`Run ${runId} has not begun its change tracking`);
      return previous;
    },

    /** Stages the Run's new and updated records of a batch (a key staged already keeps its first record). */
    async stage(runId: number, batch: StagedBatch): Promise<void> {
      if (batch.keys.length === 0) return;
      await db.$rows(Prisma.sql`
        INSERT INTO "RunChangeStage" ("runId", "keyHash", "valuesHash", "listHash", "values")
        SELECT ${runId}::int, k, v, l, j::jsonb
        FROM unnest(${batch.keys}::text[], ${batch.valuesHashes}::text[], ${batch.listHashes}::text[],
          ${batch.values}::text[]) AS t(k, v, l, j)
        ON CONFLICT ("runId", "keyHash") DO NOTHING`);
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
