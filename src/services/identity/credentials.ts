// Who a credential belongs to is cached per instance, so an authenticated request costs no database
// round trip and no Redis round trip for its credential. A cached principal is trusted only under
// the credentials epoch it was cached under; revoking a key (or anything that invalidates
// credentials) replaces the epoch in Redis and publishes it, and every instance holds the current
// epoch from its subscription, so the next request on EVERY instance re-checks the database.
//
// A request's credential is checked against the epoch when the request arrives, and again when its
// response is sent (plugins/app/auth.ts): a replacement published before the request was sent has
// been read by then (it reached this process's socket before the request could), so a request that
// raced the invalidation message is re-checked instead of answered from the stale cache.
//
// The epoch is a random token, never a counter: a missing epoch (Redis lost its data) is replaced by
// a new token, which counts as a change. While the subscription is down nothing cached is trusted,
// and what was cached before is never trusted again (a revocation may have happened unseen): each
// such moment starts a new local generation that old entries do not match.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface EpochStamp {
  epoch: string;
  generation: number;
}

type EpochCommands = Pick<Redis, 'get' | 'set' | 'eval'>;

/** Replaces the epoch and publishes it, atomically: no instance can read the one and miss the other. */
const REPLACE = `redis.call('SET', KEYS[1], ARGV[1]) return redis.call('PUBLISH', KEYS[1], ARGV[1])`;

export function createCredentialsEpoch(deps: {
  /** Issues GET/SET/PUBLISH. */
  redis: EpochCommands;
  /**
   * A connection of its own, used only to subscribe (a subscribed connection issues nothing else),
   * created with `autoResubscribe: false`: this module subscribes again on every 'ready'.
   */
  subscriber: Redis;
  redisPrefix: string;
}) {
  const { redis, subscriber } = deps;
  const KEY = `${deps.redisPrefix}:auth:credentials-epoch`;
  let generation = 0;
  /** The epoch this instance knows to be current; null while it cannot know. Replaced, never mutated. */
  let stamp: EpochStamp | null = null;
  /** Messages received: a read of the key that a message overtook is older than the message. */
  let received = 0;
  const newEpoch = () => randomBytes(12).toString('base64url');

  function distrust() {
    generation++;
    stamp = null;
  }

  async function readCurrent(): Promise<void> {
    const seen = received;
    try {
      let epoch = await redis.get(KEY);
      if (epoch === null) {
        // First use, or Redis lost its data: start a new epoch (NX: every instance agrees on one).
        await redis.set(KEY, newEpoch(), 'NX');
        epoch = await redis.get(KEY);
      }
      if (epoch !== null && received === seen && subscriber.status === 'ready') stamp = { epoch, generation };
    } catch {
      distrust();
    }
  }

  subscriber.on('message', (channel: string, epoch: string) => {
    if (channel !== KEY) return;
    received++;
    generation++;
    stamp = { epoch, generation };
  });
  // Subscribed first, read second: a replacement after the read arrives as a message.
  const subscribe = () => void subscriber.subscribe(KEY).then(readCurrent, distrust);
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();
  for (const event of ['close', 'reconnecting', 'end', 'error']) subscriber.on(event, distrust);

  return {
    /**
     * The current stamp, without I/O; null when this instance cannot know it (then nothing cached may
     * be trusted). The same object until the epoch changes, so callers compare by identity.
     */
    current(): EpochStamp | null {
      return stamp;
    },
    /** Resolves once the epoch is known (or at once if it cannot be): for startup and tests. */
    async ready(timeoutMs = 2000): Promise<void> {
      const until = Date.now() + timeoutMs;
      while (!stamp && subscriber.status !== 'end' && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    },
    /** Every instance re-checks every credential on its next request. */
    async bump(): Promise<void> {
      distrust();
      const epoch = newEpoch();
      await redis.eval(REPLACE, 1, KEY, epoch);
    },
  };
}
export type CredentialsEpoch = ReturnType<typeof createCredentialsEpoch>;

/** A bounded map of values cached under an epoch stamp, for at most `ttlMs`. */
export function createStampedCache<V>(opts: { ttlMs: number; max: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { value: V; stamp: EpochStamp; cachedAt: number }>();
  return {
    /** The value cached for `key` if it was cached under `stamp`. */
    get(key: string, stamp: EpochStamp | null): V | undefined {
      const e = entries.get(key);
      if (
        !e ||
        !stamp ||
        now() - e.cachedAt >= opts.ttlMs ||
        e.stamp.epoch !== stamp.epoch ||
        e.stamp.generation !== stamp.generation
      )
        return undefined;
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
