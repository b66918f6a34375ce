// The credits.low threshold through the HTTP API: the default from CREDITS_LOW_THRESHOLD, an
// organization's own value and its reset, admin-only access, and each documented error.
// (That the event is sent once per crossing is tested in test/webhooks/events.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let memberKey: string;
const url = '/api/v1/billing/low-credits-alert';

const inject = (method: 'GET' | 'PUT' | 'POST', path: string, key: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url: path,
    headers: auth(key),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

beforeAll(async () => {
  ctx = await createTestContext({ env: { CREDITS_LOW_THRESHOLD: '12.5' } });
  org = await ctx.bootstrap();
  const user = await inject('POST', '/api/v1/users', org.apiKey, { email: 'member@example.com', role: 'member' });
  memberKey = (await inject('POST', `/api/v1/users/${user.json().id}/api-keys`, org.apiKey, {})).json().key;
});
afterAll(async () => ctx?.close());

describe('the low-credits threshold', () => {
  it('starts at the configured default, takes an own value, and null resets it', async () => {
    const initial = await inject('GET', url, org.apiKey);
    expect(initial.statusCode).toBe(200);
    expect(initial.json()).toEqual({ threshold: 12.5, isDefault: true, organizationId: org.organizationId });
    const set = await inject('PUT', url, org.apiKey, { threshold: 250.125 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ threshold: 250.125, isDefault: false, organizationId: org.organizationId });
    expect((await inject('GET', url, org.apiKey)).json()).toEqual(set.json());
    expect((await inject('PUT', url, org.apiKey, { threshold: 0 })).json()).toMatchObject({
      threshold: 0,
      isDefault: false,
    });
    expect((await inject('PUT', url, org.apiKey, { threshold: null })).json()).toEqual(initial.json());
  });

  it('answers 400 for a negative value, more than 6 decimals, a string or an unknown field', async () => {
    expectBadRequest(await inject('PUT', url, org.apiKey, { threshold: -1 }), 'VALIDATION_FAILED');
    expectBadRequest(await inject('PUT', url, org.apiKey, { threshold: 0.1234567 }), 'VALIDATION_FAILED');
    expectBadRequest(await inject('PUT', url, org.apiKey, { threshold: 'ten' }), 'VALIDATION_FAILED');
    expectBadRequest(await inject('PUT', url, org.apiKey, { threshold: 1, extra: true }), 'VALIDATION_FAILED');
    expectBadRequest(await inject('PUT', url, org.apiKey, {}), 'VALIDATION_FAILED');
    expect((await inject('GET', url, org.apiKey)).json().isDefault).toBe(true);
  });

  it('members get 403, anonymous callers 401', async () => {
    expectProblem(await inject('GET', url, memberKey), 403, 'FORBIDDEN');
    expectProblem(await inject('PUT', url, memberKey, { threshold: 1 }), 403, 'FORBIDDEN');
    expectProblem(await ctx.app.inject({ method: 'GET', url }), 401, 'UNAUTHENTICATED');
    expect((await inject('GET', url, org.apiKey)).json().isDefault).toBe(true);
  });
});
