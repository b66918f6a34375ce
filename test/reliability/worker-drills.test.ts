// Fault drills with real worker processes: a private Redis restarted without its data, PostgreSQL
// cut off from the worker (through a TCP proxy), a planned shutdown, prompt stops and kills, and the
// synchronous start's inline cap.
import { Queue } from 'bullmq';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';
import { privateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { catalogDefinition, createAgent, startWorker, waitForRun } from '../helpers/runs.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { runJobId } from '../../src/queues/queues.js';

type Worker = Awaited<ReturnType<typeof startWorker>>;

// Drills wait on retries and reconnections: slower than the usual Run test on a loaded machine (each
// describe gives its tests 4 minutes).
const DRILL = { timeout: 240_000 };

let redis: PrivateRedis;
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const workers: Worker[] = [];

beforeAll(async () => {
  redis = await privateRedis();
  ctx = await createTestContext({
    env: {
      REDIS_URL: redis.url,
      RUN_RECONCILE_INTERVAL_SECONDS: '1',
      RUN_STOP_GRACE_SECONDS: '1',
      RUN_SYNC_INLINE_MAX_BYTES: '1500',
      SHUTDOWN_GRACE_SECONDS: '4',
      RUN_WORKER_CONCURRENCY: '1',
    },
  });
  site = await startFixtureSite();
  org = await ctx.bootstrap();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await site?.close();
  await redis?.start().catch(() => {});
  await ctx?.close();
  await redis?.stop();
});

async function newWorker(env: Record<string, string> = {}): Promise<Worker> {
  const w = await startWorker({ ...ctx.env, ...env });
  workers.push(w);
  return w;
}

const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...auth(org.apiKey), ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  });
const hang = { startUrl: '', list: { selector: 'div', fields: [{ name: 'x' }] } };
const hangDefinition = () => ({ ...hang, startUrl: `${site.url}/hang` });
const files = async (agentId: number, runId: number) =>
  (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/files`))
    .json()
    .map((f: { name: string }) => f.name)
    .sort();
const readRunFile = (runId: number, name: string) =>
  fs.readFileSync(path.join(ctx.config.storageDir, 'runs', String(runId), name), 'utf8');

describe('stop and kill', DRILL, () => {
  it('a stop on a page that never answers aborts it after the stop grace and exports (8 Stopped with files)', async () => {
    const w = await newWorker();
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), 'Prompt stop');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 60_000);
    await waitFor(async () => site.inFlight === 1, 60_000);
    expect((await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`)).json().status).toBe(5);
    // Without the grace the page would hold the Run until ENGINE_REQUEST_TIMEOUT_MS (30 s) or the run timeout.
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 60_000);
    expect(run).toMatchObject({ status: 8, errorMessage: 'Stopped by user; the data extracted so far was exported.' });
    expect(await files(agent.id, runId)).toEqual(['data.csv', 'run.log']);
    await w.stop();
  });

  it('a killed Run still has its log file, with what it logged and the kill', async () => {
    const w = await newWorker({ RUN_STOP_GRACE_SECONDS: '600' });
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), 'Killed');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 60_000);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 60_000);
    expect(run.status).toBe(8);
    expect(run.errorMessage).toMatch(/^Killed by user/);
    expect(await files(agent.id, runId)).toEqual(['run.log']);
    const log = readRunFile(runId, 'run.log');
    expect(log).toMatch(/\[Info\] Input 1: starting at http:\/\/127\.0\.0\.1:\d+\/hang/);
    expect(log).toMatch(/\[Fatal\] Killed by user: the run process was terminated immediately\.\n$/);
    await w.stop();
  });
});

