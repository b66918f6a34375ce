// Webhook deliveries with a real worker: one test per Run event type, every signature verified with
// `standardwebhooks`; retries keep the webhook-id; 410 disables; a rolled-back change sends nothing;
// a worker killed mid-delivery delivers after its restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext } from '../helpers/app.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { startNode, waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, waitForRun } from '../helpers/runs.js';
import { answer, startReceiver, verify, type Received } from '../helpers/webhook-receiver.js';

// The usual Run environment, with a longer wait for the worker: the shared machine can be very busy.
async function startWorker(env: Record<string, string>) {
  const w = startNode(['src/worker.ts'], { ...env, LOG_LEVEL: 'info' });
  await waitFor(async () => w.output().includes('worker started'), 120_000);
  return w;
}
const h = {} as {
  ctx: Awaited<ReturnType<typeof createTestContext>>;
  site: Awaited<ReturnType<typeof startFixtureSite>>;
  worker: Awaited<ReturnType<typeof startWorker>>;
  org: Awaited<ReturnType<Awaited<ReturnType<typeof createTestContext>>['bootstrap']>>;
};
beforeAll(async () => {
  h.ctx = await createTestContext();
  h.site = await startFixtureSite();
  h.worker = await startWorker(h.ctx.env);
  h.org = await h.ctx.bootstrap();
}, 240_000);
afterAll(async () => {
  if (h.worker && h.worker.child.exitCode === null && h.worker.child.signalCode === null) {
    h.worker.child.kill('SIGTERM');
    await h.worker.exited;
  }
  await h.site?.close();
  await h.ctx?.close();
}, 60_000);
const inject = (method: string, url: string, payload?: unknown) =>
  h.ctx.app.inject({
    method: method as 'GET',
    url,
    headers: auth(h.org.apiKey),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

async function subscribe(
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  path: string,
  body: Record<string, unknown> = {},
) {
  const res = await inject('POST', '/api/v1/webhooks', { url: receiver.url(path), eventTypes: ['*'], ...body });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: number; secret: string };
}

const ofRun = (rs: Received[], runId: number) => rs.filter((r) => r.json?.data?.id === runId);

describe('Run events', () => {
  it('run.created and run.succeeded with the Run as status returns it and its files', async () => {
    const receiver = await startReceiver();
    const w = await subscribe(receiver, '/ok');
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url), 'Catalog');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId);
    expect(run.status).toBe(10);
    const got = await waitFor(
      async () => (ofRun(receiver.at('/ok'), runId).length >= 2 ? ofRun(receiver.at('/ok'), runId) : null),
      20_000,
    );
    for (const r of got) verify(w.secret, r);
    const byType = Object.fromEntries(got.map((r) => [r.json.type, r.json]));
    expect(byType['run.created'].data).toMatchObject({ id: runId, configId: agent.id, status: 4 });
    expect(byType['run.succeeded'].data).toMatchObject({
      ...run,
      errorCode: null,
      files: expect.arrayContaining([expect.objectContaining({ fileType: 'Csv' })]),
    });
    expect(new Date(byType['run.succeeded'].timestamp).getTime()).toBeGreaterThan(0);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(2);
    await receiver.close();
  }, 90_000);

  it('run.failed, run.completed_with_errors and run.stopped; filters by Agent and event type', async () => {
    const receiver = await startReceiver();
    const all = await subscribe(receiver, '/all');
    const blocked = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Blocked',
    );
    const only = await subscribe(receiver, '/only-failed', { eventTypes: ['run.failed'], agentId: blocked.id });
    const empty = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { ...catalogDefinition(h.site.url), list: { selector: 'div.nothing', fields: [{ name: 'x' }] } },
      'Empty',
    );
    const hang = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Hang',
    );

    const failedId = (await inject('POST', `/api/v1/agent/${blocked.id}/start`, {})).json().id;
    const emptyId = (await inject('POST', `/api/v1/agent/${empty.id}/start`, {})).json().id;
    const hangId = (await inject('POST', `/api/v1/agent/${hang.id}/start`, {})).json().id;
    await waitForRun(h.ctx.app, h.org.apiKey, hang.id, hangId, (r) => r.status === 1);
    await inject('POST', `/api/v1/agent/${hang.id}/run/${hangId}/kill`);
    await inject('POST', `/api/v1/agent/${hang.id}/run/${hangId}/kill`);
    const expected: Array<[number, string, number, string]> = [
      [failedId, 'run.failed', 6, 'BLOCKED'],
      [emptyId, 'run.completed_with_errors', 9, 'LIST_MATCHED_NOTHING'],
      [hangId, 'run.stopped', 8, 'KILLED_BY_USER'],
    ];
    for (const [runId, type, status, errorCode] of expected) {
      const r = await waitFor(async () => ofRun(receiver.at('/all'), runId).find((x) => x.json.type === type), 30_000);
      expect(verify(all.secret, r)).toMatchObject({ type, data: { id: runId, status, errorCode } });
    }
    const filtered = await waitFor(async () => receiver.at('/only-failed')[0], 10_000);
    expect(verify(only.secret, filtered)).toMatchObject({ type: 'run.failed', data: { id: failedId } });
    // Give the other events time to reach /only-failed, were they (wrongly) delivered there.
    await waitFor(async () => ofRun(receiver.at('/all'), hangId).length >= 2, 10_000);
    expect(receiver.at('/only-failed')).toHaveLength(1);
    await receiver.close();
  }, 90_000);
});

