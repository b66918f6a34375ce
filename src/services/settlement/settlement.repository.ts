// Prisma access of settlement: claiming a terminal Run once, and finding Runs still to settle.
import type { Db, RawTx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { RunRow } from '../runs/runs.repository.js';
import { TERMINAL_STATUSES } from '../runs/status-machine.js';

/** Settlement runs on one raw transaction (no Prisma machinery): it is on every Run's path. */
export type SettlementTx = RawTx;

export function createSettlementRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: SettlementTx) => Promise<T>): Promise<T> {
      return db.$rawTransaction(fn);
    },

    /**
     * Marks a terminal, unsettled Run as settled and returns it; null when it is not terminal or
     * another transaction settled it first. The conditional update takes the Run's row lock, so two
     * concurrent claims of one Run are serialized and only the first one wins.
     */
    async claim(tx: SettlementTx, runId: number, at: Date): Promise<RunRow | null> {
      // One statement (UPDATE ... RETURNING): the claim and the row the steps read.
      const rows = await tx.rows<RunRow>(Prisma.sql`
        UPDATE "Run" SET "settledAt" = ${at.toISOString()}::timestamp, updated = ${new Date().toISOString()}::timestamp
        WHERE id = ${runId}::int AND "settledAt" IS NULL AND status = ANY(${[...TERMINAL_STATUSES]}::int[])
        RETURNING *`);
      return rows[0] ?? null;
    },

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