describe('planned shutdown', DRILL, () => {
  it('SIGTERM hands a Run that cannot finish within the grace back to the queue, and another worker runs it', async () => {
    const first = await newWorker();
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), 'Handed back');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 60_000);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/handing running Runs back to the queue/);
    // Routine, not an error: one info line for the job, no `job failed`.
    const handedBack = first
      .output()
      .split('\n')
      .filter((l) => l.includes('job handed back'));
    expect(handedBack).toHaveLength(1);
    expect(JSON.parse(handedBack[0])).toMatchObject({ level: 30, queue: 'runs', msg: 'job handed back' });
    expect(first.output()).not.toContain('job failed');
    const back = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`)).json();
    expect(back).toMatchObject({ status: 4, errorMessage: null, endTime: null });

    await newWorker();
    const again = await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 60_000);
    expect(again.errorMessage).toBeNull();
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect((await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 60_000)).status).toBe(8);
    await Promise.all(workers.map((w) => w.stop()));
  });
});

/**
 * A Run that holds the worker's only slot (RUN_WORKER_CONCURRENCY=1) until it is stopped, and Runs of the
 * catalog queued behind it, one per name.
 */
async function busyAndQueued(busyName: string, names: string[]) {
  const busy = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), busyName);
  const busyId = (await inject('POST', `/api/v1/agent/${busy.id}/start`, {})).json().id as number;
  await waitForRun(ctx.app, org.apiKey, busy.id, busyId, (r) => r.status === 1, 60_000);
  const queued: Array<{ agentId: number; runId: number }> = [];
  for (const name of names) {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), name);
    queued.push({ agentId: agent.id, runId: (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id });
  }
  return { busy: { agentId: busy.id, runId: busyId }, queued };
}

/** Stops the busy Run (it ends Stopped) and waits for the queued ones, which must all succeed. */
async function stopBusyThenQueuedSucceed(
  busy: { agentId: number; runId: number },
  queued: Array<{ agentId: number; runId: number }>,
) {
  await inject('POST', `/api/v1/agent/${busy.agentId}/run/${busy.runId}/stop`);
  expect((await waitForRun(ctx.app, org.apiKey, busy.agentId, busy.runId, undefined, 60_000)).status).toBe(8);
  for (const q of queued) {
    const run = await waitForRun(ctx.app, org.apiKey, q.agentId, q.runId, undefined, 60_000);
    expect(run).toMatchObject({ status: 10, recordsExported: 30 });
  }
}

/** A BullMQ queue of this file's private Redis and prefix. */
const queueOf = (name: string) =>
  new Queue(name, { connection: { host: '127.0.0.1', port: redis.port }, prefix: ctx.config.redisPrefix });

describe('Redis restarted without its data', DRILL, () => {
  it('queued Runs are enqueued again and run, and the job schedulers are back, without a worker restart', async () => {
    const w = await newWorker();
    // Concurrency 1: the queued Runs wait behind the busy one.
    const { busy, queued } = await busyAndQueued('Busy', ['Queued A', 'Queued B']);

    await redis.stop();
    await redis.start();
    const maintenance = queueOf('maintenance');
    try {
      const schedulers = await waitFor(
        async () => {
          const list = await maintenance.getJobSchedulers();
          return list.length === 7 ? list : null;
        },
        60_000,
        250,
      );
      expect(schedulers.map((s) => s.key).sort()).toEqual([
        'expire-credits',
        'purge-builder-sessions',
        'purge-expired-tokens',
        'purge-webhook-deliveries',
        'reconcile-runs',
        'settle-runs',
        'sweep-orphan-files',
      ]);
    } finally {
      await maintenance.close();
    }
    // The stop reaches the worker (signal or heartbeat) although its job vanished with Redis's data.
    await stopBusyThenQueuedSucceed(busy, queued);
    await w.stop();
  });
});

describe('PostgreSQL away from the worker', DRILL, () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const db = new URL(ctx.config.databaseUrl);
    proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('a Run whose terminal writes fail retries them until the database is back: files are recorded, not orphaned', async () => {
    const dbUrl = new URL(ctx.config.databaseUrl);
    dbUrl.port = String(proxy.port);
    const w = await newWorker({ DATABASE_URL: dbUrl.toString() });
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      catalogDefinition(site.url, { ms: 1500 }),
      'DB away',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 60_000);
    await proxy.down();
    // The child finishes its 3 pages and exports while the worker cannot reach the database.
    await waitFor(
      async () => fs.existsSync(path.join(ctx.config.storageDir, 'runs', String(runId), 'data.csv')),
      60_000,
      100,
    );
    await waitFor(async () => w.output().includes('terminal write failed; retrying'), 60_000, 100);
    // Queued meanwhile: its pick-up fails and is retried.
    const later = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      catalogDefinition(site.url),
      'Queued while DB away',
    );
    const laterId = (await inject('POST', `/api/v1/agent/${later.id}/start`, {})).json().id;
    await proxy.up();
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 60_000);
    expect(run).toMatchObject({ status: 10, recordsExported: 30 });
    expect(await files(agent.id, runId)).toEqual(['data.csv', 'run.log']);
    expect((await waitForRun(ctx.app, org.apiKey, later.id, laterId, undefined, 60_000)).status).toBe(10);
    // Each Run ended and was settled once (its end and its settlement are one transaction, retried whole).
    for (const id of [runId, laterId]) {
      expect((await ctx.db.run.findUniqueOrThrow({ where: { id } })).settledAt).not.toBeNull();
      const usage = await ctx.db.usageRecord.findMany({ where: { runId: id }, select: { usageType: true } });
      expect(usage.length).toBeGreaterThan(0);
      expect(new Set(usage.map((u) => u.usageType)).size).toBe(usage.length);
    }
    await w.stop();
  });
});

describe('synchronous start', DRILL, () => {
  it('answers multi-byte records inline, and 202 with the ended Run above RUN_SYNC_INLINE_MAX_BYTES', async () => {
    const w = await newWorker();
    const q = 'Grüße aus 東京 🎉';
    const search = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      {
        startUrl: `${site.url}/search?q={{q}}`,
        parameters: [{ name: 'q', defaultValue: q }],
        list: {
          selector: '.result',
          fields: [
            { name: 'query', selector: '.query' },
            { name: 'n', selector: '.n' },
          ],
        },
      },
      'Sync multibyte',
    );
    const inline = await inject('POST', `/api/v1/agent/${search.id}/start`, { isRunSynchronously: true, timeout: 60 });
    expect(inline.statusCode, inline.body).toBe(200);
    expect(inline.headers['content-type']).toMatch(/^application\/json/);
    expect(inline.json()).toEqual([1, 2, 3].map((n) => ({ query: q, n: String(n) })));

    const catalog = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Sync large');
    const large = await inject('POST', `/api/v1/agent/${catalog.id}/start`, { isRunSynchronously: true, timeout: 60 });
    expect(large.statusCode, large.body).toBe(202);
    expect(large.json()).toMatchObject({ status: 10, recordsExported: 30 });
    await w.stop();
  });
});

describe('a job gone from Redis while Redis stays up', DRILL, () => {
  it("the periodic reconcile enqueues again a Run pending for longer than its interval, and leaves a newer one's job to a later pass", async () => {
    const w = await newWorker();
    // Concurrency 1: both wait in the queue behind the busy Run; then their jobs are removed.
    const { busy, queued } = await busyAndQueued('Periodic busy', ['Periodic old', 'Periodic new']);
    const queue = queueOf('runs');
    const state = (runId: number) => queue.getJobState(runJobId(runId, 0));
    try {
      for (const q of queued) {
        await (await queue.getJob(runJobId(q.runId, 0)))!.remove();
        expect(await state(q.runId)).toBe('unknown');
      }
      const [old, recent] = queued;
      // One has been Queuing for two minutes; the other "just now" (in the future, so no pass can count it old).
      await ctx.db.run.update({ where: { id: old.runId }, data: { statusChanged: new Date(Date.now() - 120_000) } });
      await ctx.db.run.update({ where: { id: recent.runId }, data: { statusChanged: new Date(Date.now() + 600_000) } });
      // RUN_RECONCILE_INTERVAL_SECONDS=1: the next passes find the old Run's job missing and enqueue it again.
      await waitFor(async () => (await state(old.runId)) !== 'unknown', 30_000, 100);
      // Passes keep running every second: the recent Run's job is still not looked for.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await state(recent.runId)).toBe('unknown');
      await ctx.db.run.update({ where: { id: recent.runId }, data: { statusChanged: new Date(Date.now() - 120_000) } });
      await waitFor(async () => (await state(recent.runId)) !== 'unknown', 30_000, 100);
    } finally {
      await queue.close();
    }
    await stopBusyThenQueuedSucceed(busy, queued);
    await w.stop();
  });
});
