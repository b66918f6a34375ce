// Firing with real worker processes: two workers and a restart give exactly one Run per due fire
// time; with every worker down, a missed fire runs once when one comes back; a Run of a server
// group is executed only by a worker serving that group and stays visibly Queuing otherwise.
// Schedules are made due by moving their nextRunTime into the past (no waiting for minutes).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';
import { catalogDefinition, startWorker, TERMINAL } from '../helpers/runs.js';

let ctx: TestContext;
let org: BootstrapResult;
let site: FixtureSite;
const workers: Array<Awaited<ReturnType<typeof startWorker>>> = [];
type Json = Record<string, any>;

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: auth(org.apiKey),
    ...(payload !== undefined && { payload: payload as Json }),
  });
}
async function newAgent(name: string) {
  const res = await call('POST', '/api/v1/agent', {
    name,
    spaceId: org.spaceId,
    definition: catalogDefinition(site.url),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}
async function newSchedule(agentId: number, body: Json) {
  const res = await call('POST', `/api/v1/agent/${agentId}/schedules`, { name: 'S', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json;
}
async function spawnWorker(env: Record<string, string> = {}) {
  const w = await startWorker({ ...ctx.env, SCHEDULE_TICK_SECONDS: '1', ...env });
  workers.push(w);
  return w;
}
/** Makes Schedules due at `at` (as if that fire time had just come). */
const makeDue = (ids: number[], at: Date) =>
  ctx.db.schedule.updateMany({ where: { id: { in: ids.map(BigInt) } }, data: { nextRunTime: at } });
const runsOf = (ids: number[]) =>
  ctx.db.run.findMany({ where: { scheduleId: { in: ids.map(BigInt) } }, orderBy: { id: 'asc' } });

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
  site = await startFixtureSite();
});
afterEach((t) => {
  // A failing test shows what the workers said.
  if (t.task.result?.state === 'fail') for (const w of workers) console.error(w.output().slice(-4000));
});
afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => {});
  await site?.close();
  await ctx?.close();
});

describe('worker processes', () => {
  it('two workers, one killed and restarted: exactly one Run per due fire time', async () => {
    const agents = await Promise.all([1, 2, 3].map((i) => newAgent(`Fleet ${i}`)));
    const ids: number[] = [];
    // Hourly, so no natural fire happens during the test; group 99 has no worker, so the Runs
    // stay Queuing and cost nothing to execute.
    for (let i = 0; i < 24; i++)
      ids.push(
        (
          await newSchedule(agents[i % 3], {
            scheduleType: 2,
            runEveryCount: 1,
            runEveryPeriod: 2,
            isExclusive: false,
            serverGroupId: 99,
          })
        ).id,
      );
    const a = await spawnWorker();
    const b = await spawnWorker();
    const base = Date.now() - 60_000;
    const fireTimes = [new Date(base - 2000), new Date(base - 1000), new Date(base)];

    await makeDue(ids, fireTimes[0]);
    await waitFor(async () => (await runsOf(ids)).length === 24, 30_000);

    a.child.kill('SIGKILL');
    await a.exited;
    await makeDue(ids, fireTimes[1]);
    await waitFor(async () => (await runsOf(ids)).length === 48, 30_000);

    await spawnWorker();
    await makeDue(ids, fireTimes[2]);
    await waitFor(async () => (await runsOf(ids)).length === 72, 30_000);
    // A few more ticks pass: nothing else fires.
    await waitFor(async () => (b.output().match(/"msg":"schedules fired"/g)?.length ?? 0) >= 1, 10_000);
    await new Promise((r) => setTimeout(r, 2500));
    const runs = await runsOf(ids);
    expect(runs).toHaveLength(72);
    for (const id of ids) {
      const times = runs
        .filter((r) => r.scheduleId === BigInt(id))
        .map((r) => r.scheduledFor!.getTime())
        .sort();
      expect(times).toEqual(fireTimes.map((t) => t.getTime()));
    }
    // Visibly Queuing: no worker serves group 99.
    expect(new Set(runs.map((r) => r.status))).toEqual(new Set([4]));
    for (const w of workers) await w.stop();
    workers.length = 0;
  }, 150_000);

  it('all workers down for three minutes: one catch-up Run, the missed count logged, then the next future time', async () => {
    const agentId = await newAgent('Catch-up');
    // Every 2 minutes, anchored 7 minutes ago: due 5 minutes ago, then -3 and -1 were missed too,
    // and the next one is a minute ahead (room for the test to finish before it).
    const s = await newSchedule(agentId, {
      scheduleType: 2,
      runEveryCount: 2,
      runEveryPeriod: 1,
      isExclusive: false,
      serverGroupId: 99,
    });
    const minute = 60_000;
    const anchor = new Date(Date.now() - 7 * minute);
    await ctx.db.schedule.update({
      where: { id: BigInt(s.id) },
      data: { startTime: anchor, nextRunTime: new Date(anchor.getTime() + 2 * minute) },
    });
    const w = await spawnWorker();
    const runs = await waitFor(async () => {
      const r = await runsOf([s.id]);
      return r.length ? r : null;
    }, 30_000);
    await waitFor(async () => w.output().includes('schedule missed fire times'), 10_000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await runsOf([s.id])).toHaveLength(1);
    expect(runs[0].scheduledFor).toEqual(new Date(anchor.getTime() + 2 * minute));
    const line = JSON.parse(
      w
        .output()
        .split('\n')
        .find((l) => l.includes('schedule missed fire times'))!,
    );
    expect(line).toMatchObject({ scheduleId: String(s.id), missed: expect.any(Number) });
    expect(line.missed).toBe(2);
    const after = (await call('GET', `/api/v1/agent/${agentId}/schedules/${s.id}`)).json();
    expect(after.nextRunTime).toBe(new Date(anchor.getTime() + 8 * minute).toISOString());
    await w.stop();
    workers.length = 0;
  }, 90_000);

  it("a Run of a server group runs only on a worker of that group; another group's Run waits in Queuing", async () => {
    const agent7 = await newAgent('Group 7');
    const agent8 = await newAgent('Group 8');
    const s7 = await newSchedule(agent7, {
      scheduleType: 2,
      runEveryCount: 1,
      runEveryPeriod: 2,
      serverGroupId: 7,
      inputParameters: JSON.stringify({ '?token': 'hunter2' }),
    });
    const s8 = await newSchedule(agent8, { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 2, serverGroupId: 8 });
    const w = await spawnWorker({ WORKER_SERVER_GROUPS: 'default,7' });
    expect(w.output()).toContain('runs-g7');
    await makeDue([s7.id, s8.id], new Date(Date.now() - 1000));
    const [run7] = await waitFor(async () => {
      const r = await runsOf([s7.id]);
      return r.length && TERMINAL.includes(r[0].status) ? r : null;
    }, 60_000);
    expect(run7.status).toBe(10);
    expect(run7.recordsExported).toBe(30);
    const [run8] = await runsOf([s8.id]);
    expect(run8).toMatchObject({ status: 4, serverGroupId: 8 });
    const status = await call('GET', `/api/v1/agent/${agent8}/run/${run8.id}/status`);
    expect(status.json()).toMatchObject({ status: 4, scheduleId: s8.id });
    expect(w.output()).not.toContain('hunter2');
  }, 120_000);
});
