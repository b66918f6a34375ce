// The checkpoints of executing Runs (RunCheckpoint, RunCheckpointRecords): where each one's crawl has
// got to and the records it extracted until then. A write is one statement: the records chunk and the
// state that accounts for it commit together, so a resumed Run never has a record twice or misses one.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

export interface StoredCheckpoint {
  state: unknown;
  interruptions: number;
  takeovers: number;
  /** The records chunks the state accounts for, in order: per set, NDJSON. */
  records: Array<Record<string, string>>;
}

export function createCheckpointsRepository(db: Db) {
  return {
    /**
     * Saves the state, and the records since the previous write as the next chunk (when there are any).
     * Straight on the pool: a chunk is a page's records (tens of KB), which Prisma's raw path would
     * serialise to JSON and parse again before sending; the chunk is sent once (a NULL chunk inserts no row).
     */
    async save(runId: number, state: object, records: Record<string, string> | null): Promise<void> {
      const chunk = records === null ? null : JSON.stringify(records);
      await db.$rows(Prisma.sql`
        WITH input AS (SELECT ${chunk}::jsonb AS records),
        previous AS (SELECT "recordsSeq" AS seq FROM "RunCheckpoint" WHERE "runId" = ${runId}::int),
        chunk AS (
          INSERT INTO "RunCheckpointRecords" ("runId", seq, records)
          SELECT ${runId}::int, COALESCE((SELECT seq FROM previous), 0) + 1, input.records FROM input
          WHERE input.records IS NOT NULL
          RETURNING seq)
        INSERT INTO "RunCheckpoint" ("runId", state, "recordsSeq", updated)
        VALUES (${runId}::int, ${JSON.stringify(state)}::jsonb, COALESCE((SELECT seq FROM chunk), 0), now())
        ON CONFLICT ("runId") DO UPDATE SET state = EXCLUDED.state,
          "recordsSeq" = COALESCE((SELECT seq FROM chunk), "RunCheckpoint"."recordsSeq"), updated = now()`);
    },

    /** The Run's checkpoint with its records, or null when it has none. */
    async load(runId: number): Promise<StoredCheckpoint | null> {
      const rows = await db.$queryRaw<Array<{ state: unknown; interruptions: number; takeovers: number }>>(
        Prisma.sql`SELECT state, interruptions, takeovers FROM "RunCheckpoint" WHERE "runId" = ${runId}`,
      );
      if (rows.length === 0) return null;
      const chunks = await db.$queryRaw<Array<{ records: Record<string, string> }>>(Prisma.sql`
        SELECT r.records FROM "RunCheckpointRecords" r JOIN "RunCheckpoint" c ON c."runId" = r."runId"
        WHERE r."runId" = ${runId} AND r.seq <= c."recordsSeq" ORDER BY r.seq`);
      return { ...rows[0], records: chunks.map((c) => c.records) };
    },

    /** Removes the Run's checkpoint and records (its end: nothing is to be resumed any more). */
    async remove(runId: number): Promise<void> {
      await db.$executeRaw(Prisma.sql`
        WITH gone AS (DELETE FROM "RunCheckpointRecords" WHERE "runId" = ${runId})
        DELETE FROM "RunCheckpoint" WHERE "runId" = ${runId}`);
    },
  };
}
export type CheckpointsRepository = ReturnType<typeof createCheckpointsRepository>;
