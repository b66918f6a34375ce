// The rate limiter's rules with an injected clock, the Redis script held to the same scenario, and
// the limiter's fallback to memory (logged once per change of state).
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/lib/errors.js';
import { createRateLimiter } from '../../src/services/rate-limit/limiter.service.js';
import { createRedisStore } from '../../src/services/rate-limit/redis-store.js';
import {
  bucketFor,
  createMemoryStore,
  isExempt,
  retryAfterSeconds,
  servedAt,
  type LimiterStore,
} from '../../src/services/rate-limit/rules.js';
import { clearRedisPrefix } from '../helpers/app.js';

function fakeClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

const policy = { max: 3, windowMs: 10_000, queue: 2 };

/** A limiter whose shared store (Redis) is an in-memory one that fails, as if Redis went away, while `fails()` says so. */
function limiterOverFlakyRedis(
  clock: ReturnType<typeof fakeClock>,
  fails: () => boolean,
  opts: Partial<Parameters<typeof createRateLimiter>[0]> = {},
) {
  const memory = createMemoryStore(clock);
  const shared: LimiterStore = {
    take: (...args) => (fails() ? Promise.reject(new Error('connection lost')) : memory.take(...args)),
    leave: (...args) => memory.leave(...args),
  };
  const quiet = { warn: () => {}, info: () => {} };
  return createRateLimiter({
    shared,
    sharedReady: () => true,
    local: createMemoryStore(clock),
    clock,
    log: quiet,
    ...opts,
  });
}

describe('rate-limit rules', () => {
  it('names the budget: API key, else user for Bearer, else client IP', () => {
    expect(bucketFor({ via: 'apikey', apiKeyId: 7, userId: 1 }, '10.0.0.1')).toBe('key:7');
    expect(bucketFor({ via: 'bearer', userId: 1 }, '10.0.0.1')).toBe('user:1');
    expect(bucketFor(null, '10.0.0.1')).toBe('ip:10.0.0.1');
  });

  it('exempts /health/*, /swagger* and /.well-known/*, ignoring case', () => {
    for (const p of ['/health/live', '/HEALTH/ready', '/swagger', '/swagger/v1/swagger.json', '/.well-known/jwks.json'])
      expect(isExempt(p), p).toBe(true);
    for (const p of ['/api/v1/users', '/oauth/token', '/healthz', '/']) expect(isExempt(p), p).toBe(false);
  });

  it('rounds Retry-After up to whole seconds, at least 1, never more than the window', () => {
    expect(retryAfterSeconds(0, 60_000)).toBe(1);
    expect(retryAfterSeconds(1, 60_000)).toBe(1);
    expect(retryAfterSeconds(1000, 60_000)).toBe(1);
    expect(retryAfterSeconds(1001, 60_000)).toBe(2);
    expect(retryAfterSeconds(59_999, 60_000)).toBe(60);
    expect(retryAfterSeconds(60_001, 60_000)).toBe(60);
    expect(retryAfterSeconds(3 * 30_000, 30_000)).toBe(30);
  });

  it('serves a place in line when the slot for it frees, a window later for places beyond the budget', () => {
    const p = { max: 3, windowMs: 1000 };
    // Two slots in use (granted at 100 and 400), one free at now=500.
    expect(servedAt(0, [100, 400], 500, p)).toBe(500);
    expect(servedAt(1, [100, 400], 500, p)).toBe(1100);
    expect(servedAt(2, [100, 400], 500, p)).toBe(1400);
    expect(servedAt(3, [100, 400], 500, p)).toBe(1500);
    expect(servedAt(4, [100, 400], 500, p)).toBe(2100);
  });

  it('memory store: budget, FIFO line, refusal with an accurate retry time, place given back', async () => {
    const clock = fakeClock();
    const store = createMemoryStore(clock);
    const kinds = [];
    for (let i = 0; i < 3; i++) kinds.push(await store.take('b', policy, `t${i}`, true));
    expect(kinds).toEqual([
      { kind: 'granted', remaining: 2 },
      { kind: 'granted', remaining: 1 },
      { kind: 'granted', remaining: 0 },
    ]);
    clock.advance(1000);
    expect(await store.take('b', policy, 'w0', true)).toEqual({ kind: 'queued', position: 0, waitMs: 9000 });
    expect(await store.take('b', policy, 'w1', true)).toEqual({ kind: 'queued', position: 1, waitMs: 9000 });
    // Line full: its turn comes once both waiters are served and a third slot frees.
    expect(await store.take('b', policy, 'x', true)).toEqual({ kind: 'rejected', retryAfterMs: 9000 });
    // Another bucket is unaffected.
    expect(await store.take('other', policy, 'o', true)).toEqual({ kind: 'granted', remaining: 2 });

    // w0 goes away: w1 moves up, and a newcomer takes the free place.
    await store.leave('b', 'w0');
    expect(await store.take('b', policy, 'w1', false)).toEqual({ kind: 'queued', position: 0, waitMs: 9000 });
    expect(await store.take('b', policy, 'w2', true)).toEqual({ kind: 'queued', position: 1, waitMs: 9000 });

    // The window passes: waiters are served in order, and a newcomer does not jump the line.
    clock.advance(9000);
    expect(await store.take('b', policy, 'w2', false)).toEqual({ kind: 'granted', remaining: 1 });
    expect(await store.take('b', policy, 'late', true)).toEqual({ kind: 'granted', remaining: 0 });
    expect(await store.take('b', policy, 'w1', false)).toEqual({ kind: 'granted', remaining: 0 });
    expect(await store.take('b', policy, 'later', true)).toEqual({ kind: 'queued', position: 0, waitMs: 10_000 });
  });
});

