// Takes budget for a request: served at once, after waiting its turn in line, or refused with
// RateLimitedError (429 + Retry-After). Budgets live in Redis; while Redis is unreachable each
// instance falls back to its own in-memory budgets, and says so once per change of state.
//
// A budget in steady use is not asked of Redis for every request: the instance takes a batch of
// slots in one step and hands them out itself for a short hold time (at most a second, 1/60 of the
// window). Redis holds each batch slot for a window from when the batch was taken, so a window sees
// at most `max` grants give or take the slots handed out during one hold; slots not handed out are
// given back when the hold ends. (Holding them from the end of the hold instead would keep the bound
// exact, but then a refused client could be told to wait longer than a window.) The batch
// doubles while requests keep coming (1, 2, 4 ... 256), is at most a quarter of the free budget,
// and is only taken while nobody waits, so small budgets and waiting lines behave exactly as before.
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../lib/clock.js';
import { RateLimitedError } from '../../lib/errors.js';
import { retryAfterSeconds, type Decision, type LimiterStore, type LimitPolicy } from './rules.js';

export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** The largest batch of slots an instance takes in one step. */
const MAX_BATCH = 256;

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
  /** Monotonic milliseconds, for batch hold times (tests inject it). */
  monotonicMs?: () => number;
}) {
  const monotonic = deps.monotonicMs ?? (() => performance.now());
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
      log.warn(
        { err: err ? { message: (err as Error).message } : undefined },
        'rate limiter: Redis unreachable, limiting per instance in memory until it is back',
      );
    } else {
      log.info({}, 'rate limiter: Redis reachable again, budgets are shared by every instance again');
    }
  }

  async function step(
    bucket: string,
    policy: LimitPolicy,
    ticket: string,
    arriving: boolean,
    batch?: { want: number; holdMs: number },
  ): Promise<{ store: LimiterStore; decision: Decision }> {
    const now = clock.now().getTime();
    if (deps.sharedReady() && (!degraded || now >= retryAt)) {
      try {
        const decision = await shared.take(bucket, policy, ticket, arriving, batch);
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

  interface Batch {
    ticket: string;
    /** The shared store that granted it, which takes unused slots back. */
    store: LimiterStore;
    size: number;
    used: number;
    /** Monotonic time after which no slot is handed out (measured from before the request was sent). */
    until: number;
    /** Budget left in the shared store once the batch was taken. */
    remainingAfter: number;
    timer: NodeJS.Timeout;
  }
  /** The batch each bucket is handing out, and how large the next one should be. */
  const batches = new Map<string, Batch>();
  const demand = new Map<string, { want: number; at: number }>();

  function retire(bucket: string, batch: Batch): void {
    clearTimeout(batch.timer);
    if (batches.get(bucket) === batch) batches.delete(bucket);
    // Unused slots are given back; what was used was needed, so the next batch is sized on that.
    demand.set(bucket, { want: batch.used >= batch.size ? batch.size * 2 : Math.max(1, batch.used), at: monotonic() });
    if (batch.used < batch.size)
      void batch.store.release?.(bucket, batch.ticket, batch.used, batch.size).catch(() => undefined);
  }

  /** Batch hold time for a policy; 0 for windows too short for batches to be worth their precision cost. */
  const holdMs = (policy: LimitPolicy) =>
    policy.windowMs >= 10_000 ? Math.min(1000, Math.floor(policy.windowMs / 60)) : 0;

  /**
   * Batches being asked for: the bucket's other requests wait for them instead of asking too. Each
   * resolves to whether it brought a batch (a nearly spent budget grants one slot, or none).
   */
  const asking = new Map<string, Promise<boolean>>();

  /**
   * How many slots to ask for: 1 for a bucket not used lately, then twice what the last batch
   * handed out (see retire) while requests keep coming within the hold time.
   */
  function wanted(bucket: string, hold: number, now: number): number {
    const d = demand.get(bucket);
    if (d && now - d.at <= 2 * hold) return Math.min(MAX_BATCH, d.want);
    demand.set(bucket, { want: 2, at: now });
    if (demand.size > 100_000) demand.delete(demand.keys().next().value as string);
    return 1;
  }

  /** A slot from the bucket's current batch, without I/O; undefined when there is none. */
  function fromBatch(bucket: string): { remaining: number } | undefined {
    const batch = batches.get(bucket);
    if (!batch) return undefined;
    if (batch.used < batch.size && monotonic() < batch.until) {
      batch.used++;
      if (batch.used === batch.size) retire(bucket, batch);
      return { remaining: batch.remainingAfter + (batch.size - batch.used) };
    }
    retire(bucket, batch);
    return undefined;
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
    /** Serves the request from the bucket's current batch without I/O, if it has one. */
    tryAcquire(bucket: string): { remaining: number } | undefined {
      return fromBatch(bucket);
    },

    async acquire(bucket: string, policy: LimitPolicy, signal?: AbortSignal): Promise<{ remaining: number }> {
      let served = fromBatch(bucket);
      if (served) return served;
      // A burst waits for the batch being asked for; when it ran out before this request's turn, for the
      // next one asked for (twice as large), so that a burst costs one step per batch, not one per request.
      // An ask that brought no batch (the budget nearly spent, or a line) sends each request its own way.
      for (let pending = asking.get(bucket); pending; pending = asking.get(bucket)) {
        const batched = await pending;
        served = fromBatch(bucket);
        if (served) return served;
        if (!batched) break;
      }
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
      const ticket = `${instance}.${counter.toString(36)}`;
      let arriving = true;
      let holder: LimiterStore | null = null;
      const hold = holdMs(policy);
      for (;;) {
        const asked = monotonic();
        const want = arriving && hold > 0 ? wanted(bucket, hold, asked) : 1;
        const stepping = step(bucket, policy, ticket, arriving, want > 1 ? { want, holdMs: hold } : undefined);
        if (want > 1) {
          const done: Promise<boolean> = stepping
            .catch(() => undefined)
            .then((r) => {
              if (asking.get(bucket) === done) asking.delete(bucket);
              return r?.decision.kind === 'granted' && (r.decision.slots ?? 1) > 1;
            });
          asking.set(bucket, done);
        }
        const { store, decision } = await stepping;
        // The place was held in the other store (Redis went away or came back): give that one back.
        if (holder && holder !== store) void holder.leave(bucket, ticket).catch(() => undefined);
        holder = store;
        if (decision.kind === 'granted') {
          const slots = decision.slots ?? 1;
          if (slots > 1) {
            // Another request of this instance may have taken a batch meanwhile: both are kept track
            // of by their own timers, the newer one serves.
            const previous = batches.get(bucket);
            if (previous) retire(bucket, previous);
            const batch: Batch = {
              ticket,
              store,
              size: slots,
              used: 1,
              until: asked + hold,
              remainingAfter: decision.remaining,
              timer: undefined as never,
            };
            batch.timer = setTimeout(() => retire(bucket, batch), Math.max(1, asked + hold - monotonic())).unref();
            batches.set(bucket, batch);
            return { remaining: decision.remaining + slots - 1 };
          }
          return { remaining: decision.remaining };
        }
        if (decision.kind === 'rejected') {
          const seconds = retryAfterSeconds(decision.retryAfterMs, policy.windowMs);
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
          throw new RateLimitedError(
            'The client went away while waiting for budget.',
            retryAfterSeconds(decision.waitMs, policy.windowMs),
          );
        }
      }
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
