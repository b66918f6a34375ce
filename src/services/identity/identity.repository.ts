// All Prisma access of the identity domain: organizations, users, API keys, refresh tokens, signing keys.
import type { Db, DbOrTx, Prisma } from '../../db/prisma.js';

export function createIdentityRepository(db: Db) {
  return {
    createOrganization(name: string, tx: DbOrTx = db) {
      return tx.organization.create({ data: { name } });
    },
    findOrganization(id: number, tx: DbOrTx = db) {
      return tx.organization.findUnique({ where: { id } });
    },
    createUser(
      data: { organizationId: number; email: string; name: string; role: string; passwordHash: string | null },
      tx: DbOrTx = db,
    ) {
      return tx.user.create({ data });
    },
    findUserById(id: number, tx: DbOrTx = db) {
      return tx.user.findUnique({ where: { id } });
    },
    findUserByEmail(email: string, tx: DbOrTx = db) {
      return tx.user.findUnique({ where: { email: email.toLowerCase() } });
    },
    findUserByExternalSubject(sub: string, tx: DbOrTx = db) {
      return tx.user.findUnique({ where: { externalSubject: sub } });
    },
    listUsers(organizationId: number, tx: DbOrTx = db) {
      return tx.user.findMany({ where: { organizationId }, orderBy: { id: 'asc' } });
    },
    createApiKey(
      data: {
        organizationId: number;
        userId: number;
        keyDigest: string;
        prefix: string;
        description: string;
        expiresAt: Date;
      },
      tx: DbOrTx = db,
    ) {
      return tx.apiKey.create({ data });
    },
    findApiKeyByDigest(keyDigest: string, tx: DbOrTx = db) {
      return tx.apiKey.findUnique({ where: { keyDigest }, include: { user: true } });
    },
    listApiKeys(userId: number, tx: DbOrTx = db) {
      return tx.apiKey.findMany({ where: { userId }, orderBy: { id: 'asc' } });
    },
    findApiKey(id: number, tx: DbOrTx = db) {
      return tx.apiKey.findUnique({ where: { id } });
    },
    revokeApiKey(id: number, at: Date, tx: DbOrTx = db) {
      return tx.apiKey.update({ where: { id }, data: { revokedAt: at } });
    },
    touchApiKey(id: number, at: Date) {
      return db.apiKey.update({ where: { id }, data: { lastUsedAt: at } });
    },
    createRefreshToken(
      data: { userId: number; tokenDigest: string; familyId: string; expiresAt: Date },
      tx: DbOrTx = db,
    ) {
      return tx.refreshToken.create({ data });
    },
    /** Marks a live refresh token used, atomically: only one concurrent caller gets it. */
    async consumeRefreshToken(tokenDigest: string, at: Date, tx: DbOrTx = db) {
      const res = await tx.refreshToken.updateMany({
        where: { tokenDigest, replacedAt: null, revokedAt: null, expiresAt: { gt: at } },
        data: { replacedAt: at },
      });
      if (res.count !== 1) return null;
      return tx.refreshToken.findUnique({ where: { tokenDigest }, include: { user: true } });
    },
    findRefreshToken(tokenDigest: string, tx: DbOrTx = db) {
      return tx.refreshToken.findUnique({ where: { tokenDigest } });
    },
    revokeRefreshFamily(familyId: string, at: Date, tx: DbOrTx = db) {
      return tx.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: at } });
    },
    purgeRefreshTokensExpiredBefore(cutoff: Date) {
      return db.refreshToken.deleteMany({ where: { expiresAt: { lt: cutoff } } });
    },
    listSigningKeys(tx: DbOrTx = db) {
      return tx.signingKey.findMany({ orderBy: { created: 'desc' } });
    },
    createSigningKey(
      data: { kid: string; algorithm: string; publicJwk: Prisma.InputJsonValue; privateJwk: string },
      tx: DbOrTx = db,
    ) {
      return tx.signingKey.create({ data });
    },
    createSpace(
      data: { organizationId: number; name: string; description?: string; isDefaultAccess: boolean },
      tx: DbOrTx = db,
    ) {
      return tx.space.create({ data });
    },
    /** The user that owns seeded data: the organization's first admin (else its first user). */
    findOrganizationOwner(organizationId: number, tx: DbOrTx = db) {
      return tx.user.findFirst({ where: { organizationId }, orderBy: [{ role: 'asc' }, { id: 'asc' }] });
    },
    createSpaces(rows: Array<{ organizationId: number; name: string; description: string }>, tx: DbOrTx = db) {
      return tx.space.createManyAndReturn({ data: rows, select: { id: true } });
    },
    transaction<T>(fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
      return db.$transaction(fn);
    },
  };
}
export type IdentityRepository = ReturnType<typeof createIdentityRepository>;
