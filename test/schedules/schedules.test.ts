// Schedules through HTTP: create each type in several zones, read nextRunTime and localSchedule,
// list (plain and paged), get, update (strict body, case-insensitive names and enums, JSON media
// types), enable/disable, delete, encrypted input parameters, access rules, archive, and the
// upcoming fire times. The clock is injected and moved by the tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unseal } from '../../src/lib/crypto.js';
import { CreateScheduleBody, UpdateScheduleBody } from '../../src/schemas/schedules.js';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';

let ctx: TestContext;
let orgA: BootstrapResult;
let orgB: BootstrapResult;
let reader: { userId: number; apiKey: string };
let agentId: number;
let otherAgentId: number;
let privateSpaceId: number;
let privateAgentId: number;
let orgBAgentId: number;
let now = new Date('2026-03-20T12:00:00Z');
const clock = { now: () => new Date(now) };

type Json = Record<string, any>;
const definition = {
  startUrl: 'https://example.com/list',
  list: { selector: '.item', fields: [{ name: 'title', selector: 'h2' }] },
};

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  key: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return ctx.app.inject({
    method,
    url,
    headers: { ...auth(key), ...headers },
    ...(payload !== undefined && { payload: payload as Json }),
  });
}
async function createAgent(key: string, spaceId: number, name: string) {
  const res = await call('POST', '/api/v1/agent', key, { name, spaceId, definition });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}
