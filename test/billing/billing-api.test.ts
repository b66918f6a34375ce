// The billing endpoints through HTTP: per-Agent costs (whole days from the rollup, partial days from
// the usage records), breakdown by period, per-Run costs, sorting, paging and filters, access
// (readable Agents only, another organization sees nothing), and every documented error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { endRun, INPUTS_ONLY_PRICES, queuedRun } from '../helpers/billing.js';
import { createAgent } from '../helpers/runs.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Five days ago, at midnight UTC: every usage below lies in the past.
const D0 = new Date(Math.floor(Date.now() / DAY) * DAY - 5 * DAY);
const at = (ms: number) => new Date(D0.getTime() + ms);
const day = (n: number) =>
  at(n * DAY)
    .toISOString()
    .slice(0, 10);

let ctx: TestContext;
let orgA: Awaited<ReturnType<TestContext['bootstrap']>>;
let orgB: Awaited<ReturnType<TestContext['bootstrap']>>;
let member: string;
const agents = {} as Record<'alpha' | 'bravo' | 'charlie', number>;
const runs = {} as Record<'a1' | 'a2' | 'a3', number>;

const get = (url: string, key: string | null = orgA.apiKey) =>
  ctx.app.inject({ method: 'GET', url, headers: key ? auth(key) : {} });

async function meter(agentId: number, time: Date, inputCount: number, extra: { serverHours?: number } = {}) {
  const run = await queuedRun(ctx.db, orgA.organizationId, agentId, time);
  const clock: Clock = { now: () => time };
  const prices = extra.serverHours ? { ...INPUTS_ONLY_PRICES, PRICE_SERVER_TIME_HOUR: '2' } : INPUTS_ONLY_PRICES;
  const patch = extra.serverHours
    ? { inputCount, startTime: new Date(time.getTime() - extra.serverHours * HOUR), endTime: time }
    : { inputCount };
  expect(await endRun(ctx.db, ctx.env, clock, run.id, patch, prices)).toEqual([]);
  return run.id;
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgA = await ctx.bootstrap();
  orgB = await ctx.bootstrap();
  const post = (url: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url, headers: auth(orgA.apiKey), payload });
  const privateSpace = (await post('/api/v1/spaces', { name: 'Private', isDefaultAccess: false })).json();
  const user = (await post('/api/v1/users', { email: 'billing-member@example.com', name: 'Member' })).json();
  member = (await post(`/api/v1/users/${user.id}/api-keys`, {})).json().key;
  const def = { startUrl: 'http://127.0.0.1:1/', list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] } };
  agents.alpha = (await createAgent(ctx.app, orgA.apiKey, orgA.spaceId, def, 'Alpha widget')).id;
  agents.bravo = (await createAgent(ctx.app, orgA.apiKey, orgA.spaceId, def, 'Bravo')).id;
  agents.charlie = (await createAgent(ctx.app, orgA.apiKey, privateSpace.id, def, 'Charlie private')).id;

  runs.a1 = await meter(agents.alpha, at(10 * HOUR), 5);
  // 7 inputs and 1.5 hours of Server Time at 2 credits an hour: 10.
  runs.a2 = await meter(agents.alpha, at(DAY + 2 * HOUR), 7, { serverHours: 1.5 });
  runs.a3 = await meter(agents.alpha, at(2 * DAY + 23 * HOUR), 11);
  await meter(agents.bravo, at(DAY + 12 * HOUR), 3);
  await meter(agents.bravo, at(3 * DAY + 30 * 60_000), 2);
  await meter(agents.bravo, at(3 * DAY + 2 * HOUR), 100);
  await meter(agents.charlie, at(DAY + HOUR), 13);
});
afterAll(() => ctx?.close());

const entry = (name: 'alpha' | 'bravo' | 'charlie', cost: number, spaceId?: number) => ({
  agentId: agents[name],
  agentName: { alpha: 'Alpha widget', bravo: 'Bravo', charlie: 'Charlie private' }[name],
  cost,
  spaceId: spaceId ?? expect.any(Number),
});

