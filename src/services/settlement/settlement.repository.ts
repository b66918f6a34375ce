// Prisma access of settlement: claiming a terminal Run once, and finding Runs still to settle.
import type { Db, RawTx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { RunRow } from '../runs/runs.repository.js';
import { TERMINAL_STATUSES } from '../runs/status-machine.js';

/** Settlement runs on one raw transaction (no Prisma machinery): it is on every Run's path. */
export type SettlementTx = RawTx;

/**
 * A step's part of the claim statement (SettlementStep.atClaim): `read`, an SQL value; `write`, a SELECT
 * list (`SELECT f(...)`) evaluated once for the claimed Run (the statement adds `FROM claimed`).
 */
export interface ClaimSql {
  read?: Prisma.Sql;
  write?: Prisma.Sql;
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
     * concurrent claims of one Run are serialized and only the first one wins.
     */
    async claim(
      tx: SettlementTx,
      runId: number,
      at: Date,
      steps: ReadonlyArray<ClaimedSql | undefined> = [],
    ): Promise<{ run: RunRow; reads: unknown[] } | null> {
      // One statement (UPDATE ... RETURNING): the claim, the row the steps read, and the steps' parts.
      const parts = steps.map((s) => s?.({ column: claimedColumn }) ?? {});
      const writes = parts.flatMap((p, i) =>
        p.write ? [Prisma.sql`, ${Prisma.raw(`w${i}`)} AS (${p.write} FROM claimed)`] : [],
      );
      const reads = parts.flatMap((p, i) => (p.read ? [Prisma.sql`, ${p.read} AS ${Prisma.raw(`"_read${i}"`)}`] : []));
      // A write that is not data-modifying runs only when the final SELECT reads it: each gives one row.
      const from = parts.flatMap((p, i) => (p.write ? [Prisma.raw(`, w${i}`)] : []));
      const rows = await tx.rows<RunRow & Record<string, unknown>>(Prisma.sql`
        WITH claimed AS (
          UPDATE "Run" SET "settledAt" = ${at.toISOString()}::timestamp, updated = ${new Date().toISOString()}::timestamp
          WHERE id = ${runId}::int AND "settledAt" IS NULL AND status = ANY(${[...TERMINAL_STATUSES]}::int[])
          RETURNING *
        )${concat(writes)}
        SELECT claimed.*${concat(reads)} FROM claimed${concat(from)}`);
      const row = rows[0];
      if (!row) return null;
      const values = parts.map((_, i) => row[`_read${i}`]);
      for (let i = 0; i < parts.length; i++) delete row[`_read${i}`];
      return { run: row, reads: values };
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
