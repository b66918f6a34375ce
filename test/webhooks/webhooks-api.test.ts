// Webhook subscriptions through the HTTP API: CRUD, secrets (returned once, sealed at rest),
// admin-only access, the test event, rotation, the delivery log and each documented error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { answer, startReceiver, verify } from '../helpers/webhook-receiver.js';

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let memberKey: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const inject = (method: string, url: string, key: string, payload?: unknown) =>
  ctx.app.inject({
    method: method as 'GET',
    url,
    headers: auth(key),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
  receiver = await startReceiver();
  const user = await inject('POST', '/api/v1/users', org.apiKey, { email: 'member@example.com', role: 'member' });
  memberKey = (await inject('POST', `/api/v1/users/${user.json().id}/api-keys`, org.apiKey, {})).json().key;
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

describe('subscriptions', () => {
  it('creates, reads, replaces and deletes; the secret only at creation, sealed at rest', async () => {
    const created = await inject('POST', '/api/v1/webhooks', org.apiKey, {
      url: receiver.url('/crud'),
      eventTypes: ['run.succeeded'],
      description: 'd',
    });
    expect(created.statusCode).toBe(201);
    const w = created.json();
    expect(w).toMatchObject({
      url: receiver.url('/crud'),
      eventTypes: ['run.succeeded'],
      description: 'd',
      agentId: null,
      spaceId: null,
      enabled: true,
      disabledReason: null,
    });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(w.secret.slice(6), 'base64')).toHaveLength(32);
    const row = await ctx.db.webhook.findUniqueOrThrow({ where: { id: w.id } });
    expect(JSON.stringify(row)).not.toContain(w.secret.slice(6));

    const got = await inject('GET', `/api/v1/webhooks/${w.id}`, org.apiKey);
    expect(got.json()).not.toHaveProperty('secret');
    expect((await inject('GET', '/api/v1/webhooks', org.apiKey)).json().map((x: { id: number }) => x.id)).toContain(
      w.id,
    );

    const put = await inject('PUT', `/api/v1/webhooks/${w.id}`, org.apiKey, {
      url: receiver.url('/crud2'),
      eventTypes: ['*'],
      spaceId: org.spaceId,
      enabled: false,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      url: receiver.url('/crud2'),
      eventTypes: ['*'],
      spaceId: org.spaceId,
      enabled: false,
      description: '',
    });

    expect((await inject('DELETE', `/api/v1/webhooks/${w.id}`, org.apiKey)).statusCode).toBe(204);
    expectProblem(await inject('GET', `/api/v1/webhooks/${w.id}`, org.apiKey), 404, 'NOT_FOUND');
    expectProblem(await inject('DELETE', `/api/v1/webhooks/${w.id}`, org.apiKey), 404, 'NOT_FOUND');
  });

  it('members get 403 on every route; another organization gets 404', async () => {
    const w = (
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/x'), eventTypes: ['*'] })
    ).json();
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/api/v1/webhooks', { url: receiver.url('/x'), eventTypes: ['*'] }],
      ['GET', '/api/v1/webhooks'],
      ['GET', `/api/v1/webhooks/${w.id}`],
      ['PUT', `/api/v1/webhooks/${w.id}`, { url: receiver.url('/x'), eventTypes: ['*'] }],
      ['DELETE', `/api/v1/webhooks/${w.id}`],
      ['POST', `/api/v1/webhooks/${w.id}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${w.id}/test`],
      ['GET', `/api/v1/webhooks/${w.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${w.id}/deliveries/1/redeliver`],
    ];
    for (const [method, url, body] of routes)
      expectProblem(await inject(method, url, memberKey, body), 403, 'FORBIDDEN');
    const other = await ctx.bootstrap();
    expectProblem(await inject('GET', `/api/v1/webhooks/${w.id}`, other.apiKey), 404, 'NOT_FOUND');
    expectProblem(await inject('POST', `/api/v1/webhooks/${w.id}/test`, other.apiKey), 404, 'NOT_FOUND');
    expect(receiver.at('/x')).toHaveLength(0);
  });

  it('400 for invalid bodies, 404 for filters outside the organization, 401 without credentials', async () => {
    expectBadRequest(
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: 'ftp://x.test/', eventTypes: ['*'] }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/x'), eventTypes: ['run.exploded'] }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/x'), eventTypes: [] }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', '/api/v1/webhooks', org.apiKey, {
        url: receiver.url('/x'),
        eventTypes: ['*', 'run.failed'],
      }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', '/api/v1/webhooks', org.apiKey, {
        url: receiver.url('/x'),
        eventTypes: ['*'],
        secret: 'mine',
      }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(await inject('GET', '/api/v1/webhooks/0', org.apiKey), 'VALIDATION_FAILED');
    expectBadRequest(await inject('GET', '/api/v1/webhooks/1/deliveries?pageIndex=0', org.apiKey), 'VALIDATION_FAILED');
    expectProblem(
      await inject('POST', '/api/v1/webhooks', org.apiKey, {
        url: receiver.url('/x'),
        eventTypes: ['*'],
        agentId: 999999,
      }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await inject('POST', '/api/v1/webhooks', org.apiKey, {
        url: receiver.url('/x'),
        eventTypes: ['*'],
        spaceId: 999999,
      }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks' }), 401, 'UNAUTHENTICATED');
  });
});

