// Credit grants and the transaction ledger. Balance = sum of `remaining` over unexpired grants.
import type { Db, Prisma } from '../../db/prisma.js';

type Tx = Prisma.TransactionClient | Db;

export function createCreditsRepository(db: Db) {
  async function balance(organizationId: number, at: Date, tx: Tx = db): Promise<number> {
    const agg = await tx.creditGrant.aggregate({
      _sum: { remaining: true },
      where: { organizationId, OR: [{ expiresAt: null }, { expiresAt: { gt: at } }] },
    });
    return Number(agg._sum.remaining ?? 0);
  }
  return {
    balance,
    /** Adds a grant and its ledger entry in one transaction. */
    grant(input: { organizationId: number; amount: number; expiresAt: Date | null; message: string; at: Date }) {
      return db.$transaction(async (tx) => {
        const grant = await tx.creditGrant.create({
          data: {
            organizationId: input.organizationId,
            amount: input.amount,
            remaining: input.amount,
            expiresAt: input.expiresAt,
            message: input.message,
          },
        });
        const after = await balance(input.organizationId, input.at, tx);
        await tx.creditTransaction.create({
          data: {
            organizationId: input.organizationId,
            grantId: grant.id,
            transactionType: 'Grant',
            amount: input.amount,
            balance: after,
            expiresAt: input.expiresAt,
            message: input.message,
          },
        });
        return { grant, balance: after };
      });
    },
  };
}
export type CreditsRepository = ReturnType<typeof createCreditsRepository>;
