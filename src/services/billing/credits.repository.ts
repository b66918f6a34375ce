// Credit grants and the transaction ledger. Balance = sum of `remaining` over unexpired grants.
// Every change of an organization's grants (grant, debit, expiry) first takes the organization's row
// lock (FOR NO KEY UPDATE: it serializes these changes without blocking inserts that merely
// reference the organization), so the balances written into the ledger are exact and two debits
// never spend the same credit. The CHECK "CreditGrant_remaining_nonnegative" backs this up.
import type { Db, Prisma } from '../../db/prisma.js';
import { Prisma as P } from '../../generated/prisma/client.js';
import { Decimal, type GrantBalance } from './metering.js';

type Tx = Prisma.TransactionClient | Db;

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

/** Grants that count at `at`: not expired (a grant expiring exactly at `at` no longer counts). */
const activeGrants = (organizationId: number, at: Date) => ({ organizationId, OR: [{ expiresAt: null }, { expiresAt: { gt: at } }] });

export function createCreditsRepository(db: Db) {
  async function balanceDecimal(organizationId: number, at: Date, tx: Tx = db): Promise<Decimal> {
    const agg = await tx.creditGrant.aggregate({ _sum: { remaining: true }, where: activeGrants(organizationId, at) });
    return agg._sum.remaining ?? new Decimal(0);
  }

  async function lockOrganization(tx: Prisma.TransactionClient, organizationId: number): Promise<void> {
    await tx.$queryRaw`SELECT id FROM "Organization" WHERE id = ${organizationId} FOR NO KEY UPDATE`;
  }

  return {
    /** The available credits at `at` (the same rule the debit uses). */
    async balance(organizationId: number, at: Date, tx: Tx = db): Promise<number> {
      return (await balanceDecimal(organizationId, at, tx)).toNumber();
    },

    balanceDecimal,
    lockOrganization,

    /** The organization's grants that can pay at `at`, in consumption order: soonest-expiring first, then oldest. */
    async payingGrants(tx: Prisma.TransactionClient, organizationId: number, at: Date): Promise<Array<GrantBalance & { expiresAt: Date | null }>> {
      return tx.creditGrant.findMany({
        where: { ...activeGrants(organizationId, at), remaining: { gt: 0 } },
        orderBy: [{ expiresAt: { sort: 'asc', nulls: 'last' } }, { created: 'asc' }, { id: 'asc' }],
        select: { id: true, remaining: true, expiresAt: true },
      });
    },

    /**
     * Takes each amount from its grant and writes the ledger entries, in one statement (the
     * organization's lock is held meanwhile, so every round trip counts). The CHECK constraint
     * refuses anything that would take a grant below zero.
     */
    async debit(tx: Prisma.TransactionClient, takes: Array<{ grantId: number; amount: Decimal }>, entries: LedgerEntry[]): Promise<void> {
      if (entries.length === 0) return;
      const ledger = P.sql`
        INSERT INTO "CreditTransaction" ("organizationId", "grantId", "runId", "transactionType", amount, balance, "expiresAt", message, created)
        VALUES ${P.join(entries.map((e) => P.sql`(${e.organizationId}, ${e.grantId}::int, ${e.runId}::int, ${e.transactionType}, ${e.amount.toString()}::numeric, ${e.balance.toString()}::numeric, ${e.expiresAt}::timestamp, ${e.message}, ${e.created}::timestamp)`))}`;
      if (takes.length === 0) {
        await tx.$executeRaw`${ledger}`;
        return;
      }
      await tx.$executeRaw`
        WITH taken AS (
          UPDATE "CreditGrant" g SET remaining = g.remaining - v.amount
          FROM (VALUES ${P.join(takes.map((t) => P.sql`(${t.grantId}::int, ${t.amount.toString()}::numeric)`))}) AS v(id, amount)
          WHERE g.id = v.id
        )
        ${ledger}`;
    },

    /** Adds a grant and its ledger entry in one transaction. */
    grant(input: { organizationId: number; amount: number | string; expiresAt: Date | null; message: string; at: Date }) {
      return db.$transaction(async (tx) => {
        await lockOrganization(tx, input.organizationId);
        const amount = new Decimal(input.amount);
        const grant = await tx.creditGrant.create({
          data: { organizationId: input.organizationId, amount, remaining: amount, expiresAt: input.expiresAt, message: input.message, created: input.at },
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
        await tx.creditGrant.updateMany({ where: { id: { in: due.map((g) => g.id) } }, data: { expiredAt: at, remaining: 0 } });
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
        db.creditTransaction.findMany({ where: { organizationId }, orderBy: [{ created: 'desc' }, { id: 'desc' }], take: limit }),
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