describe('test event, rotation and the delivery log', () => {
  it('sends webhook.test signed with the secret; after rotation both secrets sign', async () => {
    const w = (
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/t'), eventTypes: ['*'] })
    ).json();
    const res = await inject('POST', `/api/v1/webhooks/${w.id}/test`, org.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ outcome: 'success', statusCode: 200, responseBody: 'ok', error: null });
    const [first] = receiver.at('/t');
    expect(verify(w.secret, first)).toMatchObject({ type: 'webhook.test', data: { webhookId: w.id } });
    expect(first.headers['webhook-id']).toBe(res.json().eventId);
    expect(Math.abs(Number(first.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    const rotated = await inject('POST', `/api/v1/webhooks/${w.id}/rotate-secret`, org.apiKey);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(w.secret);
    await inject('POST', `/api/v1/webhooks/${w.id}/test`, org.apiKey);
    const second = receiver.at('/t')[1];
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(2);
    // Either secret alone verifies: receivers switch over within the 24 h overlap.
    expect(verify(fresh, second)).toMatchObject({ type: 'webhook.test' });
    expect(verify(w.secret, second)).toMatchObject({ type: 'webhook.test' });
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, second)).toThrow();

    const log = await inject('GET', `/api/v1/webhooks/${w.id}/deliveries?pageIndex=1&recordsPerPage=1`, org.apiKey);
    expect(log.statusCode).toBe(200);
    expect(log.json()).toMatchObject({ total: 2, pageIndex: 1, recordsPerPage: 1 });
    expect(log.json().data[0]).toMatchObject({
      eventType: 'webhook.test',
      status: 'succeeded',
      attemptCount: 1,
      nextAttemptAt: null,
    });
    expect(log.json().data[0].attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, responseBody: 'ok' });
  });

  it('reports a failing answer, keeps the first 4 KB of it; redeliver of a pending delivery is 409, of an unknown one 404', async () => {
    const w = (
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/fail'), eventTypes: ['*'] })
    ).json();
    receiver.script('/fail', answer(500, {}, 'x'.repeat(10_000)));
    const res = await inject('POST', `/api/v1/webhooks/${w.id}/test`, org.apiKey);
    expect(res.json()).toMatchObject({ outcome: 'failed', statusCode: 500 });
    expect(res.json().responseBody).toHaveLength(4096);
    const d = (await inject('GET', `/api/v1/webhooks/${w.id}/deliveries`, org.apiKey)).json().data[0];
    expect(d).toMatchObject({ status: 'failed', finalReason: 'The receiver answered 500.' });
    expect((await inject('POST', `/api/v1/webhooks/${w.id}/deliveries/${d.id}/redeliver`, org.apiKey)).statusCode).toBe(
      202,
    );
    expectProblem(
      await inject('POST', `/api/v1/webhooks/${w.id}/deliveries/${d.id}/redeliver`, org.apiKey),
      409,
      'CONFLICT',
    );
    expectProblem(
      await inject('POST', `/api/v1/webhooks/${w.id}/deliveries/999999/redeliver`, org.apiKey),
      404,
      'NOT_FOUND',
    );
  });

  it('does not follow redirects', async () => {
    const w = (
      await inject('POST', '/api/v1/webhooks', org.apiKey, { url: receiver.url('/moved'), eventTypes: ['*'] })
    ).json();
    receiver.script('/moved', answer(302, { location: receiver.url('/elsewhere') }, ''));
    const res = await inject('POST', `/api/v1/webhooks/${w.id}/test`, org.apiKey);
    expect(res.json()).toMatchObject({ outcome: 'failed', statusCode: 302 });
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });
});
