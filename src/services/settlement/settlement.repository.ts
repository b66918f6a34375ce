// Prisma access of settlement: claiming a terminal Run once, and finding Runs still to settle.
import type { Db, RawTx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { RunRow, SettledRun, TerminalMove } from '../runs/runs.repository.js';
import { SETTLED_RUN_COLUMNS } from '../runs/run-sql.repository.js';
import { TERMINAL_STATUSES } from '../runs/status-machine.js';

/** Settlement runs on one raw transaction (no Prisma machinery): it is on every Run's path. */
export type SettlementTx = RawTx;

/** A step's part of the claim statement (SettlementStep.atClaim): `read`, an SQL value read with the claimed Run. */
export interface ClaimSql {
  read?: Prisma.Sql;
}

/** A claim read's value as a step foretells it (SettlementStep.predictRead): compared in its text form. */
export type ClaimReadValue = bigint | number | boolean | string;

type ClaimedSql = (claimed: { column: (name: keyof RunRow) => Prisma.Sql }) => ClaimSql;
const claimedColumn = (name: string) => Prisma.raw(`claimed."${name.replace(/"/g, '')}"`);
const concat = (parts: Prisma.Sql[]) => (parts.length > 0 ? Prisma.join(parts, '') : Prisma.empty);

/** The claim's WITH items, ending in `claimed`: the claimed Run (see SettlementRepository.claim). */
function claimSql(runId: number, at: Date, move: TerminalMove | undefined): Prisma.Sql {
  const settledAt = Prisma.sql`"settledAt" = ${at.toISOString()}::timestamp`;
  // With a move, the Run changes, then its Agent is updated (`claimed` reads the update's result, so
  // it has run before any step reads `claimed`; a join whose columns nobody read would be planned
  // away); the steps write after it, in later statements: the order of every other status change
  // (Run, then Agent), so that two Runs of one Agent ending at once never wait for each other in
  // opposite orders.
  return move
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
}

/** A typed SQL value of a Run column (SETTLED_RUN_COLUMNS): what a one-round-trip claim checks. */
function settledValueSql(column: keyof SettledRun, value: unknown): Prisma.Sql {
  const type = SETTLED_RUN_COLUMNS[column];
  const param =
    value === null || value === undefined
      ? null
      : value instanceof Date
        ? value.toISOString()
        : typeof value === 'bigint'
          ? value.toString()
          : value;
  return Prisma.sql`${param}::${Prisma.raw(type)}`;
}

/** SQLSTATE of the one-round-trip claim's check (division by zero): the Run did not end as expected. */
const CLAIM_CHECK_FAILED = '22012';

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
      const claim = claimSql(runId, at, move);
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
     * A Run's end (`move`), its claim and everything after it in one round trip, with the COMMIT: the
     * claim statement checks that the Run moved and that it, and each step's read, are as `expected`
     * (the steps' `statements`, sent after it, were written from these). When they are not, it fails
     * with a division by zero (isClaimCheckFailure): the round trip's later statements are skipped and
     * the caller's rollback undoes the rest. Returns the ended Run, as the claim statement left it.
     */
    async claimAtOnce(
      tx: SettlementTx,
      runId: number,
      at: Date,
      steps: ReadonlyArray<ClaimedSql | undefined>,
      move: TerminalMove,
      expected: { run: SettledRun; reads: ReadonlyArray<ClaimReadValue | undefined> },
      statements: Prisma.Sql[],
    ): Promise<RunRow | null> {
      const columns = Object.keys(SETTLED_RUN_COLUMNS) as Array<keyof SettledRun>;
      const checks = columns.map(
        (c) => Prisma.sql`${claimedColumn(c)} IS NOT DISTINCT FROM ${settledValueSql(c, expected.run[c])}`,
      );
      steps.forEach((step, i) => {
        const read = step?.({ column: claimedColumn }).read;
        const value = expected.reads[i];
        if (!read) return;
        if (value === undefined)
          throw new Error(`settlement step ${i} reads at the claim, but nothing is expected of it`);
        // In text form, PostgreSQL's and JavaScript's alike for the values a read can have.
        checks.push(Prisma.sql`(${read})::text IS NOT DISTINCT FROM ${String(value)}::text`);
      });
      // `checked` is read first (it is the join's outer side), so the division happens when no Run was claimed too.
      const rows = await tx.rows<RunRow & { _checked?: unknown }>(
        Prisma.sql`
        WITH ${claimSql(runId, at, move)},
        checked AS (SELECT count(*) AS n FROM claimed WHERE ${Prisma.join(checks, ' AND ')})
        SELECT claimed.*, 1 / checked.n AS "_checked" FROM checked LEFT JOIN claimed ON true`,
        { before: move.before, after: statements, last: true },
      );
      const row = rows[0];
      if (!row) return null;
      delete row._checked;
      return row;
    },

    /** The one-round-trip claim found the Run other than expected (claimAtOnce): nothing of it stayed. */
    isClaimCheckFailure: (err: unknown) => (err as { code?: unknown } | null)?.code === CLAIM_CHECK_FAILED,

    /**
     * The statement that makes its transaction commit without waiting for its WAL flush (this
     * transaction only): for a settlement that does not also end its Run.
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
