// API keys: `cx_` + base58 of 32 random bytes. Only the SHA-256 digest is stored (a slow hash adds
// nothing for a 256-bit random secret and would cost every request). Lookups are cached per
// instance under the credentials epoch (credentials.ts): revoking a key replaces the epoch, so the
// next request on every instance re-checks the database, while in-flight requests complete. The
// cache is keyed by the key as sent, like verified bearer tokens: it lives only in this process's
// memory, for at most API_KEY_CACHE_SECONDS, and saves a SHA-256 per request.
import type { Clock } from '../../lib/clock.js';
import { randomSecret, sha256Hex } from '../../lib/crypto.js';
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../../lib/errors.js';
import { createStampedCache, type CredentialsEpoch, type EpochStamp } from './credentials.js';
import type { IdentityRepository } from './identity.repository.js';
import type { Principal } from './principal.js';

export const API_KEY_PREFIX = 'cx_';
const MAX_CACHE = 10_000;

export interface ApiKeyView {
  id: number;
  userId: number;
  prefix: string;
  description: string;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  created: Date;
}

function view(k: ApiKeyView): ApiKeyView {
  return {
    id: k.id,
    userId: k.userId,
    prefix: k.prefix,
    description: k.description,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
    lastUsedAt: k.lastUsedAt,
    created: k.created,
  };
}

/** Creates a key row and returns the key itself, which is never stored. */
export async function issueApiKey(
  repo: Pick<IdentityRepository, 'createApiKey'>,
  input: { organizationId: number; userId: number; description: string; expiresAt: Date },
  tx?: Parameters<IdentityRepository['createApiKey']>[1],
) {
  const key = randomSecret(API_KEY_PREFIX);
  const row = await repo.createApiKey(
    { ...input, keyDigest: sha256Hex(key), prefix: key.slice(0, API_KEY_PREFIX.length + 6) },
    tx,
  );
  return { row, key };
}

export function createApiKeysService(deps: {
  repo: IdentityRepository;
  epoch: CredentialsEpoch;
  clock: Clock;
  config: { apiKeyDefaultDays: number; apiKeyCacheSeconds: number };
}) {
  const { repo, epoch, clock, config } = deps;
  const cache = createStampedCache<{ principal: Principal; expiresAt: Date }>({
    ttlMs: config.apiKeyCacheSeconds * 1000,
    max: MAX_CACHE,
  });
  const lastTouched = new Map<number, number>();

  return {
    async create(
      actor: Principal,
      userId: number,
      input: { description?: string; expiresAt?: string | null },
    ): Promise<ApiKeyView & { key: string }> {
      const user = await repo.findUserById(userId);
      if (!user || user.organizationId !== actor.organizationId)
        throw new NotFoundError(`User ${userId} was not found.`);
      const now = clock.now();
      let expiresAt = new Date(now.getTime() + config.apiKeyDefaultDays * 86_400_000);
      if (input.expiresAt) {
        expiresAt = new Date(input.expiresAt);
        if (Number.isNaN(expiresAt.getTime())) throw new ValidationError('expiresAt is not a valid date-time.');
        if (expiresAt <= now) throw new ValidationError('expiresAt must be in the future.');
      }
      const { row, key } = await issueApiKey(repo, {
        organizationId: user.organizationId,
        userId: user.id,
        description: input.description ?? '',
        expiresAt,
      });
      return { ...view(row), key };
    },

    /** Administrators list anyone's keys in their organization; a member lists only their own. */
    async list(actor: Principal, userId: number): Promise<ApiKeyView[]> {
      if (actor.userId !== userId) requireAdmin(actor);
      const user = await repo.findUserById(userId);
      if (!user || user.organizationId !== actor.organizationId)
        throw new NotFoundError(`User ${userId} was not found.`);
      return (await repo.listApiKeys(userId)).map(view);
    },

    async revoke(actor: Principal, userId: number, keyId: number): Promise<void> {
      const key = await repo.findApiKey(keyId);
      if (!key || key.userId !== userId || key.organizationId !== actor.organizationId) {
        throw new NotFoundError(`API key ${keyId} was not found.`);
      }
      if (!key.revokedAt) await repo.revokeApiKey(keyId, clock.now());
      await epoch.bump();
    },

    /**
     * The key's principal from this instance's cache, without I/O, if it was cached under `stamp`
     * (the current credentials epoch); undefined when the database must say. 401 once expired.
     */
    cached(key: string, stamp: EpochStamp | null): Principal | undefined {
      const hit = cache.get(key, stamp);
      if (hit && hit.expiresAt.getTime() <= clock.now().getTime()) throw new UnauthenticatedError();
      return hit?.principal;
    },

    /**
     * The key's principal from the database (cached under `stamp`, read before this call); 401 when
     * unknown, expired, revoked or its user inactive.
     */
    async authenticate(key: string, stamp: EpochStamp | null = epoch.current()): Promise<Principal> {
      const digest = sha256Hex(key);
      const now = clock.now();
      if (!key.startsWith(API_KEY_PREFIX) || key.length < 20) throw new UnauthenticatedError();
      const row = await repo.findApiKeyByDigest(digest);
      if (!row || row.revokedAt || row.expiresAt <= now || !row.user.isActive) {
        cache.delete(key);
        throw new UnauthenticatedError();
      }
      const principal: Principal = {
        userId: row.user.id,
        organizationId: row.user.organizationId,
        role: row.user.role === 'admin' ? 'admin' : 'member',
        email: row.user.email,
        name: row.user.name,
        via: 'apikey',
        apiKeyId: row.id,
      };
      cache.set(key, { principal, expiresAt: row.expiresAt }, stamp);
      // lastUsedAt is informational; write it at most once a minute per key.
      const touched = lastTouched.get(row.id) ?? 0;
      if (Date.now() - touched > 60_000) {
        lastTouched.set(row.id, Date.now());
        repo.touchApiKey(row.id, now).catch(() => {});
      }
      return principal;
    },
  };
}
export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function requireAdmin(principal: Principal): void {
  if (principal.role !== 'admin') throw new ForbiddenError('Only organization administrators can do this.');
}