async function create(body: Json, agent = agentId, key = orgA.apiKey) {
  const res = await call('POST', `/api/v1/agent/${agent}/schedules`, key, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json;
}
const base = (agent = agentId) => `/api/v1/agent/${agent}/schedules`;

const FIELDS = [
  'configId',
  'created',
  'id',
  'inputParameters',
  'isEnabled',
  'isExclusive',
  'isWaitOnFailure',
  'localSchedule',
  'logLevel',
  'logMode',
  'name',
  'nextRunTime',
  'parallelExport',
  'parallelMaxConcurrency',
  'parallelism',
  'proxyPoolId',
  'runEveryCount',
  'runEveryPeriod',
  'schedule',
  'scheduleType',
  'serverGroupId',
  'startTime',
  'timezone',
  'updated',
].sort();

beforeAll(async () => {
  ctx = await createTestContext({ clock });
  orgA = await ctx.bootstrap({ org: 'Org A' });
  orgB = await ctx.bootstrap({ org: 'Org B' });
  agentId = await createAgent(orgA.apiKey, orgA.spaceId, 'Scheduled');
  otherAgentId = await createAgent(orgA.apiKey, orgA.spaceId, 'Other');
  orgBAgentId = await createAgent(orgB.apiKey, orgB.spaceId, 'B agent');
  const space = await call('POST', '/api/v1/spaces', orgA.apiKey, { name: 'Private', isDefaultAccess: false });
  privateSpaceId = space.json().id;
  privateAgentId = await createAgent(orgA.apiKey, privateSpaceId, 'Private agent');
  const user = await call('POST', '/api/v1/users', orgA.apiKey, {
    email: 'reader@example.com',
    name: 'Reader',
    role: 'member',
  });
  const key = await call('POST', `/api/v1/users/${user.json().id}/api-keys`, orgA.apiKey, {});
  reader = { userId: user.json().id, apiKey: key.json().key };
  const m = await call('POST', `/api/v1/spaces/${privateSpaceId}/members`, orgA.apiKey, {
    userId: reader.userId,
    role: 'reader',
  });
  expect(m.statusCode).toBe(200);
});
afterAll(async () => ctx?.close());

describe('create and read', () => {
  it('a CRON Schedule in Europe/Paris: 201 with every field, the expression, a sentence and the next fire time', async () => {
    const s = await create({ name: 'Nightly', scheduleType: 3, cronExpression: '0 3 * * *', timezone: 'Europe/Paris' });
    expect(Object.keys(s).sort()).toEqual(FIELDS);
    expect(s).toMatchObject({
      configId: agentId,
      name: 'Nightly',
      schedule: '0 3 * * *',
      localSchedule: 'At 03:00 (Europe/Paris)',
      timezone: 'Europe/Paris',
      nextRunTime: '2026-03-21T02:00:00.000Z',
      startTime: null,
      scheduleType: 3,
      isEnabled: true,
      parallelExport: 'Combined',
      logLevel: 'Info',
      logMode: 'Text',
      isExclusive: true,
      isWaitOnFailure: false,
      inputParameters: null,
    });
    expect(typeof s.id).toBe('number');
    const got = await call('GET', `${base()}/${s.id}`, orgA.apiKey);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(s);
  });

  it('the next fire time follows daylight saving (spring-forward gap in Paris)', async () => {
    const s = await create({ name: 'Gap', scheduleType: 3, cronExpression: '30 2 29 3 *', timezone: 'Europe/Paris' });
    expect(s.nextRunTime).toBe('2026-03-29T01:00:00.000Z');
  });

  it('a RunEvery Schedule in America/New_York without startTime starts one period from now', async () => {
    const s = await create({
      name: 'Every 2h',
      scheduleType: 2,
      runEveryCount: 2,
      runEveryPeriod: 2,
      timezone: 'America/New_York',
    });
    expect(s).toMatchObject({
      startTime: '2026-03-20T14:00:00.000Z',
      nextRunTime: '2026-03-20T14:00:00.000Z',
      schedule: 'R/2026-03-20T14:00:00.000Z/PT2H',
      localSchedule: 'Every 2 hours, starting 2026-03-20 10:00 (America/New_York)',
      runEveryCount: 2,
      runEveryPeriod: 2,
    });
  });

  it('a monthly RunEvery anchored at a given startTime', async () => {
    const s = await create({
      name: 'Monthly',
      scheduleType: 2,
      runEveryCount: 1,
      runEveryPeriod: 5,
      startTime: '2026-03-31T08:00:00Z',
      timezone: 'Australia/Lord_Howe',
    });
    expect(s).toMatchObject({ nextRunTime: '2026-03-31T08:00:00.000Z', schedule: 'R/2026-03-31T08:00:00.000Z/P1M' });
  });

  it('a RunOnce Schedule in Australia/Lord_Howe', async () => {
    const s = await create({
      name: 'Once',
      scheduleType: 1,
      startTime: '2026-03-21T00:00:00Z',
      timezone: 'Australia/Lord_Howe',
    });
    expect(s).toMatchObject({
      nextRunTime: '2026-03-21T00:00:00.000Z',
      schedule: '2026-03-21T00:00:00.000Z',
      localSchedule: 'Once, at 2026-03-21 11:00 (Australia/Lord_Howe)',
    });
  });

  it("the public client's PascalCase body and case-insensitive enums", async () => {
    const s = await create({
      Name: 'Pascal',
      ScheduleType: 3,
      CronExpression: '*/15 * * * *',
      IsEnabled: false,
      Parallelism: 2,
      LogLevel: 'warning',
      LogMode: 'textandhtml',
      ParallelExport: 'separate',
    });
    expect(s).toMatchObject({
      name: 'Pascal',
      isEnabled: false,
      nextRunTime: null,
      parallelism: 2,
      logLevel: 'Warning',
      logMode: 'TextAndHtml',
      parallelExport: 'Separated',
    });
  });

  it('lists as a plain array, or paged with totalRecordCount', async () => {
    const all = await call('GET', base(), orgA.apiKey);
    expect(all.statusCode).toBe(200);
    const list = all.json() as Json[];
    expect(list.length).toBeGreaterThanOrEqual(6);
    expect(list.every((s) => s.configId === agentId)).toBe(true);
    const page = await call('GET', `${base()}?pageIndex=2&recordsPerPage=2`, orgA.apiKey);
    expect(page.json()).toEqual({ schedules: list.slice(2, 4), totalRecordCount: list.length });
    expectBadRequest(await call('GET', `${base()}?pageIndex=0&recordsPerPage=2`, orgA.apiKey), 'VALIDATION_FAILED');
    expect((await call('GET', base(otherAgentId), orgA.apiKey)).json()).toEqual([]);
  });
});

describe('the OpenAPI body examples', () => {
  it('are accepted by the server', async () => {
    for (const example of CreateScheduleBody.examples as Json[]) await create(example);
    const s = await create({ name: 'Example target', scheduleType: 0 });
    for (const example of UpdateScheduleBody.examples as Json[]) {
      const res = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, example);
      expect(res.statusCode, res.body).toBe(200);
    }
  });
});

