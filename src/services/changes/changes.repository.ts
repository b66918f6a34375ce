// Prisma access of change tracking (definition `changes`): what an Agent remembers of each record key
// (AgentRecordState), and what a Run found, kept until its end: its new and updated records
// (RunChangeStage) and the keys it saw when it tracks deletes (RunChangeSeen), one row of arrays per
// batch of its export, and whether it tracks deletes and ended Success (RunChangeTracking). Every
// statement is set-based: a batch of keys is one statement, never a round trip per record; a key the Run
// finds unchanged is written nowhere, and only new and updated records' values are sent at all. What a
// Run that ended Success staged is merged into the state after its end (mergeSettled), before any later
// Run of the Agent reads the state.
import type { Db, Tx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

/** A known key as a Run's skipped detail page or deleted row needs it: its list values hash and its last values. */
export interface KnownRecord {
  keyHash: string;
  listHash: string;
  values: Record<string, unknown>;
}

/** The answer to `unseenAfter`: a key the Agent knows and the Run did not see, with its last values. */
export interface DeletedRecord {
  keyHash: string;
  values: Record<string, unknown>;
}

/** A Run's new and updated records to stage, as parallel arrays (one element per record). */
export interface StagedBatch {
  /** The export batch they come from (the row's key: a batch staged again replaces itself). */
  batch: number;
  keys: string[];
  valuesHashes: string[];
  listHashes: string[];
  /** Each record as JSON text. */
  values: string[];
}

const agentOfRun = (runId: number) => Prisma.sql`(SELECT "agentId" FROM "Run" WHERE id = ${runId}::int)`;

/** A record hash: a base64url digest, never empty (so a comma can separate hashes). */
const HASH = /^[A-Za-z0-9_-]+$/;

/**
 * Hashes as one text parameter, `string_to_array`'d in the statement: a batch of 1,000 keys costs the
 * driver one join instead of escaping each element into an array literal, and PostgreSQL one split
 * instead of parsing that literal (together about a millisecond of CPU per batch on each side).
 */
function hashList(hashes: readonly string[]): Prisma.Sql {
  if (hashes.length === 0) return Prisma.sql`ARRAY[]::text[]`;
  return Prisma.sql`string_to_array(${hashText(hashes)}, ',')`;
}

/** Hashes joined by commas, as one text parameter (refused unless each is base64url: never a comma). */
function hashText(hashes: readonly string[]): Prisma.Sql {
  if (!hashes.every((h) => HASH.test(h)))
    throw new Error('a record hash is empty or holds a character outside base64url');
  return Prisma.sql`${hashes.join(',')}::text`;
}

/** A `\u0000` escape in JSON text: after an even number of backslashes (an odd one escapes a backslash). */
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * Records' JSON texts joined by newlines (JSON text written on one line never holds a raw newline). jsonb
 * cannot hold U+0000, which a value read from a JSON page may: the merge after the Run's end would fail on
 * it, so the state keeps U+FFFD in its place (the record's hashes are of its values as extracted).
 */
function jsonLines(values: readonly string[]): Prisma.Sql {
  if (values.some((v) => v.includes('\n'))) throw new Error('a staged record is not JSON text on one line');
  const lines = values.map((v) => (v.includes('\\u0000') ? v.replace(NUL_ESCAPE, '$1\\ufffd') : v));
  return Prisma.sql`${lines.join('\n')}::text`;
}

/**
 * Parses a statement's `previous` column: values hashes joined by commas, the empty string for a key
 * the Agent does not know (a hash is never empty); null when the statement found no Run.
 */
function previousHashes(joined: string | null | undefined): Array<string | null> | null {
  if (joined === null || joined === undefined) return null;
  return joined.split(',').map((h) => (h === '' ? null : h));
}

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
        WHERE "agentId" = ${agentOfRun(runId)} AND "keyHash" = ANY(${hashList(keys)})`);
    },

    /**
     * For each of a batch of the Run's keys (distinct, in no earlier batch), in order, the values hash
     * the Agent last saw for it (null: a new key); tracking deletes, the batch's keys are kept as one
     * array row. One statement: a lookup of the state's primary key per key (a scalar subquery, so that
     * no plan turns a big batch into a scan of the Agent's whole state); nothing is written per key.
     */
    async classify(runId: number, batch: number, keys: string[]): Promise<Array<string | null>> {
      if (keys.length === 0) return [];
      const rows = await db.$rows<{ previous: string | null }>(Prisma.sql`
        WITH tracking AS (
          SELECT "agentId", "trackDeletes" FROM "RunChangeTracking" WHERE "runId" = ${runId}::int
        ), seen AS (
          INSERT INTO "RunChangeSeen" ("runId", "batch", "keys")
          SELECT ${runId}::int, ${batch}::int, ${hashList(keys)} FROM tracking WHERE "trackDeletes"
          ON CONFLICT ("runId", "batch") DO UPDATE SET "keys" = EXCLUDED."keys"
        )
        SELECT string_agg(coalesce((SELECT s."valuesHash" FROM "AgentRecordState" s
            WHERE s."agentId" = t."agentId" AND s."keyHash" = u.k), ''), ',' ORDER BY u.n) AS previous
        FROM tracking t CROSS JOIN unnest(${hashList(keys)}) WITH ORDINALITY AS u(k, n)`);
      const previous = previousHashes(rows[0]?.previous);
      if (!previous) throw new Error(`Run ${runId} has not begun its change tracking`);
      return previous;
    },

    /**
     * For each of `keys` (of the Run's Agent), in order, the values hash the Agent last saw (null: a new
     * key): classify's lookup alone, asked during the crawl (no tracking row is needed, nothing is written).
     */
    async lookup(runId: number, keys: string[]): Promise<Array<string | null>> {
      if (keys.length === 0) return [];
      const rows = await db.$rows<{ previous: string | null }>(Prisma.sql`
        SELECT string_agg(coalesce((SELECT s."valuesHash" FROM "AgentRecordState" s
            WHERE s."agentId" = r."agentId" AND s."keyHash" = u.k), ''), ',' ORDER BY u.n) AS previous
        FROM "Run" r CROSS JOIN unnest(${hashList(keys)}) WITH ORDINALITY AS u(k, n)
        WHERE r.id = ${runId}::int`);
      const previous = previousHashes(rows[0]?.previous);
      if (!previous) throw new Error(`Run ${runId} does not exist`);
      return previous;
    },

    /** Keeps the keys of a batch of the Run's export as seen (tracking deletes; classify does it otherwise). */
    async seen(runId: number, batch: number, keys: string[]): Promise<void> {
      await db.$rows(Prisma.sql`
        INSERT INTO "RunChangeSeen" ("runId", "batch", "keys")
        SELECT ${runId}::int, ${batch}::int, ${hashList(keys)}
        FROM "RunChangeTracking" WHERE "runId" = ${runId}::int AND "trackDeletes"
        ON CONFLICT ("runId", "batch") DO UPDATE SET "keys" = EXCLUDED."keys"`);
    },

    /**
     * Stages the Run's new and updated records of a batch: one row (the Run's keys are distinct) of four
     * texts, the hashes joined by commas and the records' JSON lines by newlines. They are split and
     * parsed once, by the merge after the Run's end: on the Run's own time a stage is a plain write
     * (about half the cost of the same row as arrays and jsonb, which PostgreSQL parsed and compressed).
     */
    async stage(runId: number, batch: StagedBatch): Promise<void> {
      if (batch.keys.length === 0) return;
      await db.$rows(Prisma.sql`
        INSERT INTO "RunChangeStage" ("runId", "batch", "keys", "valuesHashes", "listHashes", "values")
        VALUES (${runId}::int, ${batch.batch}::int, ${hashText(batch.keys)}, ${hashText(batch.valuesHashes)},
          ${hashText(batch.listHashes)}, ${jsonLines(batch.values)})
        ON CONFLICT ("runId", "batch") DO UPDATE SET "keys" = EXCLUDED."keys",
          "valuesHashes" = EXCLUDED."valuesHashes", "listHashes" = EXCLUDED."listHashes", "values" = EXCLUDED."values"`);
    },

    /**
     * Merges into the state of Run `runId`'s Agent what its Runs that ended Success staged and that is not
     * merged yet (mergePending). A caller that finds nothing to merge is done after one lookup.
     */
    async mergeSettled(runId: number): Promise<void> {
      const pending = await db.$rows<{ agentId: number }>(Prisma.sql`
        SELECT "agentId" FROM "RunChangeTracking"
        WHERE "agentId" = ${agentOfRun(runId)} AND succeeded LIMIT 1`);
      if (pending.length === 0) return;
      await db.$transaction((tx) => mergePending(tx, pending[0].agentId));
    },

    /**
     * The Agent's keys after `after` in key order that Run `runId` did not see (its RunChangeSeen rows),
     * with their last values, at most `limit`: pages of a keyset walk over the primary key, the Run's keys
     * left out by a hash anti-join, so a page costs about its own rows plus the keys skipped over, and
     * memory stays flat however many keys the Agent has.
     */
    async unseenAfter(runId: number, after: string | null, limit: number): Promise<DeletedRecord[]> {
      return db.$rows<DeletedRecord>(Prisma.sql`
        WITH seen AS MATERIALIZED (SELECT unnest("keys") AS k FROM "RunChangeSeen" WHERE "runId" = ${runId}::int)
        SELECT st."keyHash", st."values" FROM "AgentRecordState" st
        WHERE st."agentId" = ${agentOfRun(runId)} AND st."keyHash" > ${after ?? ''}
          AND NOT EXISTS (SELECT 1 FROM seen WHERE seen.k = st."keyHash")
        ORDER BY st."keyHash" LIMIT ${limit}::int`);
    },

    /**
     * Forgets everything the Agent remembers of its records, what its ended Runs staged included (merged
     * first, under the merge's lock, so no merge in flight brings any of it back); the keys forgotten.
     */
    reset: (agentId: number) =>
      db.$transaction(async (tx) => {
        await mergePending(tx, agentId);
        return tx.$executeRaw(Prisma.sql`DELETE FROM "AgentRecordState" WHERE "agentId" = ${agentId}::int`);
      }),
  };
}
export type ChangesRepository = ReturnType<typeof createChangesRepository>;

/** The advisory lock class of merging an Agent's staged records (with the Agent's id). */
const MERGE_LOCK = 0x43484e47;

/**
 * In transaction `tx`: merges what the Agent's Runs that ended Success staged, oldest Run first, each in
 * one statement (mergeSql), under a lock of the Agent's: two callers at once (the worker after a Run's
 * end, the next Run's first question, a reset) merge each Run once and in order.
 */
async function mergePending(tx: Tx, agentId: number): Promise<void> {
  await tx.$executeRaw(Prisma.sql`SELECT pg_advisory_xact_lock(${MERGE_LOCK}::int, ${agentId}::int)`);
  const runs = await tx.$queryRaw<Array<{ runId: number }>>(Prisma.sql`
    SELECT "runId" FROM "RunChangeTracking" WHERE "agentId" = ${agentId}::int AND succeeded ORDER BY "runId"`);
  for (const r of runs) await tx.$executeRaw(mergeSql(r.runId));
}

/**
 * The settlement's statement for a Run's end: a Run that ended Success is marked so (its staged records
 * are merged into its Agent's state after the transaction, mergeSettled); a Run that ended otherwise has
 * what it staged removed. A Run that tracked nothing finds nothing to do (primary-key lookups).
 */
export function settleChangesSql(run: { id: number }, success: boolean): Prisma.Sql {
  const runId = run.id;
  if (success) return Prisma.sql`UPDATE "RunChangeTracking" SET succeeded = true WHERE "runId" = ${runId}::int`;
  return Prisma.sql`
    WITH tracking AS (DELETE FROM "RunChangeTracking" WHERE "runId" = ${runId}::int),
      stage AS (DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int)
    DELETE FROM "RunChangeSeen" WHERE "runId" = ${runId}::int`;
}

/**
 * Merges what Run `runId` staged into its Agent's state (its new and updated records; the keys it found
 * unchanged are not touched) and, tracking deletes, forgets the keys it did not see; its rows go. Only a
 * Run that ended Success (its settlement marked it) is merged, once: the statement takes its tracking row.
 */
function mergeSql(runId: number): Prisma.Sql {
  return Prisma.sql`
    WITH tracking AS (
      DELETE FROM "RunChangeTracking" WHERE "runId" = ${runId}::int AND succeeded
      RETURNING "agentId", "trackDeletes"
    ), stage AS (
      DELETE FROM "RunChangeStage" WHERE "runId" = ${runId}::int AND EXISTS (SELECT 1 FROM tracking)
      RETURNING "batch", "keys", "valuesHashes", "listHashes", "values"
    ), seen AS (
      DELETE FROM "RunChangeSeen" WHERE "runId" = ${runId}::int AND EXISTS (SELECT 1 FROM tracking)
      RETURNING "keys"
    ), staged AS (
      -- One row per key: the export's (batches from 1) over one staged during the crawl (below 0), should a
      -- key be in both (a stage answer lost on its way back, staged again by the export).
      -- A stage row's texts are split once each, and each record's JSON parsed once.
      SELECT DISTINCT ON (u.k) u.k, u.v, u.l, u.j::jsonb AS j
      FROM stage s CROSS JOIN LATERAL unnest(string_to_array(s."keys", ','), string_to_array(s."valuesHashes", ','),
        string_to_array(s."listHashes", ','), string_to_array(s."values", E'\\n')) AS u(k, v, l, j)
      ORDER BY u.k, s."batch" DESC
    ), merged AS (
      INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "changedRunId")
      SELECT t."agentId", s.k, s.v, s.l, s.j, ${runId}::int, ${runId}::int FROM staged s CROSS JOIN tracking t
      ON CONFLICT ("agentId", "keyHash") DO UPDATE SET "valuesHash" = EXCLUDED."valuesHash",
        "listHash" = EXCLUDED."listHash", "values" = EXCLUDED."values", "changedRunId" = EXCLUDED."changedRunId"
      RETURNING 1
    )
    DELETE FROM "AgentRecordState" st USING tracking t
    WHERE t."trackDeletes" AND st."agentId" = t."agentId"
      AND NOT EXISTS (SELECT 1 FROM (SELECT unnest("keys") AS k FROM seen) u WHERE u.k = st."keyHash")`;
}
