// Rate limits through the HTTP API of two app instances sharing one database and one Redis prefix:
// budgets, the shared FIFO line, 429 with Retry-After, the per-key/per-IP split, /oauth/token
// password-guessing limits, the in-memory fallback while Redis is away, and load shedding.
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { bucketKeys } from '../../src/services/rate-limit/redis-store.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { waitFor } from '../helpers/process.js';

interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: any;
  json(): any;
}

async function call(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  return { statusCode: res.status, headers: Object.fromEntries(res.headers), body, json: () => body };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address() as net.AddressInfo;
  return `http://127.0.0.1:${addr.port}`;
}

async function createKey(base: string, adminKey: string, userId: number): Promise<{ id: number; key: string }> {
  const res = await call(base, `/api/v1/users/${userId}/api-keys`, {
    method: 'POST',
    headers: { ...auth(adminKey), 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'rate limit test' }),
  });
  expect(res.statusCode).toBe(201);
  return { id: res.body.id, key: res.body.key };
}

describe('per-key budgets and the shared line, on two instances', () => {
  // 5 per 30 s with 10 waiting. The window is long so that a loaded machine cannot let budget free
  // on its own mid-test; the test frees it by removing the grants from Redis, as time would.
  const WINDOW_S = 30;
  let ctx: TestContext;
  let second: FastifyInstance;
  let a: string;
  let b: string;
  let redis: Redis;
  let userId: number;
  let adminKey: string;

  beforeAll(async () => {
    ctx = await createTestContext({
      env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S), RATE_LIMIT_QUEUE: '10' },
    });
    second = await buildApp(ctx.config, { logger: false });
    a = await listen(ctx.app);
    b = await listen(second);
    redis = new Redis(ctx.config.redisUrl);
    const boot = await ctx.bootstrap();
    userId = boot.userId;
    adminKey = boot.apiKey;
  });
  afterAll(async () => {
    redis?.disconnect();
    await second?.close();
    await ctx?.close();
  });

  it('serves a fresh key its budget at once, lines up the next 10 in order across both instances, refuses the 16th, frees the place of a waiter that went away, and leaves another key of the user alone', async () => {
    const [k1, k2] = [await createKey(a, adminKey, userId), await createKey(b, adminKey, userId)];
    const { line, grants } = bucketKeys(ctx.config.redisPrefix, `key:${k1.id}`);
    const get = (base: string, key: string, signal?: AbortSignal) =>
      call(base, `/api/v1/users/${userId}`, { headers: auth(key), signal });

    // The budget: 5 at once, 3 on one instance and 2 on the other, all drawing on one shared budget.
    const budget = await Promise.all([a, b, a, b, a].map((base) => get(base, k1.key)));
    expect(budget.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(budget.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort()).toEqual([0, 1, 2, 3, 4]);
    for (const r of budget) {
      expect(r.headers['x-ratelimit-limit']).toBe('5');
      expect(r.headers['x-ratelimit-window-seconds']).toBe(String(WINDOW_S));
      expect(r.headers['retry-after']).toBeUndefined();
    }

    // The next 10 wait; each joins the line after the one before, alternating instances.
    const finished: number[] = [];
    const aborts = new Map<number, AbortController>();
    const waiters: Array<Promise<Answer | 'aborted'>> = [];
    const enqueue = async (i: number) => {
      const ac = new AbortController();
      aborts.set(i, ac);
      waiters[i] = get(i % 2 ? b : a, k1.key, ac.signal).then(
        (r) => {
          finished.push(i);
          return r;
        },
        () => 'aborted' as const,
      );
      await waitFor(async () => (await redis.zcard(line)) === Math.min(i + 1, 10), 10_000, 5);
    };
    for (let i = 0; i < 10; i++) await enqueue(i);

    // The line is full: the 16th is refused with a Retry-After in whole seconds.
    const refused = await get(b, k1.key);
    const problem = expectProblem(refused, 429, 'RATE_LIMITED');
    expect(problem.instance).toBe(`/api/v1/users/${userId}`);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    // Never more than the window: by then the first 5 in line have been served, so the line has
    // room for it again (its own turn comes after both rounds of the line).
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(WINDOW_S - 5);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_S);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');

    // Another key of the same user has its own budget.
    const other = await get(a, k2.key);
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('4');

    // The last waiter goes away: its place is given back and a newcomer takes it instead of a 429.
    aborts.get(9)!.abort();
    expect(await waiters[9]).toBe('aborted');
    await waitFor(async () => (await redis.zcard(line)) === 9, 10_000, 5);
    await enqueue(10);

    // The window passes for the 5 grants: the first 5 in line are served, and only they.
    expect(finished).toEqual([]);
    await redis.del(grants);
    await waitFor(async () => finished.length === 5, 10_000, 10);
    expect([...finished].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await redis.zcard(line)).toBe(5);
    // And again: the rest of the line, the newcomer last.
    await redis.del(grants);
    const served = (await Promise.all(waiters.filter((_, i) => i !== 9))) as Answer[];
    expect(served.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(finished.slice(5).sort((x, y) => x - y)).toEqual([5, 6, 7, 8, 10]);
    expect(await redis.zcard(line)).toBe(0);
  }, 30_000);

  it('limits requests without credentials per client IP, and never /health, /swagger or /.well-known', async () => {
    // Fresh IP budget of this instance pair: unknown routes draw on it (404s), health checks do not.
    for (let i = 0; i < 8; i++) {
      const live = await call(a, '/health/live');
      expect(live.statusCode).toBe(200);
      expect(live.headers['x-ratelimit-limit']).toBe('5');
      expect(live.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    for (const path of ['/swagger/v1/swagger.json', '/.well-known/jwks.json'])
      expect((await call(b, path)).statusCode).toBe(200);

    const ip = bucketKeys(ctx.config.redisPrefix, 'ip:127.0.0.1').grants;
    const used = await redis.zcard(ip);
    const first = await call(a, '/api/v1/users');
    expectProblem(first, 401, 'UNAUTHENTICATED');
    expect(first.headers['x-ratelimit-remaining']).toBe(String(5 - used - 1));
    expect(await redis.zcard(ip)).toBe(used + 1);
    // Credentials that fail are answered 401 without taking budget (no budget is charged before a key is verified).
    const wrong = await call(b, '/api/v1/users', { headers: auth('cx_not-a-real-key-0000000000') });
    expectProblem(wrong, 401, 'UNAUTHENTICATED');
    expect(wrong.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(await redis.zcard(ip)).toBe(used + 1);
  });
});

describe('Retry-After', () => {
  let ctx: TestContext;
  let base: string;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '2', RATE_LIMIT_QUEUE: '0' },
    });
    base = await listen(ctx.app);
  });
  afterAll(async () => ctx?.close());

  it('is accurate: a client that waits that long is served', async () => {
    const { apiKey } = await ctx.bootstrap();
    const get = () => call(base, '/api/v1/users', { headers: auth(apiKey) });
    expect((await get()).statusCode).toBe(200);
    expect((await get()).statusCode).toBe(200);
    const refused = await get();
    expectProblem(refused, 429, 'RATE_LIMITED');
    const seconds = Number(refused.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(2);
    // Waiting is what is under test here; with no line (RATE_LIMIT_QUEUE=0) an early request is a 429.
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const again = await get();
    expect(again.statusCode).toBe(200);
  });
});