describe('validation (400 BadRequestError with errorCode)', () => {
  const cases: Array<[string, Json, string]> = [
    ['cron with 3 fields', { scheduleType: 3, cronExpression: '* * *' }, 'SCHEDULE_INVALID_CRON'],
    ['cron with 7 fields', { scheduleType: 3, cronExpression: '0 0 0 * * * 2026' }, 'SCHEDULE_INVALID_CRON'],
    ['cron out of range', { scheduleType: 3, cronExpression: '61 * * * *' }, 'SCHEDULE_INVALID_CRON'],
    ['CRON without cronExpression', { scheduleType: 3 }, 'SCHEDULE_MISSING_FIELD'],
    [
      'unknown zone',
      { scheduleType: 3, cronExpression: '0 3 * * *', timezone: 'Europe/Atlantis' },
      'SCHEDULE_INVALID_TIMEZONE',
    ],
    ['RunOnce without startTime', { scheduleType: 1 }, 'SCHEDULE_MISSING_FIELD'],
    ['RunOnce 30 s ahead', { scheduleType: 1, startTime: '2026-03-20T12:00:30Z' }, 'SCHEDULE_START_TIME_TOO_SOON'],
    ['RunOnce in the past', { scheduleType: 1, startTime: '2026-03-19T12:00:00Z' }, 'SCHEDULE_START_TIME_TOO_SOON'],
    [
      'RunEvery with a past startTime',
      { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 1, startTime: '2026-03-20T11:00:00Z' },
      'SCHEDULE_START_TIME_IN_PAST',
    ],
    ['RunEvery without its count', { scheduleType: 2, runEveryPeriod: 1 }, 'SCHEDULE_MISSING_FIELD'],
    ['runEveryCount 0', { scheduleType: 2, runEveryCount: 0, runEveryPeriod: 1 }, 'VALIDATION_FAILED'],
    ['runEveryPeriod 6', { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 6 }, 'VALIDATION_FAILED'],
    ['runEveryPeriod 0', { scheduleType: 2, runEveryCount: 1, runEveryPeriod: 0 }, 'VALIDATION_FAILED'],
    ['an unknown property', { scheduleType: 3, cronExpression: '0 3 * * *', color: 'red' }, 'VALIDATION_FAILED'],
    ['scheduleType 4', { scheduleType: 4 }, 'VALIDATION_FAILED'],
    ['malformed inputParameters', { scheduleType: 0, inputParameters: '{not json' }, 'VALIDATION_FAILED'],
  ];
  for (const [what, body, code] of cases) {
    it(`create: ${what} -> ${code}`, async () => {
      expectBadRequest(await call('POST', base(), orgA.apiKey, { name: 'x', ...body }), code);
    });
  }

  it('update: the same rules apply, and a valid change is saved', async () => {
    const s = await create({ name: 'To update', scheduleType: 3, cronExpression: '0 3 * * *' });
    expectBadRequest(
      await call('PUT', `${base()}/${s.id}`, orgA.apiKey, { cronExpression: '0 3 * *' }),
      'SCHEDULE_INVALID_CRON',
    );
    expectBadRequest(
      await call('PUT', `${base()}/${s.id}`, orgA.apiKey, { timezone: 'Nowhere/Special' }),
      'SCHEDULE_INVALID_TIMEZONE',
    );
    expectBadRequest(
      await call('PUT', `${base()}/${s.id}`, orgA.apiKey, { scheduleType: 1 }),
      'SCHEDULE_MISSING_FIELD',
    );
    expectBadRequest(await call('PUT', `${base()}/${s.id}`, orgA.apiKey, { Name: 'x', Bogus: 1 }), 'VALIDATION_FAILED');
    expect((await call('GET', `${base()}/${s.id}`, orgA.apiKey)).json()).toEqual(s);
  });
});