describe('Redis store', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `cxs-test-${crypto.randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await clearRedisPrefix(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
    redis.disconnect();
  });

  it('answers the same scenario as the memory store (before any slot frees)', async () => {
    const slow = { ...policy, windowMs: 600_000 };
    const run = async (store: LimiterStore) => {
      const out = [];
      for (let i = 0; i < 3; i++) out.push(await store.take('b', slow, `t${i}`, true));
      out.push(
        await store.take('b', slow, 'w0', true),
        await store.take('b', slow, 'w1', true),
        await store.take('b', slow, 'x', true),
      );
      await store.leave('b', 'w0');
      out.push(
        await store.take('b', slow, 'w1', false),
        await store.take('b', slow, 'w2', true),
        await store.take('b', slow, 'y', true),
      );
      // Times differ (Redis keeps its own clock): compare what was decided and where.
      return out.map((d) =>
        d.kind === 'granted' ? d : d.kind === 'queued' ? { kind: d.kind, position: d.position } : { kind: d.kind },
      );
    };
    const expected = await run(createMemoryStore(fakeClock()));
    expect(await run(createRedisStore(redis, { prefix, leaseMs: 5000 }))).toEqual(expected);
    expect(expected.map((d) => d.kind)).toEqual([
      'granted',
      'granted',
      'granted',
      'queued',
      'queued',
      'rejected',
      'queued',
      'queued',
      'rejected',
    ]);
  });

  it('gives the place of a waiter that stops polling back when its lease ends', async () => {
    const store = createRedisStore(redis, { prefix, leaseMs: 50 });
    const p = { max: 1, windowMs: 600_000, queue: 1 };
    expect((await store.take('lease', p, 'a', true)).kind).toBe('granted');
    expect((await store.take('lease', p, 'b', true)).kind).toBe('queued');
    expect((await store.take('lease', p, 'c', true)).kind).toBe('rejected');
    const freed = async () => (await store.take('lease', p, 'c', true)).kind === 'queued';
    const deadline = Date.now() + 5000;
    while (!(await freed()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await redis.zrange(`${prefix}:rl:{lease}:line`, 0, -1)).toEqual(['c']);
  });
});

describe('batches of slots (limiter over the Redis store)', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url);
  const prefix = `cxs-test-${crypto.randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await clearRedisPrefix(url, prefix);
    redis.disconnect();
  });
  const quiet = { warn: () => {}, info: () => {} };
  const grants = (bucket: string) => redis.zcard(`${prefix}:rl:{${bucket}}:grants`);

  /** A limiter over a Redis store that counts its steps (and the most in flight at once), with an injected monotonic clock. */
  function limiterWithSteps() {
    const store = createRedisStore(redis, { prefix, leaseMs: 5000 });
    let steps = 0;
    let inFlight = 0;
    let most = 0;
    const counted: LimiterStore = {
      ...store,
      take: async (...args) => {
        steps += 1;
        most = Math.max(most, ++inFlight);
        try {
          return await store.take(...args);
        } finally {
          inFlight -= 1;
        }
      },
    };
    let t = 0;
    const limiter = createRateLimiter({
      shared: counted,
      sharedReady: () => true,
      local: createMemoryStore(fakeClock()),
      clock: fakeClock(),
      log: quiet,
      monotonicMs: () => t,
    });
    return { limiter, steps: () => steps, mostInFlight: () => most, advance: (ms: number) => (t += ms) };
  }

  it('serves a budget in steady use from batches: few Redis steps, remaining counted down one by one', async () => {
    const { limiter, steps } = limiterWithSteps();
    const p = { max: 100_000, windowMs: 60_000, queue: 10 };
    const remaining = [];
    for (let i = 0; i < 300; i++) remaining.push((await limiter.acquire('steady', p)).remaining);
    expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => 100_000 - 1 - i));
    // 1 + 2 + 4 + ... + 128 = 255, then one batch of 256: 9 steps for 300 requests.
    expect(steps()).toBe(9);
  });

  it('serves a burst (300 requests at once) from batches too: one step per batch', async () => {
    const { limiter, steps } = limiterWithSteps();
    const p = { max: 100_000, windowMs: 60_000, queue: 10 };
    const remaining = await Promise.all(
      Array.from({ length: 300 }, () => limiter.acquire('burst', p).then((r) => r.remaining)),
    );
    expect(new Set(remaining).size).toBe(300);
    expect(Math.min(...remaining)).toBe(100_000 - 300);
    // 1, then 2 + 4 + ... + 256 asked for one after the other while the others wait: 9 steps, where
    // each waiter used to ask for a batch of its own (about 300 steps, and as many batches given back).
    expect(steps()).toBe(9);
    expect(await grants('burst')).toBeLessThanOrEqual(1 + 2 + 4 + 8 + 16 + 32 + 64 + 128 + 256);
  });

  it('serves a burst at the end of a budget: exactly the budget, the rest refused, asking at once', async () => {
    const { limiter, mostInFlight } = limiterWithSteps();
    const p = { max: 20, windowMs: 60_000, queue: 0 };
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, () =>
        limiter.acquire('end', p).then(
          () => 'served',
          (err: unknown) => (err instanceof RateLimitedError ? 'refused' : String(err)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'served').length).toBe(20);
    expect(outcomes.filter((o) => o === 'refused').length).toBe(40);
    // Once a batch ask brings no batch, the waiting requests ask at once instead of one after another.
    expect(mostInFlight()).toBeGreaterThan(10);
  });

  it('never grants more than the budget across instances; unused slots are given back when the hold ends', async () => {
    const a = limiterWithSteps();
    const b = limiterWithSteps();
    const p = { max: 200, windowMs: 60_000, queue: 0 };
    let granted = 0;
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      for (const { limiter } of [a, b]) {
        try {
          await limiter.acquire('shared', p);
          granted++;
        } catch (err) {
          expect(err).toBeInstanceOf(RateLimitedError);
          refused++;
        }
      }
    }
    expect(granted).toBeLessThanOrEqual(200);
    expect(granted + refused).toBe(600);
    // Both instances stop asking; once their holds end, what they did not hand out is given back.
    a.advance(1001);
    b.advance(1001);
    await a.limiter.acquire('shared', p).catch(() => undefined);
    await b.limiter.acquire('shared', p).catch(() => undefined);
    const deadline = Date.now() + 5000;
    while ((await grants('shared')) > granted + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await grants('shared')).toBeLessThanOrEqual(granted + 2);
  });

  it('a refusal behind batches and a full line waits at most one window (default budget: 100 per 60 s, 10 waiting)', async () => {
    // Batches use the whole budget (the injected monotonic clock never ends their hold), then ten
    // requests take the line: the next one is refused, and its slot frees within one window.
    const { limiter } = limiterWithSteps();
    const p = { max: 100, windowMs: 60_000, queue: 10 };
    let served = 0;
    for (;;) {
      const refused = await limiter.acquire('full', { ...p, queue: 0 }).then(
        () => false,
        (err: unknown) => err instanceof RateLimitedError,
      );
      if (refused) break;
      served++;
    }
    expect(served).toBe(100);
    const members = await redis.zrange(`${prefix}:rl:{full}:grants`, 0, -1);
    expect(members.filter((m) => m.includes(':')).length).toBeGreaterThan(50);
    const store = createRedisStore(redis, { prefix, leaseMs: 5000 });
    for (let i = 0; i < 10; i++) expect((await store.take('full', p, `waiter${i}`, true)).kind).toBe('queued');
    const decision = await store.take('full', p, 'late', true);
    expect(decision.kind).toBe('rejected');
    expect(decision.kind === 'rejected' && decision.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(decision.kind === 'rejected' && decision.retryAfterMs).toBeGreaterThan(59_000);
  });

  it('takes no batch for a small budget or a short window, nor while requests wait', async () => {
    const { limiter, steps } = limiterWithSteps();
    for (let i = 0; i < 3; i++) await limiter.acquire('small', { max: 3, windowMs: 60_000, queue: 0 });
    expect(steps()).toBe(3);
    await expect(limiter.acquire('small', { max: 3, windowMs: 60_000, queue: 0 })).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    const short = limiterWithSteps();
    for (let i = 0; i < 20; i++) await short.limiter.acquire('short', { max: 1000, windowMs: 5000, queue: 0 });
    expect(short.steps()).toBe(20);
  });
});

