// Prisma access of settlement: claiming a terminal Run once, and finding Runs still to settle.
import type { Db, RawTx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { RunRow, TerminalMove } from '../runs/runs.repository.js';
import { TERMINAL_STATUSES } from '../runs/status-machine.js';

/** Settlement runs on one raw transaction (no Prisma machinery): it is on every Run's path. */
export type SettlementTx = RawTx;

/** A step's part of the claim statement (SettlementStep.atClaim): `read`, an SQL value read with the claimed Run. */
export interface ClaimSql {
  read?: Prisma.Sql;
}

type ClaimedSql = (claimed: { column: (name: keyof RunRow) => Prisma.Sql }) => ClaimSql;
const claimedColumn = (name: string) => Prisma.raw(`claimed."${name.replace(/"/g, '')}"`);
const concat = (parts: Prisma.Sql[]) => (parts.length > 0 ? Prisma.join(parts, '') : Prisma.empty);

export function createSettlementRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: SettlementTx) => Promise<T>): Promise<T> {
      return db.$rawTransaction(fn);
    },

    /**
     * Marks a terminal, unsettled Run as settled and returns it; null when it is not terminal or
     * another transaction settled it first. The conditional update takes the Run's row lock, so two
     * concurrent claims of one Run are serialized and only the first one wins. With `move`, the claim
     * is the Run's terminal status change itself (null when its status does not allow it), after
     * `move.before` in the same round trip.
     */
    async claim(
      tx: SettlementTx,
      runId: number,
      at: Date,
      steps: ReadonlyArray<ClaimedSql | undefined> = [],
      move?: TerminalMove,
    ): Promise<{ run: RunRow; reads: unknown[] } | null> {
      // One statement (UPDATE ... RETURNING): the claim, the row the steps read, and the steps' reads.
      const parts = steps.map((s) => s?.({ column: claimedColumn }) ?? {});
      const reads = parts.flatMap((p, i) => (p.read ? [Prisma.sql`, ${p.read} AS ${Prisma.raw(`"_read${i}"`)}`] : []));
      const settledAt = Prisma.sql`"settledAt" = ${at.toISOString()}::timestamp`;
      // With a move, the Run changes, then its Agent is updated (`claimed` reads the update's result, so
      // it has run before any step reads `claimed`; a join whose columns nobody read would be planned
      // away); the steps write after it, in the next round trip: the order of every other status change
      // (Run, then Agent), so that two Runs of one Agent ending at once never wait for each other in
      // opposite orders.
      const claim = move
        ? Prisma.sql`moved AS (
            UPDATE "Run" SET ${move.set}, ${settledAt}
            WHERE id = ${runId}::int AND "settledAt" IS NULL AND status = ANY(${[...move.from]}::int[])
            RETURNING *
          ), touched AS (${move.touch('moved')}),
          claimed AS (SELECT moved.* FROM moved, (SELECT count(*) AS n FROM touched) t WHERE t.n >= 0)`
        : Prisma.sql`claimed AS (
            UPDATE "Run" SET ${settledAt}, updated = ${new Date().toISOString()}::timestamp
            WHERE id = ${runId}::int AND "settledAt" IS NULL AND status = ANY(${[...TERMINAL_STATUSES]}::int[])
            RETURNING *
          )`;
      const rows = await tx.rows<RunRow & Record<string, unknown>>(
        Prisma.sql`
        WITH ${claim}
        SELECT claimed.*${concat(reads)} FROM claimed`,
        { before: move?.before },
      );
      const row = rows[0];
      if (!row) return null;
      const values = parts.map((_, i) => row[`_read${i}`]);
      for (let i = 0; i < parts.length; i++) delete row[`_read${i}`];
      return { run: row, reads: values };
    },

    /**
     * The statement that makes its transaction commit without waiting for its WAL flush (this
     * transaction only): for a settlement that does not also end its Run (D-093).
     */
    asyncCommitSql: () => Prisma.sql`SELECT set_config('synchronous_commit', 'off', true)`,

    /** Terminal Runs not settled yet (their settlement failed or their process died first). */
    async findUnsettled(limit: number): Promise<number[]> {
      const rows = await db.run.findMany({
        where: { settledAt: null, status: { in: [...TERMINAL_STATUSES] } },
        select: { id: true },
        orderBy: { id: 'asc' },
        take: limit,
      });
      return rows.map((r) => r.id);
    },
  };
}
export type SettlementRepository = ReturnType<typeof createSettlementRepository>;