describe('update', () => {
  it('keeps what is left out, applies names and enums case-insensitively, and recomputes nextRunTime', async () => {
    const s = await create({
      name: 'Before',
      scheduleType: 3,
      cronExpression: '0 3 * * *',
      timezone: 'UTC',
      parallelism: 3,
    });
    const res = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, {
      NAME: 'After',
      cronexpression: '30 6 * * 1-5',
      TimeZone: 'America/New_York',
      LOGMODE: 'TEXTANDHTML',
      isWaitOnFailure: true,
      serverGroupId: 7,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: s.id,
      name: 'After',
      schedule: '30 6 * * 1-5',
      localSchedule: 'At 06:30, Monday through Friday (America/New_York)',
      timezone: 'America/New_York',
      nextRunTime: '2026-03-23T10:30:00.000Z',
      parallelism: 3,
      logMode: 'TextAndHtml',
      isWaitOnFailure: true,
      serverGroupId: 7,
    });
  });

  it('accepts text/json and application/*+json bodies', async () => {
    const s = await create({ name: 'Media', scheduleType: 3, cronExpression: '0 3 * * *' });
    for (const type of ['text/json', 'application/merge-patch+json', 'application/json; charset=utf-8']) {
      const res = await ctx.app.inject({
        method: 'PUT',
        url: `${base()}/${s.id}`,
        headers: { ...auth(orgA.apiKey), 'content-type': type },
        payload: JSON.stringify({ name: type }),
      });
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
      expect(res.json().name).toBe(type);
    }
  });

  it('switching a CRON Schedule to RunEvery anchors it one period from now', async () => {
    const s = await create({ name: 'Switch', scheduleType: 3, cronExpression: '0 3 * * *' });
    const res = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, {
      scheduleType: 2,
      runEveryCount: 30,
      runEveryPeriod: 1,
    });
    expect(res.json()).toMatchObject({
      scheduleType: 2,
      startTime: '2026-03-20T12:30:00.000Z',
      nextRunTime: '2026-03-20T12:30:00.000Z',
    });
  });
});

describe('enable, disable, delete', () => {
  it('disable clears nextRunTime; enable computes it from now', async () => {
    const s = await create({ name: 'Toggle', scheduleType: 3, cronExpression: '0 * * * *' });
    expect(s.nextRunTime).toBe('2026-03-20T13:00:00.000Z');
    const off = await call('POST', `${base()}/${s.id}/disable`, orgA.apiKey);
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ isEnabled: false, nextRunTime: null });
    now = new Date('2026-03-20T15:10:00Z');
    try {
      const on = await call('POST', `${base()}/${s.id}/enable`, orgA.apiKey, undefined, {
        'content-type': 'application/json',
      });
      expect(on.statusCode).toBe(200);
      expect(on.json()).toMatchObject({ isEnabled: true, nextRunTime: '2026-03-20T16:00:00.000Z' });
      // Enabling twice changes nothing.
      expect((await call('POST', `${base()}/${s.id}/enable`, orgA.apiKey)).json()).toEqual(on.json());
    } finally {
      now = new Date('2026-03-20T12:00:00Z');
    }
  });

  it('enabling a RunOnce whose time has passed asks for a new startTime', async () => {
    const s = await create({
      name: 'Once later',
      scheduleType: 1,
      startTime: '2026-03-20T13:00:00Z',
      isEnabled: false,
    });
    now = new Date('2026-03-20T14:00:00Z');
    try {
      expectBadRequest(await call('POST', `${base()}/${s.id}/enable`, orgA.apiKey), 'SCHEDULE_START_TIME_TOO_SOON');
      const moved = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, {
        startTime: '2026-03-21T09:00:00Z',
        isEnabled: true,
      });
      expect(moved.json()).toMatchObject({ isEnabled: true, nextRunTime: '2026-03-21T09:00:00.000Z' });
    } finally {
      now = new Date('2026-03-20T12:00:00Z');
    }
  });

  it('delete answers 204, then the Schedule is gone', async () => {
    const s = await create({ name: 'Doomed', scheduleType: 0 });
    const del = await call('DELETE', `${base()}/${s.id}`, orgA.apiKey);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectProblem(await call('GET', `${base()}/${s.id}`, orgA.apiKey), 404, 'NOT_FOUND');
    expectProblem(await call('DELETE', `${base()}/${s.id}`, orgA.apiKey), 404, 'NOT_FOUND');
  });
});

