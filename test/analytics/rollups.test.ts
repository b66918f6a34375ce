// The summaries over many ranges equal counts taken directly from the Runs (created in [start, end)),
// whether a Run is answered from the hourly rollups (settled), or live (active, or terminal but not
// settled yet, or in a partial hour), for an admin and for a member who reads some Spaces only; and they
// stay equal after a Run is deleted (RemoveEntireRun) and after an Agent moves to another Space.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/config.js';
import { createSettlement } from '../../src/services/settlement/index.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { createAgent } from '../helpers/runs.js';

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let member: string;
let spaceA: number;
let spaceB: number;
const agents: Array<{ id: number; spaceId: number }> = [];
const HOUR = 3_600_000;
const now = Date.now();
const windowStart = now - 3 * 24 * HOUR;

// A small deterministic generator, so a failure can be replayed.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...auth(key), ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: payload } : {}),
  });

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
  spaceA = (await req('POST', '/api/v1/spaces', org.apiKey, { name: 'A' })).json().id;
  spaceB = (await req('POST', '/api/v1/spaces', org.apiKey, { name: 'B' })).json().id;
  const user = (await req('POST', '/api/v1/users', org.apiKey, { email: 'reader@example.com', name: 'Reader' })).json();
  member = (await req('POST', `/api/v1/users/${user.id}/api-keys`, org.apiKey, {})).json().key;
  expect(
    (await req('POST', `/api/v1/spaces/${spaceB}/members`, org.apiKey, { userId: user.id, role: 'reader' })).statusCode,
  ).toBe(200);
  const def = { startUrl: 'http://127.0.0.1:1/', list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] } };
  for (const [i, spaceId] of [org.spaceId, spaceA, spaceA, spaceB, spaceB].entries()) {
    agents.push({ id: (await createAgent(ctx.app, org.apiKey, spaceId, def, `R${i}`)).id, spaceId });
  }

  // 400 Runs over three days; terminal ones are settled (rollups) except every tenth, active ones never are.
  const settlement = createSettlement(ctx.db, {
    clock: systemClock,
    log: { warn: () => {} },
    config: loadConfig(ctx.env),
  });
  const statuses = [1, 2, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 10, 10, 11, 12];
  for (let i = 0; i < 400; i++) {
    const agent = pick(agents);
    const status = pick(statuses);
    const created = new Date(windowStart + Math.floor(rand() * (now - windowStart)));
    const run = await ctx.db.run.create({
      data: {
        organizationId: org.organizationId,
        agentId: agent.id,
        agentVersion: 1,
        status,
        created,
        recordsExtracted: Math.floor(rand() * 100),
        recordsExported: Math.floor(rand() * 100),
        errorCount: Math.floor(rand() * 5),
        pageCount: Math.floor(rand() * 20),
      },
    });
    if (i % 10 !== 0) await settlement.settle(run.id);
  }
});
afterAll(() => ctx?.close());

/** The definition, applied to the Runs directly. */
async function expected(start: Date, end: Date, spaceIds?: number[], agentId?: number) {
  const where = {
    created: { gte: start, lt: end },
    ...(agentId ? { agentId } : {}),
    ...(spaceIds ? { agent: { spaceId: { in: spaceIds } } } : {}),
  };
  const byStatus = await ctx.db.run.groupBy({ by: ['status'], where, _count: true });
  const n = (ss: number[]) => byStatus.filter((b) => ss.includes(b.status)).reduce((a, b) => a + b._count, 0);
  const sums = await ctx.db.run.aggregate({
    where,
    _sum: { recordsExtracted: true, recordsExported: true, errorCount: true, pageCount: true },
    _count: true,
  });
  return {
    runs: {
      totalRuns: sums._count,
      completedRuns: n([9, 10]),
      failedRuns: n([6, 7]),
      completedWithErrorsRuns: n([9]),
      runningRuns: n([1, 2, 3, 5]),
      queuedRuns: n([4, 12]),
      stoppedRuns: n([8]),
    },
    records: {
      totalRecordsExtracted: sums._sum.recordsExtracted ?? 0,
      totalRecordsExported: sums._sum.recordsExported ?? 0,
      totalErrors: sums._sum.errorCount ?? 0,
      totalPageLoads: sums._sum.pageCount ?? 0,
      runCount: sums._count,
    },
  };
}

async function actual(start: Date, end: Date, key: string, agentId?: number) {
  const q = `startDate=${start.toISOString()}&endDate=${end.toISOString()}${agentId ? `&agentId=${agentId}` : ''}`;
  const runsRes = await req('GET', `/api/v1/analytics/runs/summary?${q}&includeDetails=false`, key);
  const recRes = await req('GET', `/api/v1/analytics/records/summary?${q}`, key);
  expect(runsRes.statusCode, runsRes.body).toBe(200);
  expect(recRes.statusCode, recRes.body).toBe(200);
  const { startDate: _s, endDate: _e, ...runs } = runsRes.json();
  const { startDate: _s2, endDate: _e2, agentId: _a, ...records } = recRes.json();
  return { runs, records };
}

function randomRanges(count: number): Array<[Date, Date]> {
  const out: Array<[Date, Date]> = [
    [new Date(windowStart - HOUR), new Date(now + HOUR)], // everything
    [new Date(Math.floor(windowStart / HOUR) * HOUR), new Date(Math.floor(now / HOUR) * HOUR)], // whole hours only
    [new Date(now - 30 * 60_000), new Date(now + 1)], // inside the last hour
  ];
  for (let i = 0; i < count; i++) {
    const a = windowStart + rand() * (now - windowStart);
    const b = a + rand() * (now - a);
    out.push([new Date(Math.floor(a)), new Date(Math.ceil(b))]);
  }
  return out;
}