describe('limiter fallback', () => {
  it('uses memory while the shared store fails, and logs each change of state once', async () => {
    const clock = fakeClock();
    const logs: string[] = [];
    let failing = true;
    const limiter = limiterOverFlakyRedis(clock, () => failing, {
      log: { warn: (_o, m) => logs.push(`warn ${m}`), info: (_o, m) => logs.push(`info ${m}`) },
      retrySharedMs: 1000,
    });
    const p = { max: 2, windowMs: 60_000, queue: 0 };
    expect(await limiter.acquire('k', p)).toEqual({ remaining: 1 });
    expect(await limiter.acquire('k', p)).toEqual({ remaining: 0 });
    const refused = await limiter.acquire('k', p).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused.retryAfterSeconds).toBe(60);
    expect(limiter.degraded).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^warn rate limiter: Redis unreachable/);

    failing = false;
    // Not tried again before the retry delay; then back, logged once.
    await limiter.acquire('other', p);
    expect(limiter.degraded).toBe(true);
    clock.advance(1000);
    expect(await limiter.acquire('k', p)).toEqual({ remaining: 1 });
    await limiter.acquire('k2', p);
    expect(limiter.degraded).toBe(false);
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/^info rate limiter: Redis reachable again/);
  });

  it('a burst waiting for a batch when Redis goes away is served from memory, none of it left hanging', async () => {
    const clock = fakeClock();
    let calls = 0;
    // The first ask (one slot) answers; the batch asked for next fails, and every step after it.
    const limiter = limiterOverFlakyRedis(clock, () => ++calls > 1, {
      monotonicMs: () => 0,
    });
    const p = { max: 1000, windowMs: 60_000, queue: 0 };
    const served = await Promise.all(Array.from({ length: 100 }, () => limiter.acquire('k', p)));
    expect(served).toHaveLength(100);
    expect(limiter.degraded).toBe(true);
  });
});
