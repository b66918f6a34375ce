// Firing with an injected clock, against the real database and Redis: the tick claims due
// Schedules, creates their Runs (Queuing, or Skipped for an exclusive Schedule whose Agent is busy)
// and advances nextRunTime in one transaction; concurrent ticks never fire the same time twice;
// a fire missed during downtime runs once; RunOnce disables itself; the Schedule's parameters
// reach the Run; Runs of a server group are queued in that group's queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../../src/db/prisma.js';
import {
  createGroupQueues,
  createQueue,
  createRunScheduler,
  redisConnection,
  runJobId,
} from '../../src/queues/queues.js';
import { unseal } from '../../src/lib/crypto.js';
import { createCreditsRepository } from '../../src/services/billing/credits.repository.js';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { createRunsRepository } from '../../src/services/runs/runs.repository.js';
import { createScheduleFiring } from '../../src/services/schedules/firing.service.js';
import { createSchedulesRepository } from '../../src/services/schedules/schedules.repository.js';
import { createWebhooksRepository } from '../../src/services/webhooks/webhooks.repository.js';
import { createSettlement } from '../../src/services/settlement/index.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let now = new Date('2026-06-01T09:59:00Z');
const clock = { now: () => new Date(now) };
let ctx: TestContext;
let org: BootstrapResult;
const warnings: Array<Record<string, unknown>> = [];
const log = { info: () => {}, warn: (obj: Record<string, unknown>) => void warnings.push(obj), error: () => {} } as any;
const closers: Array<() => Promise<unknown>> = [];

type Json = Record<string, any>;
const definition = {
  startUrl: 'https://example.com/list',
  timeoutSeconds: 120,
  list: { selector: '.item', fields: [{ name: 'title', selector: 'h2' }] },
};

/** A firing service of its own (as one worker process has), on its own connections. */
function newFiring(batchSize = 50) {
  const db = createPrisma(ctx.config.databaseUrl, { max: 4 });
  const connection = redisConnection(ctx.config.redisUrl);
  const runsQueue = createQueue('runs', connection, ctx.config.redisPrefix);
  const groups = createGroupQueues(connection, ctx.config.redisPrefix);
  const settlement = createSettlement(db, { clock, log, config: ctx.config });
  const runsRepo = createRunsRepository(db, {
    settle: settlement.afterTerminal,
    settleMoving: settlement.settleMoving,
  });
  const scheduler = createRunScheduler(runsQueue, {
    groups: {
      groupQueue: groups.get,
      serverGroupOf: async (id) => (await runsRepo.findRun(id))?.serverGroupId ?? null,
    },
  });
  closers.push(
    () => runsQueue.close(),
    () => groups.close(),
    () => db.$disconnect(),
  );
  const firing = createScheduleFiring({
    repo: createSchedulesRepository(db),
    runs: runsRepo,
    credits: createCreditsRepository(db),
    scheduler,
    outbox: createWebhooksRepository(db),
    clock,
    log,
    batchSize,
  });
  return { firing, runsQueue, groups, db };
}

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: auth(org.apiKey),
    ...(payload !== undefined && { payload: payload as Json }),
  });
}
async function newAgent(name: string) {
  const res = await call('POST', '/api/v1/agent', { name, spaceId: org.spaceId, definition });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}
