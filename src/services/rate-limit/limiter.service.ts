// Takes budget for a request: served at once, after waiting its turn in line, or refused with
// RateLimitedError (429 + Retry-After). Budgets live in Redis; while Redis is unreachable each
// instance falls back to its own in-memory budgets, and says so once per change of state.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../lib/clock.js';
import { RateLimitedError } from '../../lib/errors.js';
import { retryAfterSeconds, type Decision, type LimiterStore, type LimitPolicy } from './rules.js';

export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export function createRateLimiter(deps: {
  /** The shared store (Redis). */
  shared: LimiterStore;
  /** Whether the shared store's connection is up; when it is not, no request waits on it. */
  sharedReady: () => boolean;
  /** This instance's own store, used while the shared one fails. */
  local: LimiterStore;
  clock: Clock;
  log: LimiterLog;
  /** After a failure the shared store is tried again this long later (one request pays for the probe). */
  retrySharedMs?: number;
}) {
  const { shared, local, clock, log } = deps;
  const retrySharedMs = deps.retrySharedMs ?? 1000;
  // Tickets are unique across instances without coordination.
  const instance = crypto.randomBytes(6).toString('base64url');
  let counter = 0;
  let degraded = false;
  let retryAt = 0;

  function setDegraded(next: boolean, err?: unknown) {
    if (next === degraded) return;
    degraded = next;
    if (next) {
      log.warn({ err: err ? { message: (err as Error).message } : undefined }, 'rate limiter: Redis unreachable, limiting per instance in memory until it is back');
    } else {
      log.info({}, 'rate limiter: Redis reachable again, budgets are shared by every instance again');
    }
  }

  async function step(bucket: string, policy: LimitPolicy, ticket: string, arriving: boolean): Promise<{ store: LimiterStore; decision: Decision }> {
    const now = clock.now().getTime();
    if (deps.sharedReady() && (!degraded || now >= retryAt)) {
      try {
        const decision = await shared.take(bucket, policy, ticket, arriving);
        setDegraded(false);
        return { store: shared, decision };
      } catch (err) {
        retryAt = now + retrySharedMs;
        setDegraded(true, err);
      }
    } else {
      setDegraded(true);
    }
    return { store: local, decision: await local.take(bucket, policy, ticket, arriving) };
  }

  /** How often a waiter asks again, whatever its estimate, so a place freed ahead of it is noticed. */
  const pollMs = (policy: LimitPolicy) => Math.min(1000, Math.max(50, Math.floor(policy.windowMs / 4)));

  return {
    get degraded() {
      return degraded;
    },

    /**
     * Serves the request from `bucket` under `policy`, waiting in line if need be. Resolves with the
     * budget left; throws RateLimitedError when refused. An aborted `signal` (the client went away)
     * gives the place in line back.
     */
    async acquire(bucket: string, policy: LimitPolicy, signal?: AbortSignal): Promise<{ remaining: number }> {
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
      const ticket = `${instance}.${counter.toString(36)}`;
      let arriving = true;
      let holder: LimiterStore | null = null;
      for (;;) {
        const { store, decision } = await step(bucket, policy, ticket, arriving);
        // The place was held in the other store (Redis went away or came back): give that one back.
        if (holder && holder !== store) void holder.leave(bucket, ticket).catch(() => undefined);
        holder = store;
        if (decision.kind === 'granted') return { remaining: decision.remaining };
        if (decision.kind === 'rejected') {
          const seconds = retryAfterSeconds(decision.retryAfterMs);
          throw new RateLimitedError(
            `Over the limit of ${policy.max} requests per ${policy.windowMs / 1000} s` +
              (policy.queue > 0 ? ` with ${policy.queue} requests already waiting` : '') +
              `; retry after ${seconds} s.`,
            seconds,
          );
        }
        arriving = false;
        try {
          // +1: the slot frees at that millisecond, not before it.
          await sleep(Math.min(Math.max(0, decision.waitMs) + 1, pollMs(policy)), undefined, { signal });
        } catch {
          await holder.leave(bucket, ticket).catch(() => undefined);
          throw new RateLimitedError('The client went away while waiting for budget.', retryAfterSeconds(decision.waitMs));
        }
      }
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
