// Dependencies down, as an operator sees it: PostgreSQL or Redis lost and regained under a running
// API and worker (through TCP forwarders the test takes down), an unmigrated database, and SIGTERM
// while a dependency is away.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearRedisPrefix, testConfig } from '../helpers/app.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, runNode, startNode, waitFor } from '../helpers/process.js';
import { hostPort, startTcpProxy, viaProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let env: Record<string, string>;
let database: TestDatabase;
let pgProxy: TcpProxy;
let redisProxy: TcpProxy;
let apiKey: string;
let spaceId: number;

beforeAll(async () => {
  const t = await testConfig();
  env = t.env;
  database = t.database;
  pgProxy = await startTcpProxy(hostPort(env.DATABASE_URL));
  redisProxy = await startTcpProxy(hostPort(env.REDIS_URL));
  const boot = await runNode(['src/cli.ts', 'bootstrap', '--org', 'Ops', '--email', 'ops@example.com'], {
    ...env,
    BOOTSTRAP_PASSWORD: 'correct horse battery',
  });
  expect(boot.code, boot.stderr).toBe(0);
  ({ apiKey, spaceId } = JSON.parse(boot.stdout));
});
afterAll(async () => {
  await pgProxy?.close();
  await redisProxy?.close();
  await clearRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
  await database?.drop();
  if (env?.STORAGE_DIR) fs.rmSync(env.STORAGE_DIR, { recursive: true, force: true });
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const body: any = await res.json();
  expect(body).toMatchObject({ status: 503, title: 'Service Unavailable', errorCode: 'SERVICE_UNAVAILABLE' });
  expect(typeof body.requestId).toBe('string');
}

describe('the API with a dependency down', () => {
  // Several processes start in this test; on a loaded machine that alone can take half a minute.
  it(
    'answers 503 ProblemDetails with Retry-After, logs the loss and the return once each, and exits promptly on SIGTERM',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      const proxied = {
        ...env,
        DATABASE_URL: viaProxy(env.DATABASE_URL, pgProxy),
        REDIS_URL: viaProxy(env.REDIS_URL, redisProxy),
      };
      const srv = startNode(['src/server.ts'], { ...proxied, PORT: String(port), LOG_LEVEL: 'info' });
      const base = `http://127.0.0.1:${port}`;
      const get = (path: string) => fetch(base + path, { headers: { authorization: `ApiKey ${apiKey}` } });
      try {
        await waitFor(async () => (await fetch(`${base}/health/ready`)).ok, 30_000);
        expect((await get('/api/v1/users')).status).toBe(200);

        await pgProxy.down();
        for (let i = 0; i < 3; i++) await expectUnavailable(await get('/api/v1/users'));
        // The per-request reads that bypass Prisma (Db.$rows) answer the same.
        await expectUnavailable(await get('/api/v1/agent/1'));
        await expectUnavailable(await get('/api/v1/agent/1/run/1/status'));
        await expectUnavailable(await get('/api/v1/agent/all?pageIndex=1&recordsPerPage=10'));
        const ready = await fetch(`${base}/health/ready`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as any).checks).toMatchObject({ postgres: 'down', redis: 'ok' });
        // Log lines are written in batches (at most 200 ms late), so the line is waited for.
        await waitFor(async () => count(srv.output(), 'PostgreSQL is unreachable') >= 1, 10_000);
        expect(count(srv.output(), 'PostgreSQL is unreachable')).toBe(1);

        await pgProxy.up();
        await waitFor(async () => srv.output().includes('PostgreSQL is reachable again'), 20_000);
        expect((await get('/api/v1/users')).status).toBe(200);

        // An Agent to start while Redis is away (starting a Run needs the run queue).
        const created = await fetch(`${base}/api/v1/agent`, {
          method: 'POST',
          headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'Outage',
            spaceId,
            definition: {
              startUrl: 'http://127.0.0.1:9/',
              list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] },
            },
          }),
        });
        expect(created.status).toBe(201);
        const agentId = ((await created.json()) as { id: number }).id;
        const start = () =>
          fetch(`${base}/api/v1/agent/${agentId}/start`, {
            method: 'POST',
            headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
            body: '{}',
          });

        await redisProxy.down();
        // What needs Redis answers 503; API keys are then checked against the database, so reads go on.
        for (let i = 0; i < 3; i++) await expectUnavailable(await start());
        expect((await get('/api/v1/users')).status).toBe(200);
        await waitFor(async () => count(srv.output(), 'Redis is unreachable') === 1, 10_000);
        expect(srv.output()).not.toMatch(/"level":50.*request failed/);

        srv.child.kill('SIGTERM');
        expect(await srv.exited).toBe(0);
      } finally {
        srv.child.kill('SIGKILL');
        await redisProxy.up().catch(() => {});
        await pgProxy.up().catch(() => {});
      }
    },
  );
});