describe('encrypted input parameters', () => {
  it('seals ?name at rest, never returns it, returns clear values as stored; ?name wins over name', async () => {
    const s = await create({
      name: 'Secrets',
      scheduleType: 0,
      inputParameters: JSON.stringify({ query: 'shoes', '?token': 'hunter2', token: 'plain-loses' }),
    });
    expect(JSON.parse(s.inputParameters)).toEqual({ query: 'shoes', '?token': '********' });
    expect(JSON.stringify(s)).not.toContain('hunter2');
    expect(JSON.stringify(s)).not.toContain('plain-loses');
    const row = await ctx.db.schedule.findUniqueOrThrow({ where: { id: BigInt(s.id) } });
    expect(row.inputParameters).not.toContain('hunter2');
    const stored = JSON.parse(row.inputParameters!);
    expect(unseal(ctx.config.encryptionKey, stored['?token'])).toBe('hunter2');
    for (const res of [await call('GET', base(), orgA.apiKey), await call('GET', `${base()}/${s.id}`, orgA.apiKey)])
      expect(res.body).not.toContain('hunter2');

    // Sent back masked (a read-modify-write client), the secret is kept; a new clear value is stored as sent.
    const res = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, {
      inputParameters: JSON.stringify({ query: 'boots', '?token': '********' }),
    });
    expect(JSON.parse(res.json().inputParameters)).toEqual({ query: 'boots', '?token': '********' });
    const after = JSON.parse(
      (await ctx.db.schedule.findUniqueOrThrow({ where: { id: BigInt(s.id) } })).inputParameters!,
    );
    expect(unseal(ctx.config.encryptionKey, after['?token'])).toBe('hunter2');
    // A parameter sent without the prefix is clear text, even if it was encrypted before (rule 2).
    const clear = await call('PUT', `${base()}/${s.id}`, orgA.apiKey, {
      inputParameters: JSON.stringify({ token: 'now-visible' }),
    });
    expect(JSON.parse(clear.json().inputParameters)).toEqual({ token: 'now-visible' });
  });
});

