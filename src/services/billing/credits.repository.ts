// Credit grants and the transaction ledger. Balance = sum of `remaining` over unexpired grants.
// Every change of an organization's grants (grant, debit, expiry) first takes the organization's row
// lock (FOR NO KEY UPDATE: it serializes these changes without blocking inserts that merely
// reference the organization), so the balances written into the ledger are exact and two debits
// never spend the same credit. The CHECK "CreditGrant_remaining_nonnegative" backs this up.
import type { Db, DbOrTx, Prisma, RawTx } from '../../db/prisma.js';
import { Prisma as P } from '../../generated/prisma/client.js';
import { Decimal } from './metering.js';

export type TransactionType = 'Grant' | 'Usage' | 'Uncovered' | 'Expiry';

export interface LedgerEntry {
  organizationId: number;
  grantId: number | null;
  runId: number | null;
  transactionType: TransactionType;
  amount: Decimal;
  balance: Decimal;
  expiresAt: Date | null;
  message: string;
  created: Date;
}

/**
 * The available credits at `at` as an SQL expression (numeric): the remaining credits of the grants
 * not expired (a grant expiring exactly at `at` no longer counts). A statement that starts a Run
 * reads it along with the Agent.
 */
export function creditsBalanceSql(organizationId: Prisma.Sql | number, at: Date): Prisma.Sql {
  return P.sql`(SELECT COALESCE(SUM(g.remaining), 0) FROM "CreditGrant" g
    WHERE g."organizationId" = ${organizationId} AND (g."expiresAt" IS NULL OR g."expiresAt" > ${at.toISOString()}::timestamp))`;
}

export interface Debit {
  organizationId: number;
  runId: number;
  cost: Decimal;
  at: Date;
  message: string;
  uncoveredMessage: string;
}

/** The organization's debit lock (see CreditsRepository.debitLock). */
function debitLockSql(organizationId: number): P.Sql {
  return P.sql`SELECT id FROM "Organization" WHERE id = ${organizationId}::int FOR NO KEY UPDATE`;
}

/** The debit statement's WITH items and main statement (CreditsRepository.debit). */
function debitSql(d: Debit): { with: P.Sql; main: P.Sql } {
  const cost = P.sql`${d.cost.toString()}::numeric`;
  return {
    with: P.sql`g AS (
          SELECT id, remaining, "expiresAt",
                 SUM(remaining) OVER () AS total,
                 SUM(remaining) OVER w - remaining AS before,
                 ROW_NUMBER() OVER w AS n
          FROM "CreditGrant"
          WHERE "organizationId" = ${d.organizationId} AND ("expiresAt" IS NULL OR "expiresAt" > ${d.at}::timestamp(3)) AND remaining > 0
          WINDOW w AS (ORDER BY "expiresAt" ASC NULLS LAST, created ASC, id ASC)
        ),
        t AS (
          SELECT id, "expiresAt", n, LEAST(remaining, ${cost} - before) AS amount, total - LEAST(before + remaining, ${cost}) AS after
          FROM g WHERE before < ${cost}
        ),
        taken AS (UPDATE "CreditGrant" c SET remaining = c.remaining - t.amount FROM t WHERE c.id = t.id),
        u AS (SELECT ${cost} - COALESCE(SUM(amount), 0) AS uncovered FROM t)`,
    main: P.sql`INSERT INTO "CreditTransaction" ("organizationId", "grantId", "runId", "transactionType", amount, balance, "expiresAt", message, created)
        SELECT ${d.organizationId}, e."grantId", ${d.runId}::int, e.type, e.amount, e.balance, e."expiresAt", e.message, ${d.at}::timestamp(3)
        FROM (
          SELECT t.id AS "grantId", 'Usage' AS type, -t.amount AS amount, t.after AS balance, t."expiresAt", ${d.message} AS message, t.n
          FROM t
          UNION ALL
          SELECT NULL, 'Uncovered', -u.uncovered, 0, NULL, replace(${d.uncoveredMessage}, '{uncovered}', trim_scale(u.uncovered)::text), 0
          FROM u WHERE u.uncovered > 0
        ) e
        ORDER BY e.type = 'Uncovered', e.n`,
  };
}

