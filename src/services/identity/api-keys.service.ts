// API keys: `cx_` + base58 of 32 random bytes. Only the SHA-256 digest is stored (a slow hash adds
// nothing for a 256-bit random secret and would cost every request). Lookups are cached per
// instance; a Redis epoch replaced on every revocation makes the next request on every instance
// re-check the database, so revocation is immediate while in-flight requests complete. The epoch is
// a random token, never a counter: a missing epoch (Redis lost its data) is replaced by a new token,
// which counts as a change, so a key revoked before the loss can never match an old cache entry; and
// while Redis cannot be read, keys are checked against the database on every request.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../../lib/clock.js';
import { randomSecret, sha256Hex } from '../../lib/crypto.js';
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../../lib/errors.js';
import type { IdentityRepository } from './identity.repository.js';
import type { Principal } from './principal.js';

export const API_KEY_PREFIX = 'cx_';
const MAX_CACHE = 10_000;

interface CacheEntry {
  principal: Principal;
  expiresAt: Date;
  epoch: string;
  cachedAt: number;
}

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
  redis: Pick<Redis, 'get' | 'set' | 'status'>;
  clock: Clock;
  config: { apiKeyDefaultDays: number; apiKeyCacheSeconds: number; redisPrefix: string };
}) {
  const { repo, redis, clock, config } = deps;
  const EPOCH_KEY = `${config.redisPrefix}:auth:apikey-epoch`;
  const cache = new Map<string, CacheEntry>();
  const lastTouched = new Map<number, number>();

  const newEpoch = () => randomBytes(12).toString('base64url');

  /**
   * The current epoch; null when Redis cannot say (answered at once while it is not connected, not
   * after reconnection attempts). Then no cached lookup is trusted and none is cached: keys are
   * checked against the database and a revocation still holds.
   */
  async function currentEpoch(): Promise<string | null> {
    if (redis.status !== 'ready') {
      cache.clear();
      return null;
    }
    try {
      const epoch = await redis.get(EPOCH_KEY);
      if (epoch !== null) return epoch;
      // First use, or Redis lost its data: start a new epoch (NX: every instance agrees on one).
      await redis.set(EPOCH_KEY, newEpoch(), 'NX');
      return await redis.get(EPOCH_KEY);
    } catch {
      // Revocations may be happening unseen: entries cached so far are not trusted again.
      cache.clear();
      return null;
    }
  }

  async function bumpEpoch(): Promise<void> {
    cache.clear();
    await redis.set(EPOCH_KEY, newEpoch());
  }

  return {
    async create(
      actor: Principal,
      userId: number,
      input: { description?: string; expiresAt?: string | null },
    ): Promise<ApiKeyView & { key: string }> {
      const user = await repo.findUserById(userId);
      if (!user || user.organizationId !== actor.organizationId) throw new NotFoundError(`User ${userId} was not found.`);
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

    async list(actor: Principal, userId: number): Promise<ApiKeyView[]> {
      const user = await repo.findUserById(userId);
      if (!user || user.organizationId !== actor.organizationId) throw new NotFoundError(`User ${userId} was not found.`);
      return (await repo.listApiKeys(userId)).map(view);
    },

    async revoke(actor: Principal, userId: number, keyId: number): Promise<void> {
      const key = await repo.findApiKey(keyId);
      if (!key || key.userId !== userId || key.organizationId !== actor.organizationId) {
        throw new NotFoundError(`API key ${keyId} was not found.`);
      }
      if (!key.revokedAt) await repo.revokeApiKey(keyId, clock.now());
      await bumpEpoch();
    },

    /** Replaces the epoch so every instance re-reads keys (used when a user is deactivated). */
    async invalidateAll(): Promise<void> {
      await bumpEpoch();
    },

    async authenticate(key: string): Promise<Principal> {
      const digest = sha256Hex(key);
      const now = clock.now();
      const epoch = await currentEpoch();
      const hit = cache.get(digest);
      if (hit && epoch !== null && hit.epoch === epoch && Date.now() - hit.cachedAt < config.apiKeyCacheSeconds * 1000) {
        if (hit.expiresAt <= now) throw new UnauthenticatedError();
        return hit.principal;
      }
      if (!key.startsWith(API_KEY_PREFIX) || key.length < 20) throw new UnauthenticatedError();
      const row = await repo.findApiKeyByDigest(digest);
      if (!row || row.revokedAt || row.expiresAt <= now || !row.user.isActive) {
        cache.delete(digest);
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
      if (config.apiKeyCacheSeconds > 0 && epoch !== null) {
        if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
        cache.set(digest, { principal, expiresAt: row.expiresAt, epoch, cachedAt: Date.now() });
      }
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