async function newSchedule(agentId: number, body: Json) {
  const res = await call('POST', `/api/v1/agent/${agentId}/schedules`, { name: 'S', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json;
}
const runsOf = (db: Db, scheduleId: number) =>
  db.run.findMany({ where: { scheduleId: BigInt(scheduleId) }, orderBy: { id: 'asc' } });

beforeAll(async () => {
  ctx = await createTestContext({ clock });
  org = await ctx.bootstrap();
});
afterAll(async () => {
  for (const c of closers) await c().catch(() => {});
  await ctx?.close();
});

describe('the tick', () => {
  it('fires a due Schedule once, with its parameters, and advances nextRunTime', async () => {
    const { firing, runsQueue } = newFiring();
    const agentId = await newAgent('Params');
    const s = await newSchedule(agentId, {
      scheduleType: 3,
      cronExpression: '0 10 * * *',
      timezone: 'UTC',
      inputParameters: JSON.stringify({ query: 'shoes', '?token': 'hunter2' }),
      parallelism: 3,
      parallelMaxConcurrency: 2,
      parallelExport: 'Separated',
      logLevel: 'Warning',
      logMode: 'TextAndHtml',
      isExclusive: false,
      isWaitOnFailure: true,
    });
    expect(s.nextRunTime).toBe('2026-06-01T10:00:00.000Z');
    expect(await firing.tick()).toEqual({ claimed: 0, queued: 0, skipped: 0 });

    now = new Date('2026-06-01T10:00:00.400Z');
    expect(await firing.tick()).toEqual({ claimed: 1, queued: 1, skipped: 0 });
    expect(await firing.tick()).toEqual({ claimed: 0, queued: 0, skipped: 0 });
    const [run, ...more] = await runsOf(ctx.db, s.id);
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      agentId,
      status: 4,
      scheduledFor: new Date('2026-06-01T10:00:00Z'),
      parallelism: 3,
      parallelMaxConcurrency: 2,
      parallelExport: 'Separated',
      logLevel: 'Warning',
      logMode: 'TextAndHtml',
      isExclusive: false,
      isWaitOnFailure: true,
      timeoutSeconds: 120,
      serverGroupId: null,
      startedBy: `schedule ${s.id} (S)`,
    });
    const params = JSON.parse(run.inputParameters!);
    expect(params.query).toBe('shoes');
    expect(unseal(ctx.config.encryptionKey, params['?token'])).toBe('hunter2');
    expect(await runsQueue.getJob(runJobId(run.id, 0))).toBeTruthy();

    // Through the API: the Run carries scheduleId; the Schedule moved to the next day.
    const status = await call('GET', `/api/v1/agent/${agentId}/run/${run.id}/status`);
    expect(status.json()).toMatchObject({ scheduleId: s.id, status: 4 });
    expect(status.body).not.toContain('hunter2');
    expect((await call('GET', `/api/v1/agent/${agentId}/schedules/${s.id}`)).json()).toMatchObject({
      nextRunTime: '2026-06-02T10:00:00.000Z',
      isEnabled: true,
    });
  });

  it('two ticks racing (two workers) create exactly one Run per due Schedule', async () => {
    const a = newFiring(7);
    const b = newFiring(7);
    const agents = await Promise.all([1, 2, 3, 4, 5].map((i) => newAgent(`Race ${i}`)));
    now = new Date('2026-06-01T10:30:00Z');
    const schedules: Json[] = [];
    for (let i = 0; i < 40; i++)
      schedules.push(
        await newSchedule(agents[i % agents.length], {
          scheduleType: 2,
          runEveryCount: 1,
          runEveryPeriod: 1,
          isExclusive: false,
        }),
      );
    now = new Date('2026-06-01T10:31:00.100Z');
    const [ra, rb] = await Promise.all([a.firing.tick(), b.firing.tick()]);
    expect(ra.claimed + rb.claimed).toBe(40);
    for (const s of schedules) expect(await runsOf(ctx.db, s.id)).toHaveLength(1);
    now = new Date('2026-06-01T10:32:00.100Z');
    const [rc, rd] = await Promise.all([b.firing.tick(), a.firing.tick()]);
    expect(rc.claimed + rd.claimed).toBe(40);
    for (const s of schedules) {
      const runs = await runsOf(ctx.db, s.id);
      expect(runs.map((r) => r.scheduledFor!.toISOString())).toEqual([
        '2026-06-01T10:31:00.000Z',
        '2026-06-01T10:32:00.000Z',
      ]);
    }
    // Out of the way of the next tests.
    for (const s of schedules)
      expect((await call('POST', `/api/v1/agent/${s.configId}/schedules/${s.id}/disable`)).statusCode).toBe(200);
  });

  it('the database refuses a second Run for the same fire time', async () => {
    const agentId = await newAgent('Unique');
    const s = await newSchedule(agentId, { scheduleType: 3, cronExpression: '0 12 * * *' });
    const data = {
      organizationId: org.organizationId,
      agentId,
      agentVersion: 1,
      status: 11,
      scheduleId: BigInt(s.id),
      scheduledFor: new Date('2026-06-01T12:00:00Z'),
    };
    await ctx.db.run.create({ data });
    // The data layer maps the unique violation to a 409 conflict.
    await expect(ctx.db.run.create({ data })).rejects.toMatchObject({ statusCode: 409, errorCode: 'CONFLICT' });
    // The tick finds that fire time done: it only moves the Schedule past it.
    const { firing } = newFiring();
    now = new Date('2026-06-01T12:00:30Z');
    await firing.tick();
    expect(await runsOf(ctx.db, s.id)).toHaveLength(1);
    expect((await call('GET', `/api/v1/agent/${agentId}/schedules/${s.id}`)).json().nextRunTime).toBe(
      '2026-06-02T12:00:00.000Z',
    );
    await call('POST', `/api/v1/agent/${agentId}/schedules/${s.id}/disable`);
  });

  it('after downtime a missed fire runs once, logs the missed count, and continues from the next future time', async () => {
    const { firing } = newFiring();
    const agentId = await newAgent('Downtime');
    now = new Date('2026-06-01T11:00:00Z');
    const s = await newSchedule(agentId, { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 1 });
    expect(s.nextRunTime).toBe('2026-06-01T11:01:00.000Z');
    warnings.length = 0;
    now = new Date('2026-06-01T11:04:30Z'); // 11:01, 11:02, 11:03 and 11:04 passed without a tick
    await firing.tick();
    const runs = await runsOf(ctx.db, s.id);
    expect(runs.map((r) => r.scheduledFor!.toISOString())).toEqual(['2026-06-01T11:01:00.000Z']);
    expect(warnings.filter((w) => w.scheduleId === String(s.id))).toEqual([
      expect.objectContaining({ missed: 3, dueAt: new Date('2026-06-01T11:01:00Z') }),
    ]);
    expect((await call('GET', `/api/v1/agent/${agentId}/schedules/${s.id}`)).json().nextRunTime).toBe(
      '2026-06-01T11:05:00.000Z',
    );
  });

  it('an exclusive Schedule whose Agent has an active Run records a Skipped Run (settled)', async () => {
    const { firing } = newFiring();
    const agentId = await newAgent('Busy');
    now = new Date('2026-06-01T12:00:00Z');
    const started = await call('POST', `/api/v1/agent/${agentId}/start`, {});
    expect(started.statusCode).toBe(202);
    const s = await newSchedule(agentId, { scheduleType: 2, runEveryCount: 5, runEveryPeriod: 1 });
    now = new Date('2026-06-01T12:05:00Z');
    await firing.tick();
    const [run] = await runsOf(ctx.db, s.id);
    expect(run).toMatchObject({
      status: 11,
      endTime: now,
      errorMessage: `Skipped: Run ${started.json().id} of this exclusive Agent was still active.`,
    });
    expect(run.settledAt).not.toBeNull();
  });

  it('two exclusive Schedules of one Agent due together: the earlier fire runs, the other is Skipped naming it', async () => {
    const { firing } = newFiring();
    const agentId = await newAgent('Pair');
    now = new Date('2026-06-01T12:30:00Z');
    const first = await newSchedule(agentId, { scheduleType: 1, startTime: '2026-06-01T12:40:00Z' });
    const second = await newSchedule(agentId, { scheduleType: 1, startTime: '2026-06-01T12:41:00Z' });
    now = new Date('2026-06-01T12:45:00Z');
    await firing.tick();
    const [a] = await runsOf(ctx.db, first.id);
    const [b] = await runsOf(ctx.db, second.id);
    expect(a).toMatchObject({ status: 4, errorMessage: null });
    expect(b).toMatchObject({
      status: 11,
      errorMessage: `Skipped: Run ${a.id} of this exclusive Agent was still active.`,
    });
    const agent = (await call('GET', `/api/v1/agent/${agentId}`)).json();
    expect(agent.status).toBe(11);
  });

  it('a fire of an Agent with an invalid definition is recorded as a Skipped Run saying why', async () => {
    const { firing } = newFiring();
    const res = await call('POST', '/api/v1/agent', {
      name: 'Invalid',
      spaceId: org.spaceId,
      definition: { ...definition, export: { format: 'csv', columns: [{ name: 'sku', required: true }] } },
    });
    expect(res.json().validationStatus).toBe(2);
    const agentId = res.json().id as number;
    now = new Date('2026-06-01T12:50:00Z');
    const s = await newSchedule(agentId, { scheduleType: 1, startTime: '2026-06-01T12:55:00Z' });
    now = new Date('2026-06-01T12:56:00Z');
    await firing.tick();
    const [run] = await runsOf(ctx.db, s.id);
    expect(run).toMatchObject({
      status: 11,
      errorMessage: 'Skipped: the Agent has an invalid definition; fix it for its Schedules to run.',
    });
    expect(run.settledAt).not.toBeNull();
  });

  it('RunOnce disables itself after it fires; a disabled Schedule never fires', async () => {
    const { firing } = newFiring();
    const agentId = await newAgent('Once');
    now = new Date('2026-06-01T13:00:00Z');
    const once = await newSchedule(agentId, { scheduleType: 1, startTime: '2026-06-01T13:10:00Z', isExclusive: false });
    const off = await newSchedule(agentId, { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 1, isEnabled: false });
    now = new Date('2026-06-01T13:20:00Z');
    await firing.tick();
    await firing.tick();
    expect(await runsOf(ctx.db, once.id)).toHaveLength(1);
    expect(await runsOf(ctx.db, off.id)).toHaveLength(0);
    expect((await call('GET', `/api/v1/agent/${agentId}/schedules/${once.id}`)).json()).toMatchObject({
      isEnabled: false,
      nextRunTime: null,
    });
  });

  it('a Schedule of an archived Agent does not fire, and stays disabled after unarchive', async () => {
    const { firing } = newFiring();
    const agentId = await newAgent('Archived');
    now = new Date('2026-06-01T14:00:00Z');
    const s = await newSchedule(agentId, { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 1 });
    expect((await call('POST', `/api/v1/agent/${agentId}/archive`)).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/agent/${agentId}/unarchive`)).statusCode).toBe(200);
    now = new Date('2026-06-01T14:05:00Z');
    await firing.tick();
    expect(await runsOf(ctx.db, s.id)).toHaveLength(0);
    expect((await call('GET', `/api/v1/agent/${agentId}/schedules/${s.id}`)).json()).toMatchObject({
      isEnabled: false,
    });
  });

  it("a Run of a Schedule with a server group is queued in that group's queue only", async () => {
    const { firing, runsQueue, groups } = newFiring();
    const agentId = await newAgent('Grouped');
    now = new Date('2026-06-01T15:00:00Z');
    const s = await newSchedule(agentId, { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 1 });
    await call('PUT', `/api/v1/agent/${agentId}/schedules/${s.id}`, { serverGroupId: 7 });
    now = new Date('2026-06-01T15:01:00Z');
    await firing.tick();
    const [run] = await runsOf(ctx.db, s.id);
    expect(run).toMatchObject({ status: 4, serverGroupId: 7 });
    expect(await groups.get(7).getJob(runJobId(run.id, 0))).toBeTruthy();
    expect(await runsQueue.getJob(runJobId(run.id, 0))).toBeFalsy();
  });
});
