// Drills with a private Redis stopped and restarted without its data: a Run start fails fast with 503
// and leaves no Run behind; API-key revocation survives Redis losing its data.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { privateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/process.js';
import { createAgent } from '../helpers/runs.js';

let redis: PrivateRedis;
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const definition = { startUrl: 'http://127.0.0.1:9/none', list: { selector: 'div', fields: [{ name: 'x' }] } };

beforeAll(async () => {
  redis = await privateRedis();
  ctx = await createTestContext({ env: { REDIS_URL: redis.url } });
  org = await ctx.bootstrap();
});
afterAll(async () => {
  await redis?.start().catch(() => {});
  await ctx?.close();
  await redis?.stop();
});

const inject = (app: FastifyInstance, key: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  app.inject({
    method,
    url,
    headers: { ...auth(key), ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  });

describe('a Run start while Redis is down', () => {
  it('answers 503 ProblemDetails with Retry-After, creates no Run, and starts normally once Redis is back without its data', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition, 'Outage');
    // The queue connection exists before the outage (an earlier start), as in a running API.
    const first = await inject(ctx.app, org.apiKey, 'POST', `/api/v1/agent/${agent.id}/start`, { isExclusive: false });
    expect(first.statusCode, first.body).toBe(202);

    await redis.stop();
    for (const body of [{ isExclusive: false }, { isExclusive: false, isRunSynchronously: true, timeout: 30 }]) {
      const res = await inject(ctx.app, org.apiKey, 'POST', `/api/v1/agent/${agent.id}/start`, body);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable' });
      expect(res.json().detail).toMatch(/run queue is unavailable; the Run was not created/);
    }
    // Only the Run started before the outage exists: the failed starts left nothing to resurrect.
    const runs = (await inject(ctx.app, org.apiKey, 'GET', `/api/v1/agent/${agent.id}/runs`)).json();
    expect(runs.map((r: { id: number }) => r.id)).toEqual([first.json().id]);
    // The exclusive lock was not taken by a phantom Run either.
    await ctx.db.run.update({ where: { id: first.json().id }, data: { status: 8, endTime: new Date() } });

    await redis.start();
    // A client honouring Retry-After gets its Run once the API has reconnected.
    const again = await waitFor(
      async () => {
        const res = await inject(ctx.app, org.apiKey, 'POST', `/api/v1/agent/${agent.id}/start`, {});
        if (res.statusCode === 503) return null;
        return res;
      },
      15_000,
      200,
    );
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json().status).toBe(4);
    const after = (await inject(ctx.app, org.apiKey, 'GET', `/api/v1/agent/${agent.id}/runs`)).json();
    expect(after.map((r: { id: number }) => r.id)).toEqual([again.json().id, first.json().id]);
  });
});

describe('API-key revocation when Redis loses its data', () => {
  it('a key revoked on one instance is refused by another instance that had it cached, after a Redis restart without data', async () => {
    const other = await buildApp(ctx.config, { logger: false });
    await other.ready();
    try {
      const created = await inject(ctx.app, org.apiKey, 'POST', `/api/v1/users/${org.userId}/api-keys`, {
        description: 'to revoke',
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id: keyId, key } = created.json();
      // The other instance authenticates the key and caches it.
      expect((await inject(other, key, 'GET', '/api/v1/users')).statusCode).toBe(200);

      const revoked = await inject(ctx.app, org.apiKey, 'DELETE', `/api/v1/users/${org.userId}/api-keys/${keyId}`);
      expect(revoked.statusCode).toBe(204);
      await redis.stop();
      // While Redis is down, keys are checked against the database: valid ones work, revoked ones do not.
      expect((await inject(other, org.apiKey, 'GET', '/api/v1/users')).statusCode).toBe(200);
      expect((await inject(other, key, 'GET', '/api/v1/users')).statusCode).toBe(401);
      await redis.start();
      // Redis came back empty: the missing epoch counts as a change, the cached entry is not trusted.
      expect((await inject(other, key, 'GET', '/api/v1/users')).statusCode).toBe(401);
      expect((await inject(other, org.apiKey, 'GET', '/api/v1/users')).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
