// The webhook events beyond a Run's own ending, with a real worker and a receiver verifying every
// signature with `standardwebhooks`: schedule.missed (a catch-up after downtime), run.skipped,
// builder.session.ready, credits.low (once per crossing); and the per-attempt timeout (set to 1 s
// here through WEBHOOK_ATTEMPT_TIMEOUT_SECONDS, so the test does not wait 15 s).
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext } from '../helpers/app.js';
import { builderClient } from '../helpers/builder.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { startNode, waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, waitForRun } from '../helpers/runs.js';
import { startReceiver, verify, type Received } from '../helpers/webhook-receiver.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { startBuilderSite } from '../fixtures/builder/site.js';

type Org = Awaited<ReturnType<Awaited<ReturnType<typeof createTestContext>>['bootstrap']>>;
const h = {} as {
  ctx: Awaited<ReturnType<typeof createTestContext>>;
  site: Awaited<ReturnType<typeof startFixtureSite>>;
  worker: ReturnType<typeof startNode>;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  org: Org;
};
beforeAll(async () => {
  // Server time at 1 credit per second, so every Run's debit is visible in the balance.
  h.ctx = await createTestContext({ env: { WEBHOOK_ATTEMPT_TIMEOUT_SECONDS: '1', PRICE_SERVER_TIME_HOUR: '3600' } });
  h.site = await startFixtureSite();
  h.worker = startNode(['src/worker.ts'], { ...h.ctx.env, LOG_LEVEL: 'info' });
  // A long wait: the shared machine can be very busy.
  await waitFor(async () => h.worker.output().includes('worker started'), 120_000);
  h.org = await h.ctx.bootstrap();
  h.receiver = await startReceiver();
}, 240_000);
afterAll(async () => {
  await h.receiver?.close();
  if (h.worker && h.worker.child.exitCode === null && h.worker.child.signalCode === null) {
    h.worker.child.kill('SIGTERM');
    await h.worker.exited;
  }
  await h.site?.close();
  await h.ctx?.close();
}, 60_000);

const inject = (method: string, url: string, payload?: unknown, key = h.org.apiKey) =>
  h.ctx.app.inject({
    method: method as 'GET',
    url,
    headers: auth(key),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
async function subscribe(path: string, body: Record<string, unknown>, key = h.org.apiKey) {
  const res = await inject('POST', '/api/v1/webhooks', { url: h.receiver.url(path), ...body }, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; secret: string };
}
/** The first request at `path` of event `type`, its signature verified. */
async function received(path: string, type: string, secret: string, timeoutMs = 30_000): Promise<Received> {
  const r = await waitFor(async () => h.receiver.at(path).find((x) => x.json.type === type), timeoutMs);
  verify(secret, r);
  return r;
}
const blockedDefinition = () => ({
  startUrl: `${h.site.url}/blocked`,
  list: { selector: 'div', fields: [{ name: 'x' }] },
});

describe('schedule events', () => {
  it('schedule.missed: a catch-up after downtime tells what was missed and which Run caught up', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url), 'Missed');
    const other = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url), 'Other');
    const w = await subscribe('/missed', { eventTypes: ['schedule.missed'], agentId: agent.id });
    await subscribe('/missed-other', { eventTypes: ['schedule.missed'], agentId: other.id });
    const created = await inject('POST', `/api/v1/agent/${agent.id}/schedules`, {
      name: 'Every minute',
      scheduleType: 2,
      runEveryCount: 1,
      runEveryPeriod: 1,
      startTime: new Date(Date.now() + 3600_000).toISOString(),
      isExclusive: false,
    });
    expect(created.statusCode, created.body).toBe(201);
    const scheduleId = created.json().id as number;
    // The workers were down for ten minutes: the Schedule's first fire time is ten minutes ago.
    const start = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000);
    await h.ctx.db.schedule.update({
      where: { id: BigInt(scheduleId) },
      data: { startTime: start, nextRunTime: start },
    });

    const r = await received('/missed', 'schedule.missed', w.secret);
    const data = r.json.data;
    const run = await h.ctx.db.run.findFirstOrThrow({ where: { scheduleId: BigInt(scheduleId) } });
    const detectedAt = new Date(data.missed.detectedAt).getTime();
    expect(data.missed).toEqual({
      firstMissedAt: start.toISOString(),
      count: Math.floor((detectedAt - start.getTime()) / 60_000),
      capped: false,
      runId: run.id,
      detectedAt: expect.any(String),
    });
    expect(data.missed.count).toBeGreaterThanOrEqual(9);
    expect(run.scheduledFor).toEqual(start);
    const view = (await inject('GET', `/api/v1/agent/${agent.id}/schedules/${scheduleId}`)).json();
    expect(data).toMatchObject({ ...view, updated: expect.any(String) });
    expect(new Date(data.nextRunTime).getTime()).toBeGreaterThan(detectedAt);
    expect(r.json.timestamp).toEqual(expect.any(String));
    // The subscription filtered to the other Agent heard nothing of it.
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, run.id);
    expect(h.receiver.at('/missed-other')).toEqual([]);
    await inject('POST', `/api/v1/agent/${agent.id}/schedules/${scheduleId}/disable`);
  }, 90_000);

  it('run.skipped: an exclusive Schedule firing while its Agent runs records a Skipped Run', async () => {
    const w = await subscribe('/skipped', { eventTypes: ['run.skipped'] });
    const hang = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Busy',
    );
    const busyId = (await inject('POST', `/api/v1/agent/${hang.id}/start`, {})).json().id;
    await waitForRun(h.ctx.app, h.org.apiKey, hang.id, busyId, (x) => x.status === 1);
    const s = await inject('POST', `/api/v1/agent/${hang.id}/schedules`, {
      name: 'Exclusive',
      scheduleType: 2,
      runEveryCount: 1,
      runEveryPeriod: 2,
      startTime: new Date(Date.now() + 3600_000).toISOString(),
      isExclusive: true,
    });
    expect(s.statusCode, s.body).toBe(201);
    const due = new Date(Date.now() - 1000);
    await h.ctx.db.schedule.update({ where: { id: BigInt(s.json().id) }, data: { startTime: due, nextRunTime: due } });

    const r = await received('/skipped', 'run.skipped', w.secret);
    const skipped = await waitForRun(h.ctx.app, h.org.apiKey, hang.id, r.json.data.id);
    expect(skipped.status).toBe(11);
    expect(r.json.data).toMatchObject({ ...skipped, status: 11, files: [] });
    expect(r.json.data.errorMessage).toMatch(/exclusive/);
    await inject('POST', `/api/v1/agent/${hang.id}/schedules/${s.json().id}/disable`);
    await inject('POST', `/api/v1/agent/${hang.id}/run/${busyId}/kill`);
    await inject('POST', `/api/v1/agent/${hang.id}/run/${busyId}/kill`);
  }, 90_000);
});