describe('the line on the real clock', () => {
  let ctx: TestContext;
  let base: string;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SECONDS: '1', RATE_LIMIT_QUEUE: '2' },
    });
    base = await listen(ctx.app);
  });
  afterAll(async () => ctx?.close());

  it('serves waiters one window apart, in the order they came', async () => {
    const { apiKey } = await ctx.bootstrap();
    const redis = new Redis(ctx.config.redisUrl);
    try {
      const principal = await call(base, '/api/v1/users', { headers: auth(apiKey) });
      expect(principal.statusCode).toBe(200);
      const keyId = (await ctx.db.apiKey.findFirstOrThrow({ select: { id: true } })).id;
      const { line } = bucketKeys(ctx.config.redisPrefix, `key:${keyId}`);
      const finished: number[] = [];
      const waiters: Array<Promise<Answer>> = [];
      for (let i = 0; i < 2; i++) {
        waiters.push(call(base, '/api/v1/users', { headers: auth(apiKey) }).then((r) => (finished.push(i), r)));
        // In line (or, on a slow machine, already served).
        await waitFor(async () => (await redis.zcard(line)) + finished.length === i + 1, 10_000, 5);
      }
      // Each waiter needs the slot the one before it took to free again: a window apart, in order.
      expect((await Promise.all(waiters)).map((r) => r.statusCode)).toEqual([200, 200]);
      expect(finished).toEqual([0, 1]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('/oauth/token', () => {
  let ctx: TestContext;
  let email: string;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: {
        RATE_LIMIT_MAX: '100',
        LOGIN_RATE_LIMIT_MAX: '3',
        LOGIN_RATE_LIMIT_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'true',
      },
    });
    email = (await ctx.bootstrap()).email;
  });
  afterAll(async () => ctx?.close());

  const attempt = (ip: string, username: string, password = 'wrong password') =>
    ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'x-forwarded-for': ip },
      payload: { grant_type: 'password', username, password },
    });

  it('limits password attempts per username, whatever the client IP', async () => {
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      const res = await attempt(ip, email);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_grant' });
    }
    // Differently written, the same username.
    const refused = await attempt('10.0.0.4', `  ${email.toUpperCase()} `, 'correct horse battery');
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('limits attempts per client IP, whatever the username', async () => {
    for (const name of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect((await attempt('10.0.1.1', name)).json()).toMatchObject({ error: 'invalid_grant' });
    }
    expectProblem(await attempt('10.0.1.1', 'd@example.com'), 429, 'RATE_LIMITED');
    // Another client is not affected.
    expect((await attempt('10.0.1.2', 'd@example.com')).json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('Redis unreachable', () => {
  // The app reaches Redis through a proxy this test can cut and restore.
  let ctx: TestContext;
  let proxy: net.Server | null = null;
  let port = 0;
  const sockets = new Set<net.Socket>();

  function openProxy(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(6379, '127.0.0.1');
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    proxy = server;
    return new Promise((resolve) =>
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as net.AddressInfo).port;
        resolve();
      }),
    );
  }
  function cutProxy(): Promise<void> {
    const server = proxy!;
    proxy = null;
    for (const s of sockets) s.destroy();
    sockets.clear();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  beforeAll(async () => {
    await openProxy();
    const upstream = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    expect(upstream.port || '6379').toBe('6379');
    ctx = await createTestContext({
      env: {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        RATE_LIMIT_MAX: '3',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        RATE_LIMIT_QUEUE: '0',
      },
    });
  });
  afterAll(async () => {
    if (!proxy) await openProxy();
    await ctx?.close();
    await cutProxy();
  });

  const miss = () => ctx.app.inject({ method: 'GET', url: '/no/such/route' });
  let apiKey: string;

  it('falls back to per-instance in-memory budgets, and shares budgets again once Redis is back', async () => {
    apiKey = (await ctx.bootstrap()).apiKey;
    const before = await miss();
    expectProblem(before, 404, 'NOT_FOUND');
    expect(before.headers['x-ratelimit-remaining']).toBe('2');

    await cutProxy();
    // Served from this instance's memory: its own budget of 3, then 429; nothing fails with 500.
    for (const left of ['2', '1', '0']) {
      const res = await miss();
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.headers['x-ratelimit-remaining']).toBe(left);
    }
    expectProblem(await miss(), 429, 'RATE_LIMITED');
    expect((await ctx.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect(ctx.app.rateLimit.limiter.degraded).toBe(true);
    // API keys still authenticate (against the database), on their own in-memory budget.
    const users = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(apiKey) });
    expect(users.statusCode).toBe(200);
    expect(users.headers['x-ratelimit-remaining']).toBe('2');

    await openProxy();
    // Back on the shared budget, where one of 3 was used before the cut.
    const back = await waitFor(
      async () => {
        const res = await miss();
        return res.statusCode === 404 ? res : null;
      },
      20_000,
      100,
    );
    expect(back.headers['x-ratelimit-remaining']).toBe('1');
    expect(ctx.app.rateLimit.limiter.degraded).toBe(false);
  }, 30_000);
});

describe('load shedding', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    // A heap threshold every process is over: the API is "under pressure" from the first sample on.
    ctx = await createTestContext({ env: { LOAD_SHED_MAX_HEAP_USED_BYTES: '1', LOAD_SHED_RETRY_AFTER_SECONDS: '7' } });
  });
  afterAll(async () => ctx?.close());

  it('answers 503 ProblemDetails with Retry-After while /health/live keeps answering', async () => {
    const { apiKey } = await ctx.bootstrap();
    const shed = await waitFor(
      async () => {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(apiKey) });
        return res.statusCode === 503 ? res : null;
      },
      10_000,
      50,
    );
    expectProblem(shed, 503, 'SERVICE_UNAVAILABLE');
    expect(shed.headers['retry-after']).toBe('7');
    expect(shed.headers['x-request-id']).toBeTruthy();
    expect(shed.headers['x-ratelimit-limit']).toBe('1000000');
    const live = await ctx.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
  });
});

describe('RATE_LIMIT_ENABLED=false', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_MAX: '1', RATE_LIMIT_QUEUE: '0' } });
  });
  afterAll(async () => ctx?.close());

  it('turns the general limiter off (a gateway in front limits); the headers still say the configured limit', async () => {
    const { apiKey } = await ctx.bootstrap();
    for (let i = 0; i < 3; i++) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(apiKey) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('1');
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });
});