describe('GET /api/v1/billing/agents', () => {
  const range = () => `startDate=${day(0)}&endDate=${day(2)}`;

  it("sums each Agent's cost over whole days, sorted by name by default, with the totals of all matches", async () => {
    const res = await get(`/api/v1/billing/agents?${range()}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      agents: [entry('alpha', 26, orgA.spaceId), entry('bravo', 3, orgA.spaceId), entry('charlie', 13)],
      totalRecordCount: 3,
      totalCost: 42,
      startDate: `${day(0)}T00:00:00.000Z`,
      endDate: `${day(2)}T23:59:59.999Z`,
    });
  });

  it('sorts by cost, pages (a page past the end still carries the totals), filters by name and usage type', async () => {
    const byCost = (await get(`/api/v1/billing/agents?${range()}&sortColumn=COST&sortOrder=1`)).json();
    expect(byCost.agents.map((a: { cost: number }) => a.cost)).toEqual([26, 13, 3]);
    const page2 = (
      await get(`/api/v1/billing/agents?${range()}&sortColumn=cost&sortOrder=1&pageIndex=2&recordsPerPage=1`)
    ).json();
    expect(page2).toMatchObject({ agents: [entry('charlie', 13)], totalRecordCount: 3, totalCost: 42 });
    const past = (await get(`/api/v1/billing/agents?${range()}&pageIndex=9&recordsPerPage=5000`)).json();
    expect(past).toMatchObject({ agents: [], totalRecordCount: 3, totalCost: 42 });
    const named = (await get(`/api/v1/billing/agents?${range()}&name=WIDGET`)).json();
    expect(named).toMatchObject({ agents: [entry('alpha', 26)], totalRecordCount: 1, totalCost: 26 });
    const literal = (await get(`/api/v1/billing/agents?${range()}&name=%25`)).json();
    expect(literal).toMatchObject({ agents: [], totalRecordCount: 0, totalCost: 0 });
    const serverTime = (
      await get(`/api/v1/billing/agents?${range()}&usageTypes=${encodeURIComponent('Server Time, export gb')}`)
    ).json();
    expect(serverTime).toMatchObject({ agents: [entry('alpha', 3)], totalRecordCount: 1, totalCost: 3 });
  });

  it('answers partial days exactly (edges from the usage records, whole days from the rollup)', async () => {
    const start = at(DAY + 90 * 60_000).toISOString();
    const end = at(3 * DAY + HOUR).toISOString();
    const res = (await get(`/api/v1/billing/agents?startDate=${start}&endDate=${end}`)).json();
    expect(res).toEqual({
      agents: [entry('alpha', 21), entry('bravo', 5)],
      totalRecordCount: 2,
      totalCost: 26,
      startDate: start,
      endDate: end,
    });
    // A range inside one day, its end included to the millisecond.
    const inside = (
      await get(
        `/api/v1/billing/agents?startDate=${at(2 * DAY + 22 * HOUR).toISOString()}&endDate=${at(2 * DAY + 23 * HOUR).toISOString()}`,
      )
    ).json();
    expect(inside).toMatchObject({ agents: [entry('alpha', 11)], totalCost: 11 });
  });

  it('shows a member only the Agents of Spaces they can read', async () => {
    const res = (await get(`/api/v1/billing/agents?${range()}`, member)).json();
    expect(res).toMatchObject({ agents: [entry('alpha', 26), entry('bravo', 3)], totalRecordCount: 2, totalCost: 29 });
  });
});

describe('GET /api/v1/billing/agents/{agentId}', () => {
  it("breaks an Agent's cost down per usage type and day", async () => {
    const res = await get(`/api/v1/billing/agents/${agents.alpha}?startDate=${day(0)}&endDate=${day(2)}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      agentId: agents.alpha,
      agentName: 'Alpha widget',
      labels: [day(0), day(1), day(2)],
      usageTypes: [
        { type: 'Server Time', data: [0, 3, 0], totalCost: 3 },
        { type: 'Export GB', data: [0, 0, 0], totalCost: 0 },
        { type: 'Agent Inputs', data: [5, 7, 11], totalCost: 23 },
        { type: 'Proxy Data', data: [0, 0, 0], totalCost: 0 },
        { type: 'Export CPM', data: [0, 0, 0], totalCost: 0 },
      ],
      totalCost: 26,
      startDate: `${day(0)}T00:00:00.000Z`,
      endDate: `${day(2)}T23:59:59.999Z`,
    });
  });

  it('groups by ISO week (labelled by Monday) and by month', async () => {
    for (const unit of ['week', 'month'] as const) {
      const res = (
        await get(
          `/api/v1/billing/agents/${agents.alpha}?startDate=${day(0)}&endDate=${day(2)}&timeUnit=${unit}&usageTypes=Agent%20Inputs`,
        )
      ).json();
      const expected = [
        ...new Set(
          [0, 1, 2].map((n) => {
            const d = at(n * DAY);
            return unit === 'month'
              ? d.toISOString().slice(0, 7)
              : new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
          }),
        ),
      ];
      expect(res.labels).toEqual(expected);
      expect(res.usageTypes).toHaveLength(1);
      expect(res.usageTypes[0].data.reduce((s: number, v: number) => s + v, 0)).toBe(23);
      expect(res.totalCost).toBe(23);
    }
  });
});