describe('access', () => {
  it("another organization's Agent or Schedule answers 404; a Schedule of another Agent 404; unknown 404", async () => {
    const s = await create({ name: 'Mine', scheduleType: 0 });
    for (const [method, url] of [
      ['GET', `${base()}/${s.id}`],
      ['PUT', `${base()}/${s.id}`],
      ['DELETE', `${base()}/${s.id}`],
      ['POST', `${base()}/${s.id}/enable`],
      ['POST', `${base()}/${s.id}/disable`],
      ['GET', base()],
      ['POST', base()],
    ] as const) {
      expectProblem(
        await call(method, url, orgB.apiKey, method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined),
        404,
        'NOT_FOUND',
      );
    }
    expectProblem(await call('GET', `${base(otherAgentId)}/${s.id}`, orgA.apiKey), 404, 'NOT_FOUND');
    expectProblem(await call('PUT', `${base(otherAgentId)}/${s.id}`, orgA.apiKey, { name: 'x' }), 404, 'NOT_FOUND');
    expectProblem(await call('GET', `${base()}/987654321`, orgA.apiKey), 404, 'NOT_FOUND');
    expectProblem(await call('PUT', `${base(999999)}/${s.id}`, orgA.apiKey, { name: 'x' }), 404, 'NOT_FOUND');
    expectProblem(await call('GET', `${base(orgBAgentId)}`, orgA.apiKey), 404, 'NOT_FOUND');
  });

  it('scheduleId is an int64: any id in its range that names no Schedule answers 404; beyond it, or not a positive integer, 400', async () => {
    for (const id of ['2147483648', '9007199254740000', '9007199254740993', '9223372036854775807']) {
      for (const [method, url] of [
        ['GET', `${base()}/${id}`],
        ['PUT', `${base()}/${id}`],
        ['DELETE', `${base()}/${id}`],
        ['POST', `${base()}/${id}/enable`],
        ['POST', `${base()}/${id}/disable`],
      ] as const) {
        const problem = expectProblem(
          await call(method, url, orgA.apiKey, method === 'PUT' ? { name: 'x' } : undefined),
          404,
          'NOT_FOUND',
        );
        expect(problem.detail, `${method} ${url}`).toMatch(/^Schedule \d+ of agent \d+ was not found\.$/);
      }
    }
    for (const id of ['99999999999999999999', '0', '-1', '1.5']) {
      expectBadRequest(await call('GET', `${base()}/${id}`, orgA.apiKey), 'VALIDATION_FAILED');
    }
  });

  it('a reader may read but not write (403)', async () => {
    const s = await create({ name: 'Private one', scheduleType: 3, cronExpression: '0 3 * * *' }, privateAgentId);
    expect((await call('GET', base(privateAgentId), reader.apiKey)).statusCode).toBe(200);
    expect((await call('GET', `${base(privateAgentId)}/${s.id}`, reader.apiKey)).json()).toEqual(s);
    expectProblem(
      await call('POST', base(privateAgentId), reader.apiKey, { name: 'x', scheduleType: 0 }),
      403,
      'FORBIDDEN',
    );
    expectProblem(await call('PUT', `${base(privateAgentId)}/${s.id}`, reader.apiKey, { name: 'x' }), 403, 'FORBIDDEN');
    expectProblem(await call('DELETE', `${base(privateAgentId)}/${s.id}`, reader.apiKey), 403, 'FORBIDDEN');
    expectProblem(await call('POST', `${base(privateAgentId)}/${s.id}/enable`, reader.apiKey), 403, 'FORBIDDEN');
    expectProblem(await call('POST', `${base(privateAgentId)}/${s.id}/disable`, reader.apiKey), 403, 'FORBIDDEN');
  });

  it('without credentials: 401', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: base() });
    expectProblem(res, 401, 'UNAUTHENTICATED');
  });
});

describe('archived Agent', () => {
  it('archiving disables the Schedules, writes answer 400 AGENT_ARCHIVED, unarchiving leaves them disabled', async () => {
    const agent = await createAgent(orgA.apiKey, orgA.spaceId, 'To archive');
    const s = await create({ name: 'Hourly', scheduleType: 3, cronExpression: '0 * * * *' }, agent);
    expect((await call('POST', `/api/v1/agent/${agent}/archive`, orgA.apiKey)).statusCode).toBe(200);
    expect((await call('GET', `${base(agent)}/${s.id}`, orgA.apiKey)).json()).toMatchObject({ isEnabled: false });
    expectBadRequest(await call('PUT', `${base(agent)}/${s.id}`, orgA.apiKey, { name: 'x' }), 'AGENT_ARCHIVED');
    expectBadRequest(await call('POST', base(agent), orgA.apiKey, { name: 'x', scheduleType: 0 }), 'AGENT_ARCHIVED');
    expectBadRequest(await call('POST', `${base(agent)}/${s.id}/enable`, orgA.apiKey), 'AGENT_ARCHIVED');
    expect((await call('POST', `/api/v1/agent/${agent}/unarchive`, orgA.apiKey)).statusCode).toBe(200);
    expect((await call('GET', `${base(agent)}/${s.id}`, orgA.apiKey)).json()).toMatchObject({
      isEnabled: false,
      nextRunTime: null,
    });
    const on = await call('POST', `${base(agent)}/${s.id}/enable`, orgA.apiKey);
    expect(on.json()).toMatchObject({ isEnabled: true, nextRunTime: '2026-03-20T13:00:00.000Z' });
  });
});