describe('delivery rules', () => {
  it('500 then 200: the same webhook-id twice, the log shows both attempts', async () => {
    const receiver = await startReceiver();
    const w = await subscribe(receiver, '/flaky', { eventTypes: ['run.failed'] });
    receiver.script('/flaky', answer(500, {}, 'down'));
    const agent = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Flaky',
    );
    await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    const [a, b] = await waitFor(
      async () => (receiver.at('/flaky').length >= 2 ? receiver.at('/flaky') : null),
      30_000,
    );
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    expect(a.body).toBe(b.body);
    expect(a.json).toMatchObject({ type: 'run.failed', data: { status: 6 } });
    verify(w.secret, b);
    const d = await waitFor(async () => {
      const x = (await inject('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json().data[0];
      return x?.status === 'succeeded' ? x : null;
    });
    expect(d.attempts.map((x: { statusCode: number }) => x.statusCode)).toEqual([500, 200]);
    expect(d.attempts.map((x: { errorCode: string | null }) => x.errorCode)).toEqual(['RECEIVER_HTTP_ERROR', null]);
    expect(d.eventId).toBe(a.headers['webhook-id']);
    await receiver.close();
  });

  it('410 Gone disables the subscription with a visible reason', async () => {
    const receiver = await startReceiver();
    const w = await subscribe(receiver, '/gone', { eventTypes: ['run.failed'] });
    receiver.script('/gone', answer(410, {}, 'gone'));
    const agent = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Gone',
    );
    await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    const sub = await waitFor(async () => {
      const x = (await inject('GET', `/api/v1/webhooks/${w.id}`)).json();
      return x.enabled ? null : x;
    }, 30_000);
    expect(sub.disabledReason).toMatch(/410 Gone/);
    expect(receiver.at('/gone')).toHaveLength(1);
    const d = (await inject('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json().data[0];
    expect(d.attempts.map((x: { errorCode: string | null }) => x.errorCode)).toEqual(['RECEIVER_GONE']);
    await receiver.close();
  });

  it('a rolled-back change sends nothing', async () => {
    const receiver = await startReceiver();
    await subscribe(receiver, '/rb', { eventTypes: ['run.created'] });
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url), 'Rollback');
    const data = { organizationId: h.org.organizationId, agentId: agent.id, agentVersion: 1, status: 8 };
    let rolledBack = 0;
    await h.ctx.db
      .$transaction(async (tx) => {
        rolledBack = (await tx.run.create({ data })).id;
        throw new Error('roll back');
      })
      .catch(() => {});
    const committed = await h.ctx.db.run.create({ data });
    await waitFor(async () => ofRun(receiver.at('/rb'), committed.id).length > 0, 20_000);
    expect(rolledBack).toBeGreaterThan(0);
    expect(receiver.at('/rb').map((r) => r.json.data.id)).toEqual([committed.id]);
    await receiver.close();
  });

  it('a worker killed mid-delivery delivers after its restart, once more with the same webhook-id', async () => {
    const receiver = await startReceiver();
    const w = await subscribe(receiver, '/kill', { eventTypes: ['run.failed'] });
    let release: () => void = () => {};
    // The first request is held open: the worker is killed while it waits for the answer.
    receiver.script('/kill', (_r, res) => {
      release = () => res.destroy();
    });
    const agent = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { startUrl: `${h.site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Killed',
    );
    await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    await waitFor(async () => receiver.at('/kill').length === 1, 30_000);
    h.worker.child.kill('SIGKILL');
    await h.worker.exited;
    release();
    h.worker = await startWorker(h.ctx.env);
    const [first, second] = await waitFor(
      async () => (receiver.at('/kill').length >= 2 ? receiver.at('/kill') : null),
      90_000,
    );
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    verify(w.secret, second);
    const d = await waitFor(async () => {
      const x = (await inject('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json().data[0];
      return x?.status === 'succeeded' ? x : null;
    });
    expect(d.attemptCount).toBe(1);
    expect(receiver.at('/kill')).toHaveLength(2);
    await receiver.close();
  }, 240_000);
});