describe('GET /api/v1/billing/agents/{agentId}/runs', () => {
  const url = (q = '') => `/api/v1/billing/agents/${agents.alpha}/runs?startDate=${day(0)}&endDate=${day(2)}${q}`;

  it("lists each Run's cost, newest first by default, sorted and paged on request", async () => {
    const res = await get(url());
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      totalRecordCount: 3,
      totalCost: 26,
      agentId: agents.alpha,
      agentName: 'Alpha widget',
    });
    expect(body.runs.map((r: { runId: number; cost: number }) => [r.runId, r.cost])).toEqual([
      [runs.a3, 11],
      [runs.a2, 10],
      [runs.a1, 5],
    ]);
    expect(body.runs[1]).toEqual({
      runId: runs.a2,
      date: at(DAY + 2 * HOUR).toISOString(),
      startTime: at(DAY + 30 * 60_000).toISOString(),
      endTime: at(DAY + 2 * HOUR).toISOString(),
      cost: 10,
      billingType: 'Credits',
    });
    const byCost = (await get(url('&sortColumn=cost&sortOrder=0'))).json();
    expect(byCost.runs.map((r: { cost: number }) => r.cost)).toEqual([5, 10, 11]);
    const byDuration = (await get(url('&sortColumn=duration&sortOrder=1&recordsPerPage=1'))).json();
    expect(byDuration).toMatchObject({ runs: [{ runId: runs.a2 }], totalRecordCount: 3, totalCost: 26 });
    const page2 = (await get(url('&pageIndex=2&recordsPerPage=2'))).json();
    expect(page2.runs.map((r: { runId: number }) => r.runId)).toEqual([runs.a1]);
    const serverTime = (await get(url('&usageTypes=Server%20Time'))).json();
    expect(serverTime).toMatchObject({ runs: [{ runId: runs.a2, cost: 3 }], totalRecordCount: 1, totalCost: 3 });
  });
});

describe('GET /api/v1/billing/spending?groupBy=day', () => {
  it('answers the credits spent per UTC day of the range, oldest first, adding up to the total', async () => {
    const res = await get(`/api/v1/billing/spending?startDate=${day(-1)}&endDate=${day(4)}&groupBy=day`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s.days).toEqual([
      { date: day(-1), totalSpent: 0 },
      { date: day(0), totalSpent: 5 },
      { date: day(1), totalSpent: 10 + 3 + 13 },
      { date: day(2), totalSpent: 11 },
      { date: day(3), totalSpent: 2 + 100 },
      { date: day(4), totalSpent: 0 },
    ]);
    expect(s.totalSpent).toBe(144);
    // Without the parameter the answer is as before.
    expect((await get(`/api/v1/billing/spending?startDate=${day(0)}&endDate=${day(3)}`)).json()).not.toHaveProperty(
      'days',
    );
  });

  it('400 VALIDATION_FAILED for an unknown groupBy or more than 366 days', async () => {
    expectBadRequest(await get(`/api/v1/billing/spending?groupBy=week`), 'VALIDATION_FAILED');
    expectBadRequest(
      await get('/api/v1/billing/spending?startDate=2020-01-01&endDate=2022-01-01&groupBy=day'),
      'VALIDATION_FAILED',
    );
  });
});

