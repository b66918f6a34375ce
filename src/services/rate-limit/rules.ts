// The rules of the rate limiter, free of I/O: which budget a request draws on, which paths are not
// limited, when a place in the line is served, how Retry-After is rounded, and the per-instance
// in-memory store used while Redis is unreachable. The Redis store (redis-store.ts) runs the same
// algorithm atomically in Lua; test/unit/rate-limit.test.ts holds both to the same scenarios.
//
// Algorithm: a sliding-window log. Every granted request holds one of `max` slots for `windowMs`
// from the moment it was granted, so no window of that length ever sees more than `max` grants.
// Over budget, up to `queue` requests wait in a FIFO line; a waiter is served when the slot for its
// place frees, and a newcomer is only served at once when every waiter ahead of it could be too.
import type { Clock } from '../../lib/clock.js';

export interface LimitPolicy {
  /** Requests granted per window. */
  max: number;
  windowMs: number;
  /** Requests that may wait for budget; 0 refuses at once. */
  queue: number;
}

export type Decision =
  /** `slots` (default 1) were granted: the first for this request, the rest a batch (limiter.service.ts). */
  | { kind: 'granted'; remaining: number; slots?: number }
  /** Waiting in line at `position` (0 = next); its slot frees in about `waitMs`. */
  | { kind: 'queued'; position: number; waitMs: number }
  /** Over budget with a full line; a request sent `retryAfterMs` from now is served. */
  | { kind: 'rejected'; retryAfterMs: number };

/** Where budgets live: Redis (shared by every instance) or one process's memory. */
export interface LimiterStore {
  /**
   * One atomic step for `ticket`: serve it, give or keep its place in line, or refuse it.
   * `arriving` is false when the ticket already holds a place (it is polling).
   */
  take(
    bucket: string,
    policy: LimitPolicy,
    ticket: string,
    arriving: boolean,
    batch?: { want: number; holdMs: number },
  ): Promise<Decision>;
  /** Gives back slots `from` (inclusive) to `to` (exclusive) of the batch granted to `ticket`. */
  release?(bucket: string, ticket: string, from: number, to: number): Promise<void>;
  /** The ticket gives its place in line back (its client went away). */
  leave(bucket: string, ticket: string): Promise<void>;
}

/** The budget a request draws on: each API key its own, a Bearer caller per user, else the client IP. */
/** Whose budget a request draws on: an API key, else a user. */
export interface BudgetOwner {
  via: 'apikey' | 'bearer';
  apiKeyId?: number;
  userId: number;
}

export function bucketFor(principal: BudgetOwner | null, ip: string): string {
  if (principal?.via === 'apikey' && principal.apiKeyId !== undefined) return `key:${principal.apiKeyId}`;
  if (principal) return `user:${principal.userId}`;
  return `ip:${ip}`;
}

/** Probes, API documentation and discovery documents are never limited (docs/api-contract.md, Limits). */
export function isExempt(path: string): boolean {
  const p = path.toLowerCase();
  return p.startsWith('/health/') || p === '/health' || p.startsWith('/swagger') || p.startsWith('/.well-known/');
}

/**
 * Retry-After in whole seconds: rounded up, at least 1, and never more than the window. A client that
 * waits that long is accepted: served at once when its slot has freed, else given a place in the line,
 * which has room again once a window has passed (every place within `max` of the front is served
 * within a window).
 */
export function retryAfterSeconds(ms: number, windowMs: number): number {
  return Math.max(1, Math.min(Math.ceil(ms / 1000), Math.ceil(windowMs / 1000)));
}

/**
 * When the request at place `rank` in line (0 = next) is served. `oldest` are the grant times of
 * the slots in use, ascending; `max - oldest.length` slots are free now. The k-th slot to free is a
 * free one (now), else the expiry of the k-th oldest grant; beyond `max` places a slot is used
 * again by an earlier waiter, so it frees one window after that waiter is served.
 */
export function servedAt(
  rank: number,
  oldest: readonly number[],
  now: number,
  policy: Pick<LimitPolicy, 'max' | 'windowMs'>,
): number {
  const free = policy.max - oldest.length;
  const round = Math.floor(rank / policy.max);
  const i = rank % policy.max;
  const base = i < free ? now : oldest[i - free] + policy.windowMs;
  return base + round * policy.windowMs;
}

interface MemoryBucket {
  /** Grant times, ascending. */
  grants: number[];
  /** Tickets waiting, first in line first. */
  line: string[];
}

/**
 * Budgets in this process only: what an instance falls back to while Redis is unreachable. Same
 * algorithm as the Redis store; a waiter here cannot outlive its process, so it needs no lease.
 */
export function createMemoryStore(clock: Clock, maxBuckets = 100_000): LimiterStore {
  const buckets = new Map<string, MemoryBucket>();

  function bucketOf(name: string, now: number, windowMs: number): MemoryBucket {
    let b = buckets.get(name);
    if (!b) {
      // Bounded memory: drop idle buckets first, then the oldest, as a bucket of a new name arrives.
      if (buckets.size >= maxBuckets) {
        for (const [k, v] of buckets)
          if (v.line.length === 0 && (v.grants.at(-1) ?? 0) <= now - windowMs) buckets.delete(k);
        if (buckets.size >= maxBuckets) buckets.delete(buckets.keys().next().value as string);
      }
      b = { grants: [], line: [] };
      buckets.set(name, b);
    }
    let expired = 0;
    while (expired < b.grants.length && b.grants[expired] <= now - windowMs) expired += 1;
    if (expired > 0) b.grants.splice(0, expired);
    return b;
  }

  return {
    async take(name, policy, ticket, arriving) {
      const now = clock.now().getTime();
      const b = bucketOf(name, now, policy.windowMs);
      let rank = arriving ? -1 : b.line.indexOf(ticket);
      const known = rank >= 0;
      if (!known) rank = b.line.length;
      const free = policy.max - b.grants.length;
      if (rank < free) {
        b.grants.push(now);
        if (known) b.line.splice(rank, 1);
        // Slots still free once every remaining waiter is served.
        return { kind: 'granted', remaining: Math.max(0, free - 1 - b.line.length) };
      }
      if (!known) {
        if (b.line.length >= policy.queue)
          return { kind: 'rejected', retryAfterMs: servedAt(rank, b.grants, now, policy) - now };
        b.line.push(ticket);
      }
      return { kind: 'queued', position: rank, waitMs: servedAt(rank, b.grants, now, policy) - now };
    },
    async leave(name, ticket) {
      const b = buckets.get(name);
      const i = b ? b.line.indexOf(ticket) : -1;
      if (b && i >= 0) b.line.splice(i, 1);
    },
  };
}
