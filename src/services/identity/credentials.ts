// Who a credential belongs to is cached per instance, so an authenticated request costs no database
// round trip for its credential. A cached principal is trusted only while the credentials epoch in
// Redis is the one it was cached under; revoking a key (or anything that invalidates credentials)
// replaces the epoch, so the next request on EVERY instance re-checks the database.
//
// The epoch is a random token, never a counter: a missing epoch (Redis lost its data) is replaced by
// a new token, which counts as a change. While Redis cannot be read nothing cached is trusted, and
// what was cached before is never trusted again (a revocation may have happened unseen): each such
// moment starts a new local generation that old entries do not match.
//
// The epoch is read on the per-request Redis connection (auto-pipelined), in the same round trip as
// the request's rate-limit step (plugins/app/auth.ts).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface EpochStamp {
  epoch: string;
  generation: number;
}

export function createCredentialsEpoch(deps: { redis: Pick<Redis, 'get' | 'set' | 'status'>; redisPrefix: string }) {
  const { redis } = deps;
  const KEY = `${deps.redisPrefix}:auth:credentials-epoch`;
  let generation = 0;
  const newEpoch = () => randomBytes(12).toString('base64url');

  return {
    /** The current stamp; null when Redis cannot say (then nothing cached may be trusted). */
    async current(): Promise<EpochStamp | null> {
      if (redis.status !== 'ready') {
        generation++;
        return null;
      }
      try {
        let epoch = await redis.get(KEY);
        if (epoch === null) {
          // First use, or Redis lost its data: start a new epoch (NX: every instance agrees on one).
          await redis.set(KEY, newEpoch(), 'NX');
          epoch = await redis.get(KEY);
        }
        if (epoch === null) {
          generation++;
          return null;
        }
        return { epoch, generation };
      } catch {
        generation++;
        return null;
      }
    },
    /** Every instance re-checks every credential on its next request. */
    async bump(): Promise<void> {
      generation++;
      await redis.set(KEY, newEpoch());
    },
  };
}
export type CredentialsEpoch = ReturnType<typeof createCredentialsEpoch>;

/** A bounded map of values cached under an epoch stamp, for at most `ttlMs`. */
export function createStampedCache<V>(opts: { ttlMs: number; max: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { value: V; stamp: EpochStamp; cachedAt: number }>();
  const fresh = (e: { cachedAt: number }) => now() - e.cachedAt < opts.ttlMs;
  return {
    /** The value cached for `key`, whatever its stamp (a candidate until the epoch confirms it). */
    peek(key: string): V | undefined {
      const e = entries.get(key);
      return e && fresh(e) ? e.value : undefined;
    },
    /** The value cached for `key` if it was cached under `stamp`. */
    get(key: string, stamp: EpochStamp | null): V | undefined {
      const e = entries.get(key);
      if (!e || !stamp || !fresh(e) || e.stamp.epoch !== stamp.epoch || e.stamp.generation !== stamp.generation) return undefined;
      return e.value;
    },
    /** Caches `value` under the stamp read BEFORE the value was read from the database. */
    set(key: string, value: V, stamp: EpochStamp | null): void {
      if (!stamp || opts.ttlMs <= 0) return;
      entries.delete(key);
      if (entries.size >= opts.max) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, stamp, cachedAt: now() });
    },
    delete(key: string): void {
      entries.delete(key);
    },
  };
}