describe('access and isolation', () => {
  it('another organization sees nothing of this one', async () => {
    const wide = `startDate=${day(-30)}&endDate=${day(30)}`;
    expect((await get(`/api/v1/billing/agents?${wide}`, orgB.apiKey)).json()).toMatchObject({
      agents: [],
      totalRecordCount: 0,
      totalCost: 0,
    });
    const history = (await get('/api/v1/billing/history', orgB.apiKey)).json();
    expect(history.transactions.map((t: { transactionType: string }) => t.transactionType)).toEqual(['Grant']);
    expect((await get('/api/v1/billing/credits', orgB.apiKey)).json()).toMatchObject({
      availableCredits: 1000,
      organizationId: orgB.organizationId,
    });
    expect((await get(`/api/v1/billing/spending?${wide}`, orgB.apiKey)).json()).toMatchObject({
      totalSpent: 0,
      currentBalance: 1000,
    });
    expectProblem(await get(`/api/v1/billing/agents/${agents.alpha}?${wide}`, orgB.apiKey), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/billing/agents/${agents.alpha}/runs?${wide}`, orgB.apiKey), 404, 'NOT_FOUND');
    // This organization's own figures.
    expect((await get('/api/v1/billing/credits')).json()).toMatchObject({ availableCredits: 1000 - 144 });
    expect((await get(`/api/v1/billing/spending?${wide}`)).json()).toMatchObject({
      totalSpent: 144,
      currentBalance: 856,
      organizationId: orgA.organizationId,
    });
  });

  it('a member cannot read the costs of an Agent in a Space they cannot read (403)', async () => {
    const q = `startDate=${day(0)}&endDate=${day(2)}`;
    expectProblem(await get(`/api/v1/billing/agents/${agents.charlie}?${q}`, member), 403, 'FORBIDDEN');
    expectProblem(await get(`/api/v1/billing/agents/${agents.charlie}/runs?${q}`, member), 403, 'FORBIDDEN');
    expectProblem(await get(`/api/v1/billing/agents/999999?${q}`), 404, 'NOT_FOUND');
  });

  it('answers 401 without credentials on every billing endpoint', async () => {
    const q = `startDate=${day(0)}&endDate=${day(2)}`;
    for (const url of [
      '/api/v1/billing/credits',
      '/api/v1/billing/history',
      '/api/v1/billing/spending',
      `/api/v1/billing/agents?${q}`,
      `/api/v1/billing/agents/${agents.alpha}?${q}`,
      `/api/v1/billing/agents/${agents.alpha}/runs?${q}`,
    ]) {
      expectProblem(await get(url, null), 401, 'UNAUTHENTICATED');
    }
  });

  it('refuses a start with no credits left: 422 INSUFFICIENT_CREDITS', async () => {
    const broke = await ctx.bootstrap({ credits: 0 });
    const agent = await createAgent(ctx.app, broke.apiKey, broke.spaceId, {
      startUrl: 'http://127.0.0.1:1/',
      list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] },
    });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(broke.apiKey),
      payload: {},
    });
    expectProblem(res, 422, 'INSUFFICIENT_CREDITS');
    expect((await get('/api/v1/billing/credits', broke.apiKey)).json()).toMatchObject({ availableCredits: 0 });
  });
});

describe('validation: 400 VALIDATION_FAILED', () => {
  const ok = () => `startDate=${day(0)}&endDate=${day(2)}`;
  it.each([
    ['missing startDate', () => `/api/v1/billing/agents?endDate=${day(2)}`],
    ['missing endDate', () => `/api/v1/billing/agents?startDate=${day(0)}`],
    ['an impossible date', () => `/api/v1/billing/agents?startDate=2026-02-30&endDate=${day(2)}`],
    ['a date that is not ISO', () => `/api/v1/billing/agents?startDate=yesterday&endDate=${day(2)}`],
    ['a reversed range', () => `/api/v1/billing/agents?startDate=${day(2)}&endDate=${day(0)}`],
    ['an unknown usage type', () => `/api/v1/billing/agents?${ok()}&usageTypes=Server%20Time,Bandwidth`],
    ['an unknown sort column', () => `/api/v1/billing/agents?${ok()}&sortColumn=price`],
    ['a sortOrder other than 0 or 1', () => `/api/v1/billing/agents?${ok()}&sortOrder=2`],
    ['pageIndex 0', () => `/api/v1/billing/agents?${ok()}&pageIndex=0`],
    ['recordsPerPage 0', () => `/api/v1/billing/agents?${ok()}&recordsPerPage=0`],
    ['an unknown timeUnit', () => `/api/v1/billing/agents/${agents.alpha}?${ok()}&timeUnit=year`],
    [
      'more than 1000 periods',
      () => `/api/v1/billing/agents/${agents.alpha}?startDate=2000-01-01&endDate=2010-01-01&timeUnit=day`,
    ],
    ['a breakdown without dates', () => `/api/v1/billing/agents/${agents.alpha}`],
    ['an unknown usage type in a breakdown', () => `/api/v1/billing/agents/${agents.alpha}?${ok()}&usageTypes=Gold`],
    ['an unknown runs sort column', () => `/api/v1/billing/agents/${agents.alpha}/runs?${ok()}&sortColumn=name`],
    ['runs without dates', () => `/api/v1/billing/agents/${agents.alpha}/runs?startDate=${day(0)}`],
    ['a bad agentId', () => `/api/v1/billing/agents/abc?${ok()}`],
    ['history pageIndex 0', () => '/api/v1/billing/history?pageIndex=0'],
    ['history recordsPerPage not a number', () => '/api/v1/billing/history?recordsPerPage=many'],
    ['a bad spending date', () => '/api/v1/billing/spending?startDate=2026-13-01'],
  ])('%s', async (_name, url) => {
    expectBadRequest(await get(url()), 'VALIDATION_FAILED');
  });
});