describe('an unmigrated database', () => {
  let empty: TestDatabase;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
  });
  afterAll(async () => empty?.drop());

  it('/health/ready reports pending migrations until migrate has run', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const srv = startNode(['src/server.ts'], {
      ...env,
      DATABASE_URL: empty.url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
    });
    try {
      const ready = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
        return res.status === 503 ? res.json() : null;
      }, 30_000);
      expect(ready).toEqual({
        status: 'unavailable',
        checks: { postgres: 'ok', redis: 'ok', migrations: 'pending', storage: 'ok' },
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/users`, {
        headers: { authorization: `ApiKey ${apiKey}` },
      });
      await expectUnavailable(res);

      const migrated = await runNode(['src/cli.ts', 'migrate'], { ...env, DATABASE_URL: empty.url });
      expect(migrated.code, migrated.stderr).toBe(0);
      const after = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(after.status).toBe(200);
      expect(await after.json()).toEqual({
        status: 'ok',
        checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', storage: 'ok' },
      });
    } finally {
      srv.child.kill('SIGTERM');
      await srv.exited;
    }
  });

  it('the CLI says to run migrate when the tables are missing', async () => {
    const other = await createEmptyDatabase();
    try {
      const res = await runNode(['src/cli.ts', 'create-api-key', '--email', 'ops@example.com'], {
        ...env,
        DATABASE_URL: other.url,
      });
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('run migrate first');
    } finally {
      await other.drop();
    }
  });
});

describe('the worker with a dependency down', () => {
  it(
    'logs losing and regaining Redis and PostgreSQL once each, keeps its heartbeat, and exits promptly on SIGTERM',
    { timeout: 90_000 },
    async () => {
      const proxied = {
        ...env,
        DATABASE_URL: viaProxy(env.DATABASE_URL, pgProxy),
        REDIS_URL: viaProxy(env.REDIS_URL, redisProxy),
      };
      const w = startNode(['src/worker.ts'], { ...proxied, LOG_LEVEL: 'info' });
      try {
        await waitFor(async () => w.output().includes('worker started'), 30_000);
        const healthy = await runNode(['src/worker-health.ts'], env);
        expect(healthy.code, healthy.stderr).toBe(0);

        await redisProxy.down();
        await waitFor(async () => w.output().includes('Redis is unreachable'), 20_000);
        await redisProxy.up();
        await waitFor(async () => w.output().includes('Redis is reachable again'), 20_000);
        expect(count(w.output(), 'Redis is unreachable')).toBe(1);

        await pgProxy.down();
        await waitFor(async () => w.output().includes('PostgreSQL is unreachable'), 20_000);
        await pgProxy.up();
        await waitFor(async () => w.output().includes('PostgreSQL is reachable again'), 20_000);
        expect(count(w.output(), 'PostgreSQL is unreachable')).toBe(1);

        await redisProxy.down();
        await waitFor(async () => count(w.output(), 'Redis is unreachable') === 2, 20_000);
        w.child.kill('SIGTERM');
        expect(await w.exited, w.output()).toBe(0);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${w.output()}`);
      } finally {
        w.child.kill('SIGKILL');
        await redisProxy.up().catch(() => {});
        await pgProxy.up().catch(() => {});
      }
    },
  );

  it('a worker still waiting for Redis at start-up exits at once on SIGTERM', async () => {
    await redisProxy.down();
    const w = startNode(['src/worker.ts'], {
      ...env,
      REDIS_URL: viaProxy(env.REDIS_URL, redisProxy),
      LOG_LEVEL: 'info',
    });
    try {
      await waitFor(async () => w.output().includes('Redis is unreachable'), 20_000);
      w.child.kill('SIGTERM');
      expect(await w.exited, w.output()).toBe(0);
      expect(w.output()).toContain('had not started');
    } finally {
      w.child.kill('SIGKILL');
      await redisProxy.up();
    }
  });

  it('the health command fails when no worker has written a heartbeat', async () => {
    const res = await runNode(['src/worker-health.ts'], { ...env, REDIS_PREFIX: `${env.REDIS_PREFIX}-nobody` });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no recent worker heartbeat');
  });
});
