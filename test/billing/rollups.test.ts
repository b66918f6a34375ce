// The usage rollups (UsageWeekly, UsageDaily, UsageHourly) the per-Agent report sums: kept by the
// settlement step, they equal the usage records exactly, and the report over any range (whole weeks,
// days and hours from the rollups, partial edge hours from the records) equals the sum of the usage
// records in that range, to the millisecond and per usage type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.js';
import type { Clock } from '../../src/lib/clock.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { endRun, INPUTS_ONLY_PRICES, queuedRun } from '../helpers/billing.js';
import { createAgent } from '../helpers/runs.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Usage over the 24 days before this one (more than three ISO weeks), all in the past.
const END = Math.floor(Date.now() / DAY) * DAY;
const START = END - 24 * DAY;
// Prices with fractions, so the sums are not whole numbers.
const PRICES = { ...INPUTS_ONLY_PRICES, PRICE_AGENT_INPUT: '0.37', PRICE_SERVER_TIME_HOUR: '2.5' };

// A fixed pseudo-random sequence (the same on every run).
let seed = 12345;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const agentIds: number[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap({ credits: 1_000_000 });
  const def = { startUrl: 'http://127.0.0.1:1/', list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] } };
  for (const name of ['One', 'Two', 'Three'])
    agentIds.push((await createAgent(ctx.app, org.apiKey, org.spaceId, def, `Rollup ${name}`)).id);
  for (let i = 0; i < 45; i++) {
    const time = new Date(START + Math.floor(random() * (END - START)));
    const agentId = agentIds[i % 3];
    const run = await queuedRun(ctx.db, org.organizationId, agentId, time);
    const clock: Clock = { now: () => time };
    const patch = {
      inputCount: 1 + Math.floor(random() * 20),
      startTime: new Date(time.getTime() - Math.floor(random() * 2 * HOUR)),
      endTime: time,
    };
    expect(await endRun(ctx.db, ctx.env, clock, run.id, patch, PRICES)).toEqual([]);
  }
}, 120_000);
afterAll(() => ctx?.close());

describe('usage rollups', () => {
  it('equal the usage records grouped by week, day and hour, per usage type', async () => {
    const periods = [
      ['UsageWeekly', 'week', `date_trunc('week', created)::date`],
      ['UsageDaily', 'day', 'created::date'],
      ['UsageHourly', 'hour', `date_trunc('hour', created)`],
    ];
    for (const [table, key, period] of periods) {
      const fromRecords = `
        SELECT "agentId", ${period} AS period, "organizationId",
          COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Server Time'), 0) AS st, COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Export GB'), 0) AS eg,
          COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Agent Inputs'), 0) AS ai, COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Proxy Data'), 0) AS pd,
          COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Export CPM'), 0) AS ec, SUM(cost) AS total
        FROM "UsageRecord" WHERE "organizationId" = ${org.organizationId} GROUP BY 1, 2, 3`;
      const rollup = `
        SELECT "agentId", "${key}" AS period, "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost"
        FROM "${table}" WHERE "organizationId" = ${org.organizationId}`;
      const [diff] = await ctx.db.$queryRawUnsafe<Array<{ missing: bigint; extra: bigint; rows: bigint }>>(`
        SELECT (SELECT count(*) FROM (${fromRecords} EXCEPT ${rollup}) x) AS missing, (SELECT count(*) FROM (${rollup} EXCEPT ${fromRecords}) y) AS extra,
               (SELECT count(*) FROM (${rollup}) z) AS rows`);
      expect({ table, missing: Number(diff.missing), extra: Number(diff.extra) }).toEqual({
        table,
        missing: 0,
        extra: 0,
      });
      expect(Number(diff.rows)).toBeGreaterThan(2);
    }
  });

  it('give the per-Agent report the exact sums of the usage records for any range, to the millisecond', async () => {
    const ranges: Array<[string, string, string | null]> = [
      // Whole days (date-only), several weeks, and ranges that start and end anywhere.
      [new Date(START).toISOString().slice(0, 10), new Date(END - DAY).toISOString().slice(0, 10), null],
      [
        new Date(START + 3 * DAY).toISOString().slice(0, 10),
        new Date(START + 17 * DAY).toISOString().slice(0, 10),
        'Agent Inputs',
      ],
    ];
    for (let i = 0; i < 20; i++) {
      const a = START - DAY + Math.floor(random() * (END - START + 2 * DAY));
      const b = a + Math.floor(random() * (i % 2 === 0 ? 3 * DAY : 20 * DAY));
      ranges.push([new Date(a).toISOString(), new Date(b).toISOString(), i % 3 === 0 ? 'Server Time' : null]);
    }
    for (const [startDate, endDate, usageType] of ranges) {
      const qs = `startDate=${startDate}&endDate=${endDate}&recordsPerPage=1000${usageType ? `&usageTypes=${encodeURIComponent(usageType)}` : ''}`;
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/billing/agents?${qs}`,
        headers: auth(org.apiKey),
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { agents: Array<{ agentId: number; cost: number }>; totalCost: number };
      // The same range read straight from the usage records (a date-only end covers its whole day).
      const from = new Date(startDate);
      const to =
        endDate.length === 10 ? new Date(new Date(endDate).getTime() + DAY) : new Date(new Date(endDate).getTime() + 1);
      const expected = await ctx.db.usageRecord.groupBy({
        by: ['agentId'],
        where: {
          organizationId: org.organizationId,
          created: { gte: from, lt: to },
          ...(usageType ? { usageType } : {}),
        },
        _sum: { cost: true },
      });
      const want = expected
        .filter((e) => e._sum.cost!.gt(0))
        .map((e) => ({ agentId: e.agentId, cost: e._sum.cost!.toNumber() }))
        .sort((x, y) => x.agentId - y.agentId);
      const got = body.agents.map((r) => ({ agentId: r.agentId, cost: r.cost })).sort((x, y) => x.agentId - y.agentId);
      expect({ qs, got }).toEqual({ qs, got: want });
      const total = expected.reduce((sum, e) => sum.plus(e._sum.cost!), new Prisma.Decimal(0));
      expect({ qs, totalCost: body.totalCost }).toEqual({ qs, totalCost: total.toNumber() });
    }
  });
});
