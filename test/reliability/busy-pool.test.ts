// A busy connection pool is load, not an outage: a request that waits in line for a pooled
// PostgreSQL connection longer than DATABASE_POOL_WAIT_MS answers 503 "busy" with Retry-After, and
// "cannot be reached" stays for a database that is really down.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { freePort, waitFor } from '../helpers/process.js';

let ctx: TestContext;
let key: string;
beforeAll(async () => {
  // One pooled connection, a short wait in line, and API keys checked against the database each time.
  ctx = await createTestContext({
    env: { DATABASE_POOL_SIZE: '1', DATABASE_POOL_WAIT_MS: '300', API_KEY_CACHE_SECONDS: '0' },
  });
  key = (await ctx.bootstrap()).apiKey;
});
afterAll(async () => ctx?.close());

/** Holds the API's only pooled connection: a request whose statement waits on a lock this test holds. */
async function holdThePool() {
  const locker = new pg.Client({ connectionString: ctx.config.databaseUrl });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE "User" IN ACCESS EXCLUSIVE MODE');
  // inject() starts its request when it is awaited (then'd): started here, awaited by the caller.
  const holder = Promise.resolve(ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) }));
  await waitFor(
    async () => {
      // A transaction sees one snapshot of the activity view unless told to take a new one.
      await locker.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await locker.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0;
    },
    10_000,
    20,
  );
  return {
    holder,
    async release() {
      await locker.query('ROLLBACK');
      await locker.end();
    },
  };
}

describe('a busy pool', () => {
  it('answers 503 "busy" with Retry-After to a request that waited too long for a connection, and serves again once one is free', async () => {
    const held = await holdThePool();
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/spaces', headers: auth(key) });
      const body = expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(body.detail).toBe('The service is busy; retry after the delay in Retry-After.');
      expect(body.detail).not.toContain('cannot be reached');
    } finally {
      await held.release();
    }
    expect((await held.holder).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/spaces', headers: auth(key) })).statusCode).toBe(200);
  });
});

describe('a database that is down', () => {
  // Building an app costs seconds on a loaded machine.
  it('still answers 503 "cannot be reached"', { timeout: 60_000 }, async () => {
    const url = new URL(ctx.config.databaseUrl);
    url.port = String(await freePort());
    const app = await buildApp({ ...ctx.config, databaseUrl: url.toString() }, { logger: false });
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/spaces', headers: auth(key) });
      const body = expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
      expect(body.detail).toContain('its database cannot be reached');
    } finally {
      await app.close();
    }
  });
});