describe('summaries equal the Runs themselves', () => {
  it('for an admin, over random ranges, with and without an Agent filter', async () => {
    for (const [start, end] of randomRanges(25)) {
      expect(await actual(start, end, org.apiKey), `${start.toISOString()}..${end.toISOString()}`).toEqual(
        await expected(start, end),
      );
      const agent = pick(agents);
      expect(await actual(start, end, org.apiKey, agent.id)).toEqual(await expected(start, end, undefined, agent.id));
    }
  });

  it('for a member: only the Spaces they can read (the default-access Space and B)', async () => {
    for (const [start, end] of randomRanges(10)) {
      expect(await actual(start, end, member)).toEqual(await expected(start, end, [org.spaceId, spaceB]));
    }
    const inA = agents.find((a) => a.spaceId === spaceA)!;
    expect((await req('GET', `/api/v1/analytics/runs/summary?agentId=${inA.id}`, member)).statusCode).toBe(403);
  });

  it('a terminal Run settled later moves from the live count to the rollups without changing the totals', async () => {
    const all: [Date, Date] = [
      new Date(Math.floor(windowStart / HOUR) * HOUR),
      new Date(Math.floor(now / HOUR) * HOUR),
    ];
    const before = await actual(...all, org.apiKey);
    const settlement = createSettlement(ctx.db, {
      clock: systemClock,
      log: { warn: () => {} },
      config: loadConfig(ctx.env),
    });
    const { settled } = await settlement.settlePending();
    expect(settled).toBeGreaterThan(0);
    expect(await actual(...all, org.apiKey)).toEqual(before);
    expect(before).toEqual(await expected(...all));
  });

  it('after RemoveEntireRun of settled Runs, the summaries drop by exactly those Runs', async () => {
    const victims = await ctx.db.run.findMany({
      where: { status: { in: [6, 8, 9, 10] }, settledAt: { not: null } },
      take: 5,
      orderBy: { id: 'asc' },
    });
    for (const v of victims) {
      const res = await req(
        'DELETE',
        `/api/v1/agent/${v.agentId}/run/${v.id}?removeMethod=RemoveEntireRun`,
        org.apiKey,
      );
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    expect(await ctx.db.run.count({ where: { id: { in: victims.map((v) => v.id) } } })).toBe(0);
    for (const [start, end] of randomRanges(8)) {
      expect(await actual(start, end, org.apiKey)).toEqual(await expected(start, end));
      expect(await actual(start, end, member)).toEqual(await expected(start, end, [org.spaceId, spaceB]));
      const agent = pick(agents);
      expect(await actual(start, end, org.apiKey, agent.id)).toEqual(await expected(start, end, undefined, agent.id));
    }
  });

  it('after an Agent moves from Space A to B, a member of B sees its whole history', async () => {
    const moving = agents.find((a) => a.spaceId === spaceA)!;
    const res = await req('PUT', `/api/v1/agent/${moving.id}`, org.apiKey, { spaceId: spaceB });
    expect(res.statusCode, res.body).toBe(200);
    moving.spaceId = spaceB;
    for (const [start, end] of randomRanges(8)) {
      expect(await actual(start, end, member)).toEqual(await expected(start, end, [org.spaceId, spaceB]));
      expect(await actual(start, end, org.apiKey)).toEqual(await expected(start, end));
    }
  });
});

describe('concurrency', () => {
  it('Runs settled at once by several processes, while their Agent moves Space, are each counted once and where the Agent ends', async () => {
    const agent = agents.find((a) => a.spaceId === org.spaceId)!;
    const hour = new Date(Math.floor((now - 5 * HOUR) / HOUR) * HOUR);
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) {
      const run = await ctx.db.run.create({
        data: {
          organizationId: org.organizationId,
          agentId: agent.id,
          agentVersion: 1,
          status: 10,
          created: new Date(hour.getTime() + i * 1000),
          recordsExtracted: 3,
        },
      });
      ids.push(run.id);
    }
    const services = Array.from({ length: 4 }, () =>
      createSettlement(ctx.db, { clock: systemClock, log: { warn: () => {} }, config: loadConfig(ctx.env) }),
    );
    const move = req('PUT', `/api/v1/agent/${agent.id}`, org.apiKey, { spaceId: spaceB });
    const results = await Promise.all([...services.flatMap((s) => ids.map((id) => s.settle(id))), move]);
    expect(results.filter((r) => r === true)).toHaveLength(ids.length);
    agent.spaceId = spaceB;
    const range: [Date, Date] = [hour, new Date(hour.getTime() + HOUR)];
    expect(await actual(...range, member)).toEqual(await expected(...range, [org.spaceId, spaceB]));
    expect(await actual(...range, org.apiKey)).toEqual(await expected(...range));
    expect(await actual(...range, org.apiKey, agent.id)).toEqual(await expected(...range, undefined, agent.id));
    expect((await actual(...range, org.apiKey, agent.id)).records.totalRecordsExtracted).toBeGreaterThanOrEqual(120);
    // Each Space's hour and day rows hold exactly the settled Runs of the Agents it holds now.
    for (const spaceId of [org.spaceId, spaceA, spaceB]) {
      const settledRuns = await ctx.db.run.count({ where: { settledAt: { not: null }, agent: { spaceId } } });
      const hours = await ctx.db.spaceRunHour.aggregate({ where: { spaceId }, _sum: { runs: true } });
      const days = await ctx.db.spaceRunDay.aggregate({ where: { spaceId }, _sum: { runs: true } });
      expect([hours._sum.runs ?? 0, days._sum.runs ?? 0]).toEqual([settledRuns, settledRuns]);
    }
  });
});