describe('builder.session.ready', () => {
  it('is sent when a session reaches ready, with the session as GET returns it', async () => {
    const pages = await startBuilderSite();
    const w = await subscribe('/builder', { eventTypes: ['builder.session.ready'], spaceId: h.org.spaceId });
    const b = builderClient(h.ctx.app, () => h.org.apiKey);
    const grid = BUILDER_FIXTURES.find((f) => f.name === 'card-grid')!;
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: h.org.spaceId });
    expect((await b.until(sessionId, ['ready', 'error'])).status).toBe('ready');
    const r = await received('/builder', 'builder.session.ready', w.secret);
    expect(r.json.data).toEqual(await b.session(sessionId));
    expect(r.json.data).toMatchObject({ status: 'ready', draft: expect.any(Object), preview: expect.any(Array) });
    await pages.close();
  }, 120_000);
});

describe('credits.low', () => {
  it('is sent once when a debit takes the balance below the threshold, not on the debits after it', async () => {
    const org = await h.ctx.bootstrap({ credits: 1000 });
    const set = await inject('PUT', '/api/v1/billing/low-credits-alert', { threshold: 1000 }, org.apiKey);
    expect(set.json()).toEqual({ threshold: 1000, isDefault: false, organizationId: org.organizationId });
    const w = await subscribe('/credits', { eventTypes: ['credits.low', 'run.succeeded'] }, org.apiKey);
    const agent = await createAgent(h.ctx.app, org.apiKey, org.spaceId, catalogDefinition(h.site.url), 'Spender');
    const runs: number[] = [];
    for (let i = 0; i < 2; i++) {
      const id = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {}, org.apiKey)).json().id as number;
      expect((await waitForRun(h.ctx.app, org.apiKey, agent.id, id)).status).toBe(10);
      runs.push(id);
      if (i === 0) {
        // Read once the event came: the Run's status can show Success before its settlement commits.
        const r = await received('/credits', 'credits.low', w.secret);
        const balance = (await inject('GET', '/api/v1/billing/credits', undefined, org.apiKey)).json().availableCredits;
        expect(r.json.data).toEqual({
          organizationId: org.organizationId,
          threshold: 1000,
          previousBalance: 1000,
          balance,
          runId: id,
        });
        expect(balance).toBeLessThan(1000);
      }
    }
    // Both Runs were settled (their run.succeeded came); the second debit, already below, wrote no event.
    for (const id of runs)
      await waitFor(async () => h.receiver.at('/credits').find((x) => x.json.data.id === id), 30_000);
    const low = await h.ctx.db.webhookEvent.findMany({
      where: { organizationId: org.organizationId, type: 'credits.low' },
    });
    expect(low).toHaveLength(1);
    expect(h.receiver.at('/credits').filter((x) => x.json.type === 'credits.low')).toHaveLength(1);
  }, 120_000);
});

describe('the per-attempt timeout', () => {
  it('an answer slower than the timeout is a failed attempt (the test event, sent by the API)', async () => {
    const w = await subscribe('/slow-test', { eventTypes: ['*'] });
    const held: http.ServerResponse[] = [];
    h.receiver.script('/slow-test', (_r, res) => void held.push(res));
    const res = await inject('POST', `/api/v1/webhooks/${w.id}/test`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ outcome: 'failed', statusCode: null, error: 'timed out' });
    // It waited for the deadline (1 s here), give or take the timer's millisecond rounding.
    expect(res.json().durationMs).toBeGreaterThanOrEqual(990);
    for (const x of held) x.destroy();
  });

  it('a delivery attempt that times out is retried with the same webhook-id', async () => {
    const w = await subscribe('/slow', { eventTypes: ['run.failed'] });
    const held: http.ServerResponse[] = [];
    h.receiver.script('/slow', (_r, res) => void held.push(res));
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, blockedDefinition(), 'Slow receiver');
    await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    const [first, second] = await waitFor(
      async () => (h.receiver.at('/slow').length >= 2 ? h.receiver.at('/slow') : null),
      60_000,
    );
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    verify(w.secret, second);
    const d = await waitFor(async () => {
      const x = (await inject('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json().data[0];
      return x?.status === 'succeeded' ? x : null;
    });
    expect(d.attempts).toMatchObject([
      { attempt: 1, statusCode: null, error: 'timed out' },
      { attempt: 2, statusCode: 200, error: null },
    ]);
    for (const x of held) x.destroy();
  }, 90_000);
});