export function createCreditsRepository(db: Db) {
  async function balanceDecimal(organizationId: number, at: Date, tx: DbOrTx = db): Promise<Decimal> {
    const [row] = await tx.$queryRaw<
      Array<{ balance: Decimal }>
    >`SELECT ${creditsBalanceSql(organizationId, at)} AS balance`;
    return new Decimal(row.balance);
  }

  async function lockOrganization(tx: Prisma.TransactionClient, organizationId: number): Promise<void> {
    await tx.$queryRaw`SELECT id FROM "Organization" WHERE id = ${organizationId} FOR NO KEY UPDATE`;
  }

  return {
    /** The available credits at `at` (the same rule the debit uses). */
    async balance(organizationId: number, at: Date, tx: DbOrTx = db): Promise<number> {
      return (await balanceDecimal(organizationId, at, tx)).toNumber();
    },

    balanceDecimal,

    /**
     * The statement that takes the organization's lock for a debit, for the caller to run before the
     * debit's statement (see `debit`), in the same round trip: each statement of a batch has its own
     * snapshot, so the debit's sees every debit committed before the lock was granted. The lock is held
     * until the transaction ends: the settlement sends the debit, its last statements and its COMMIT
     * in that one round trip.
     */
    debitLock: (organizationId: number) => debitLockSql(organizationId),

    /**
     * Takes `cost` from the organization's grants that can pay at `at`, soonest-expiring first (then
     * oldest), never more than a grant has, and writes one Usage entry per grant touched with the
     * balance after it, plus an Uncovered entry for what no grant covers. One statement, so the
     * organization's lock (which the caller took in an earlier statement of the transaction, so that
     * this statement's snapshot sees every debit committed before it) is held for one round trip.
     * `uncoveredMessage` has `{uncovered}` where the uncovered amount goes. The CHECK constraint
     * refuses anything that would take a grant below zero.
     */
    async debit(tx: RawTx, d: Debit): Promise<void> {
      const { with: parts, main } = debitSql(d);
      await tx.rows(P.sql`WITH ${parts} ${main}`);
    },

    /**
     * `debit` as parts of another statement (the usage statement writes the Run's usage and debits it
     * in one round trip): `with`, its WITH items; `main`, the statement they lead to.
     */
    debitSql,

    /** The organization's own credits.low threshold, or null when it uses the default. */
    async lowThreshold(organizationId: number): Promise<Decimal | null> {
      const org = await db.organization.findUnique({
        where: { id: organizationId },
        select: { creditsLowThreshold: true },
      });
      return org?.creditsLowThreshold ?? null;
    },
    async setLowThreshold(organizationId: number, threshold: Decimal | null): Promise<void> {
      await db.organization.update({ where: { id: organizationId }, data: { creditsLowThreshold: threshold } });
    },

    /** Adds a grant and its ledger entry in one transaction. */
    grant(input: {
      organizationId: number;
      amount: number | string;
      expiresAt: Date | null;
      message: string;
      at: Date;
    }) {
      return db.$transaction(async (tx) => {
        await lockOrganization(tx, input.organizationId);
        const amount = new Decimal(input.amount);
        const grant = await tx.creditGrant.create({
          data: {
            organizationId: input.organizationId,
            amount,
            remaining: amount,
            expiresAt: input.expiresAt,
            message: input.message,
            created: input.at,
          },
        });
        const after = await balanceDecimal(input.organizationId, input.at, tx);
        await tx.creditTransaction.create({
          data: {
            organizationId: input.organizationId,
            grantId: grant.id,
            transactionType: 'Grant',
            amount,
            balance: after,
            expiresAt: input.expiresAt,
            message: input.message,
            created: input.at,
          },
        });
        return { grant, balance: after.toNumber() };
      });
    },

    /** Organizations with grants whose expiry has passed and is not recorded yet. */
    async organizationsWithDueExpiries(at: Date): Promise<number[]> {
      const rows = await db.creditGrant.findMany({
        where: { expiredAt: null, expiresAt: { lte: at } },
        distinct: ['organizationId'],
        select: { organizationId: true },
      });
      return rows.map((r) => r.organizationId);
    },

    /**
     * Records the expiry of an organization's grants whose expiresAt has passed: each one's remaining
     * credits leave the balance as an Expiry transaction, once (expiredAt marks it).
     */
    expireDue(organizationId: number, at: Date) {
      return db.$transaction(async (tx) => {
        await lockOrganization(tx, organizationId);
        const due = await tx.creditGrant.findMany({
          where: { organizationId, expiredAt: null, expiresAt: { lte: at } },
          orderBy: [{ expiresAt: 'asc' }, { id: 'asc' }],
        });
        if (due.length === 0) return 0;
        await tx.creditGrant.updateMany({
          where: { id: { in: due.map((g) => g.id) } },
          data: { expiredAt: at, remaining: 0 },
        });
        // Expired grants are already outside the balance, so the balance after each entry is the same.
        const after = await balanceDecimal(organizationId, at, tx);
        const entries: LedgerEntry[] = due
          .filter((g) => g.remaining.gt(0))
          .map((g) => ({
            organizationId,
            grantId: g.id,
            runId: null,
            transactionType: 'Expiry',
            amount: g.remaining.negated(),
            balance: after,
            expiresAt: g.expiresAt,
            message: `${g.remaining.toString()} unused credits of grant ${g.id} expired`,
            created: at,
          }));
        await tx.creditTransaction.createMany({ data: entries });
        return entries.length;
      });
    },

    async history(organizationId: number, page: { offset: number; limit: number }) {
      const [rows, total] = await Promise.all([
        db.creditTransaction.findMany({
          where: { organizationId },
          orderBy: [{ created: 'desc' }, { id: 'desc' }],
          skip: page.offset,
          take: page.limit,
        }),
        db.creditTransaction.count({ where: { organizationId } }),
      ]);
      return { rows, total };
    },

    /** An operator's view of an organization's credits: balance, every grant, the latest ledger entries. */
    async statement(organizationId: number, at: Date, limit: number) {
      const [balance, grants, transactions] = await Promise.all([
        balanceDecimal(organizationId, at),
        db.creditGrant.findMany({ where: { organizationId }, orderBy: { id: 'asc' } }),
        db.creditTransaction.findMany({
          where: { organizationId },
          orderBy: [{ created: 'desc' }, { id: 'desc' }],
          take: limit,
        }),
      ]);
      const n = (d: Decimal) => d.toString();
      return {
        organizationId,
        availableCredits: n(balance),
        retrievedAt: at.toISOString(),
        grants: grants.map((g) => ({
          id: g.id,
          amount: n(g.amount),
          remaining: n(g.remaining),
          expiresAt: g.expiresAt?.toISOString() ?? null,
          expired: g.expiresAt !== null && g.expiresAt <= at,
          message: g.message,
          created: g.created.toISOString(),
        })),
        transactions: transactions.map((t) => ({
          id: t.id,
          created: t.created.toISOString(),
          transactionType: t.transactionType,
          amount: n(t.amount),
          balance: n(t.balance),
          grantId: t.grantId,
          runId: t.runId,
          message: t.message,
        })),
      };
    },

    /** Credits debited for usage in [from, to). */
    async spent(organizationId: number, from: Date, to: Date): Promise<Decimal> {
      const agg = await db.creditTransaction.aggregate({
        _sum: { amount: true },
        where: { organizationId, transactionType: 'Usage', created: { gte: from, lt: to } },
      });
      return (agg._sum.amount ?? new Decimal(0)).negated();
    },

    /** Runs among `runIds` with usage no credit covered. */
    async runsWithUncovered(runIds: number[]): Promise<Set<number>> {
      if (runIds.length === 0) return new Set();
      const rows = await db.creditTransaction.findMany({
        where: { runId: { in: runIds }, transactionType: 'Uncovered' },
        select: { runId: true },
      });
      return new Set(rows.map((r) => r.runId!));
    },
  };
}
export type CreditsRepository = ReturnType<typeof createCreditsRepository>;
