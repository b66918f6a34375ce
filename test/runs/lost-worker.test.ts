// A worker process that dies (SIGKILL) while executing a Run: its run child must not outlive it, and
// another worker must end the Run as the status machine says (7 -> 6, or 7 -> 12 with isWaitOnFailure)
// within a bounded time. Also: a Run being stopped ends Stopped, never Failed or retried.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, jsonInjector } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, errorCodeOf, startWorker, waitForRun } from '../helpers/runs.js';

type Worker = Awaited<ReturnType<typeof startWorker>>;

const STALE_SECONDS = 3;
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const workers: Worker[] = [];

beforeAll(async () => {
  ctx = await createTestContext({
    // Without takeovers: the Run ends as the status machine says (test/runs/resume.test.ts: with them).
    env: { RUN_STALE_SECONDS: String(STALE_SECONDS), RUN_RECONCILE_INTERVAL_SECONDS: '1', RUN_MAX_TAKEOVERS: '0' },
  });
  site = await startFixtureSite();
  org = await ctx.bootstrap();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await site?.close();
  await ctx?.close();
});

async function newWorker(): Promise<Worker> {
  const w = await startWorker(ctx.env);
  workers.push(w);
  return w;
}

const inject = jsonInjector(() => ({ app: ctx.app, apiKey: org.apiKey }));

/** Process ids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped) is not alive.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const hangDefinition = (extra: Record<string, unknown> = {}) => ({
  startUrl: `${site.url}/hang`,
  list: { selector: 'div', fields: [{ name: 'x' }] },
  ...extra,
});

/**
 * SIGKILLs every live worker (each keeps warm run processes, so whichever executes the Run is among
 * them); returns the pids of their run processes.
 */
async function killWorkerExecutingRun(): Promise<{ runChildren: number[] }> {
  const live = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
  const runChildren = live.flatMap((w) => childrenOf(w.child.pid!));
  expect(runChildren.length).toBeGreaterThanOrEqual(1);
  for (const w of live) w.child.kill('SIGKILL');
  await Promise.all(live.map((w) => w.exited));
  return { runChildren };
}

describe('a worker lost while executing a Run', () => {
  it('keeps a healthy Run Running past RUN_STALE_SECONDS, then after SIGKILL ends it 6 Failure via another worker', async () => {
    await newWorker();
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), 'Lost');
    const start = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    expect(start.statusCode, start.body).toBe(202);
    const runId = start.json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 15_000);
    await waitFor(async () => site.inFlight === 1, 5000);

    // A live worker heartbeats often enough: its Run is not declared lost, however long the page hangs.
    // Sampled for twice RUN_STALE_SECONDS: every sample is still Running.
    for (let i = 0; i < STALE_SECONDS * 2; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      expect((await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`)).json()).toMatchObject({
        status: 1,
        errorMessage: null,
      });
    }
    const alive = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`)).json();
    expect(alive).toMatchObject({ id: runId, status: 1, errorMessage: null, endTime: null });

    const { runChildren } = await killWorkerExecutingRun();
    const killedAt = Date.now();
    // The run child dies with its worker: no orphan keeps crawling.
    await waitFor(async () => runChildren.every((pid) => !isAlive(pid)), 5000, 50);
    await waitFor(async () => site.inFlight === 0, 5000, 50);

    await newWorker();
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 20_000);
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(run).toMatchObject({ id: runId, status: 6, progress: null });
    expect(await errorCodeOf(ctx.app, org.apiKey, agent.id, run.id)).toBe('WORKER_LOST');
    expect(run.endTime).not.toBeNull();
    expect((await inject('GET', `/api/v1/agent/${agent.id}`)).json().status).toBe(6);
    // Failure is restartable by a new start.
    const again = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    expect(again.statusCode).toBe(202);
    const againId = again.json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, againId, (r) => r.status === 1, 15_000);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${againId}/kill`);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${againId}/kill`);
    expect((await waitForRun(ctx.app, org.apiKey, agent.id, againId, undefined, 10_000)).status).toBe(8);
  });

  it('with isWaitOnFailure the lost Run goes to 12 Waiting (retry scheduled)', async () => {
    await newWorker();
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, hangDefinition(), 'Lost and waiting');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, { isWaitOnFailure: true })).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 15_000);
    const { runChildren } = await killWorkerExecutingRun();
    const killedAt = Date.now();
    await waitFor(async () => runChildren.every((pid) => !isAlive(pid)), 5000, 50);
    await newWorker();

    // 7 Failed is passed through on the way to 12.
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => ![1, 7].includes(r.status), 20_000);
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(run.status).toBe(12);
    expect(await errorCodeOf(ctx.app, org.apiKey, agent.id, run.id)).toBe('WORKER_LOST');
    const row = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(row.retryCount).toBe(1);
    expect(row.waitUntil!.getTime()).toBeGreaterThan(Date.now());

    const stop = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect(stop.statusCode).toBe(200);
    expect(stop.json().status).toBe(8);
  });
});

describe('a Run being stopped ends Stopped, never Failed or retried', () => {
  it('stop while stuck on a page, then the run timeout: 8 Stopped with the data so far exported, not 12 Waiting', async () => {
    if (!workers.some((w) => w.child.exitCode === null && w.child.signalCode === null)) await newWorker();
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      hangDefinition({ timeoutSeconds: 2 }),
      'Stopped then timed out',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, { isWaitOnFailure: true })).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1, 15_000);
    const stop = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect(stop.json().status).toBe(5);
    // The graceful stop waits for the hanging page until the Run's own 2 s timeout cuts it short.
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => ![1, 5, 7].includes(r.status), 15_000);
    expect(run).toMatchObject({ status: 8, recordsExported: 0, progress: null });
    expect(run.errorMessage).toMatch(/^Stopped/);
    expect(row0(await ctx.db.run.findUniqueOrThrow({ where: { id: runId } }))).toEqual({
      errorCode: 'STOPPED_BY_USER',
      errorParams: { when: 'exported' },
    });
    const row = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(row.retryCount).toBe(0);
    expect(row.waitUntil).toBeNull();
    const files = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/files`)).json();
    expect(files.map((f: { name: string; fileType: string }) => [f.name, f.fileType])).toEqual([
      ['data.csv', 'Csv'],
      ['run.log', 'Log'],
    ]);
  });
});

const row0 = (r: { errorCode: string | null; errorParams: unknown }) => ({
  errorCode: r.errorCode,
  errorParams: r.errorParams,
});