describe('GET /api/v1/analytics/schedules/upcoming', () => {
  it('one entry per fire time in the next 24 hours by default, earliest first, only readable Agents', async () => {
    const agent = await createAgent(orgB.apiKey, orgB.spaceId, 'Upcoming');
    const every6h = await create(
      { name: '6h', scheduleType: 2, runEveryCount: 6, runEveryPeriod: 2 },
      agent,
      orgB.apiKey,
    );
    const daily = await create(
      { name: 'daily', scheduleType: 3, cronExpression: '0 9 * * *', timezone: 'Europe/Paris' },
      agent,
      orgB.apiKey,
    );
    await create({ name: 'off', scheduleType: 3, cronExpression: '* * * * *', isEnabled: false }, agent, orgB.apiKey);
    const res = await call('GET', '/api/v1/analytics/schedules/upcoming', orgB.apiKey);
    expect(res.statusCode).toBe(200);
    const entry = (s: Json, at: string) => ({
      scheduleId: s.id,
      agentId: agent,
      agentName: 'Upcoming',
      scheduleName: s.name,
      nextRunTime: at,
      timezone: s.timezone,
      isEnabled: true,
    });
    expect(res.json()).toEqual([
      entry(every6h, '2026-03-20T18:00:00.000Z'),
      entry(every6h, '2026-03-21T00:00:00.000Z'),
      entry(every6h, '2026-03-21T06:00:00.000Z'),
      entry(daily, '2026-03-21T08:00:00.000Z'),
      entry(every6h, '2026-03-21T12:00:00.000Z'),
    ]);
    const range = await call(
      'GET',
      '/api/v1/analytics/schedules/upcoming?startDate=2026-03-22&endDate=2026-03-22T12:00:00Z',
      orgB.apiKey,
    );
    expect(range.json().map((e: Json) => e.nextRunTime)).toEqual([
      '2026-03-22T00:00:00.000Z',
      '2026-03-22T06:00:00.000Z',
      '2026-03-22T08:00:00.000Z',
      '2026-03-22T12:00:00.000Z',
    ]);
  });

  it('at most 1000 entries', async () => {
    const agent = await createAgent(orgB.apiKey, orgB.spaceId, 'Busy');
    await create({ name: 'every minute', scheduleType: 3, cronExpression: '* * * * *' }, agent, orgB.apiKey);
    const res = await call('GET', '/api/v1/analytics/schedules/upcoming', orgB.apiKey);
    const entries = res.json() as Json[];
    expect(entries).toHaveLength(1000);
    expect(entries[0].nextRunTime).toBe('2026-03-20T12:01:00.000Z');
    // 998 minutes of this Schedule and two fires of the 6-hourly one (18:00, 00:00) come first.
    expect(entries[999].nextRunTime).toBe('2026-03-21T04:38:00.000Z');
    expect(entries.filter((e) => e.scheduleName === '6h')).toHaveLength(2);
  });

  it('a reader sees only the Schedules of Spaces they can read; bad dates are 400', async () => {
    const user = await call('POST', '/api/v1/users', orgA.apiKey, {
      email: 'outsider@example.com',
      name: 'Outsider',
      role: 'member',
    });
    const outsider = (await call('POST', `/api/v1/users/${user.json().id}/api-keys`, orgA.apiKey, {})).json()
      .key as string;
    const agentsSeenBy = async (key: string) => {
      const res = await call('GET', '/api/v1/analytics/schedules/upcoming?endDate=2026-03-22', key);
      expect(res.statusCode).toBe(200);
      return new Set((res.json() as Json[]).map((e) => e.agentId));
    };
    const byReader = await agentsSeenBy(reader.apiKey);
    expect(byReader.has(privateAgentId)).toBe(true);
    expect(byReader.has(agentId)).toBe(true);
    expect(byReader.has(orgBAgentId)).toBe(false);
    const byOutsider = await agentsSeenBy(outsider);
    expect(byOutsider.has(privateAgentId)).toBe(false);
    expect(byOutsider.has(agentId)).toBe(true);
    expectBadRequest(
      await call('GET', '/api/v1/analytics/schedules/upcoming?startDate=yesterday', orgA.apiKey),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await call('GET', '/api/v1/analytics/schedules/upcoming?startDate=2026-03-22&endDate=2026-03-21', orgA.apiKey),
      'VALIDATION_FAILED',
    );
  });
});
