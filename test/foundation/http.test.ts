// Wire conventions and error shapes: request ids, rate-limit headers, 404/400/413/415/500 answers.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';

let ctx: TestContext;
let key: string;
beforeAll(async () => {
  ctx = await createTestContext({
    env: { BODY_LIMIT_BYTES: '2048', RATE_LIMIT_MAX: '123', RATE_LIMIT_WINDOW_SECONDS: '45' },
  });
  key = (await ctx.bootstrap()).apiKey;
});
afterAll(async () => ctx?.close());

describe('request ids and rate-limit headers', () => {
  it('generates an X-Request-Id and puts the rate-limit headers on every response', async () => {
    for (const [method, url, headers] of [
      ['GET', '/api/v1/users', auth(key)],
      ['GET', '/api/v1/users', {}],
      ['GET', '/no/such/route', {}],
      ['GET', '/health/live', {}],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['x-ratelimit-limit']).toBe('123');
      expect(res.headers['x-ratelimit-window-seconds']).toBe('45');
    }
  });

  it('echoes a caller X-Request-Id that is a plain token, and replaces one that is not', async () => {
    const ok = await ctx.app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'abc-123' } });
    expect(ok.headers['x-request-id']).toBe('abc-123');
    const bad = await ctx.app.inject({
      method: 'GET',
      url: '/health/live',
      headers: { 'x-request-id': 'a b\nforged log line' },
    });
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('error shapes', () => {
  it('answers an unknown route with 404 ProblemDetails', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: auth(key) });
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.json().instance).toBe('/api/v1/nothing-here');
  });

  it('answers malformed JSON with 400 BadRequestError MALFORMED_JSON', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expectBadRequest(res, 'MALFORMED_JSON');
  });

  it('rejects an unknown body property with 400 VALIDATION_FAILED naming it', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: auth(key),
      payload: { email: 'x@example.com', nope: 1 },
    });
    expectBadRequest(res, 'VALIDATION_FAILED');
    expect(res.json().message).toContain("unknown property 'nope'");
  });

  it('matches body property names case-insensitively', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: auth(key),
      payload: { EMAIL: 'Case@Example.com', Name: 'Case Person', ROLE: 'member' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email: 'case@example.com', name: 'Case Person', role: 'member' });
  });

  it('matches string enum values case-insensitively', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: auth(key),
      payload: { email: 'enum@example.com', role: 'ADMIN' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().role).toBe('admin');
  });

  it('answers a body over the limit with 413 ProblemDetails', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'big@example.com', name: 'x'.repeat(5000) }),
    });
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unsupported media type with 415 ProblemDetails', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...auth(key), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts text/json and application/*+json bodies, and an empty body with a JSON content type', async () => {
    const a = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...auth(key), 'content-type': 'text/json' },
      payload: JSON.stringify({ email: 'textjson@example.com' }),
    });
    expect(a.statusCode).toBe(201);
    const b = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...auth(key), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ email: 'plusjson@example.com' }),
    });
    expect(b.statusCode).toBe(201);
    const me = (await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) })).json()[0];
    const c = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${me.id}/api-keys`,
      headers: { ...auth(key), 'content-type': 'application/json' },
    });
    expect(c.statusCode).toBe(201);
  });

  it('answers a non-integer path id with 400 VALIDATION_FAILED', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/abc', headers: auth(key) });
    expectBadRequest(res, 'VALIDATION_FAILED');
  });
});

describe('unexpected errors', () => {
  it('masks a 500: no stack, no internals, the request id to quote', async () => {
    const app = await buildApp(ctx.config, { logger: false });
    app.get('/api/v1/explode', async () => {
      throw new Error('relation "secret_table" does not exist at /srv/app.ts:42');
    });
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/explode', headers: auth(key) });
      expectProblem(res, 500, 'INTERNAL_ERROR');
      expect(res.body).not.toContain('secret_table');
      expect(res.body).not.toContain('app.ts');
      expect(res.json().detail).toContain(res.headers['x-request-id'] as string);
    } finally {
      await app.close();
    }
  });
});

describe('a saturated database', () => {
  it('answers 503 ProblemDetails with Retry-After, so clients retry with backoff', async () => {
    const app = await buildApp(ctx.config, { logger: false });
    app.get('/api/v1/saturated', async () => {
      throw Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), {
        code: 'P2028',
      });
    });
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/saturated', headers: auth(key) });
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).not.toContain('Transaction API');
    } finally {
      await app.close();
    }
  });
});

describe('health', () => {
  it('reports live and ready', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/health/live' })).json()).toEqual({ status: 'ok' });
    const ready = await ctx.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', storage: 'ok' },
    });
  });

  it('reports not ready with 503 when Redis is unreachable', async () => {
    const app = await buildApp({ ...ctx.config, redisUrl: 'redis://127.0.0.1:1' }, { logger: false });
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'unavailable',
        checks: { postgres: 'ok', redis: 'down', migrations: 'ok', storage: 'ok' },
      });
    } finally {
      await app.close();
    }
  });

  it('reports not ready with 503 when run file storage cannot be written', async () => {
    // A folder below a regular file can never be created: every write fails.
    const blocked = path.join(ctx.config.storageDir, 'not-a-folder');
    fs.writeFileSync(blocked, '');
    const dir = path.join(blocked, 'storage');
    const app = await buildApp(
      { ...ctx.config, storageDir: dir, storage: { driver: 'local', dir } },
      { logger: false },
    );
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'unavailable',
        checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', storage: 'down' },
      });
    } finally {
      await app.close();
    }
  });
});
