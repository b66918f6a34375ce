// Metering through the whole service: real Runs on a real worker, with known prices, produce the exact
// usage and debit computed by hand from the Runs' statistics; the billing endpoints report them.
import { describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.js';
import { auth } from '../helpers/app.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const D = Prisma.Decimal;
const PRICES = { serverTimeHour: '36', exportGb: '1000', agentInput: '0.01', proxyDataGb: '2000', exportCpm: '2' };
const h = useRunEnvironment({
  env: {
    PRICE_SERVER_TIME_HOUR: PRICES.serverTimeHour,
    PRICE_EXPORT_GB: PRICES.exportGb,
    PRICE_AGENT_INPUT: PRICES.agentInput,
    PRICE_PROXY_DATA_GB: PRICES.proxyDataGb,
    PRICE_EXPORT_CPM: PRICES.exportCpm,
  },
});

const r6 = (d: Prisma.Decimal) => d.toDecimalPlaces(6, D.ROUND_HALF_UP);

/** The expected usage of a Run, by hand from its statistics and the prices above. */
async function expectedUsage(runId: number, agentId: number, key: string) {
  const run = await h.ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
  const files = (
    await h.ctx.app.inject({ method: 'GET', url: `/api/v1/agent/${agentId}/run/${runId}/files`, headers: auth(key) })
  ).json() as Array<{ fileType: string; fileSize: number }>;
  const exportBytes = files
    .filter((f) => f.fileType !== 'Log' && f.fileType !== 'Html')
    .reduce((s, f) => s + f.fileSize, 0);
  expect(exportBytes).toBeGreaterThan(0);
  const ms = run.endTime!.getTime() - run.startTime!.getTime();
  const q = {
    'Server Time': r6(new D(ms).div(3_600_000)),
    'Export GB': r6(new D(exportBytes).div(1e9)),
    'Agent Inputs': new D(run.inputCount),
    'Proxy Data': run.proxyPoolId ? r6(new D(run.traffic.toString()).div(1e9)) : new D(0),
    'Export CPM': new D(run.recordsExported).div(1000),
  };
  const price = {
    'Server Time': PRICES.serverTimeHour,
    'Export GB': PRICES.exportGb,
    'Agent Inputs': PRICES.agentInput,
    'Proxy Data': PRICES.proxyDataGb,
    'Export CPM': PRICES.exportCpm,
  };
  const lines = (Object.keys(q) as Array<keyof typeof q>)
    .filter((t) => !q[t].isZero())
    .map((t) => ({
      usageType: t,
      quantity: q[t].toString(),
      unitPrice: new D(price[t]).toString(),
      cost: r6(q[t].times(price[t])).toString(),
    }));
  const total = lines.reduce((s, l) => s.plus(l.cost), new D(0));
  return { run, lines, total };
}

async function runToSettled(agentId: number, key: string, body: Record<string, unknown> = {}) {
  const start = await h.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agentId}/start`,
    headers: auth(key),
    payload: body,
  });
  expect(start.statusCode, start.body).toBe(202);
  const runId = start.json().id as number;
  const done = await waitForRun(h.ctx.app, key, agentId, runId);
  expect(done.status, JSON.stringify(done)).toBe(10);
  await waitFor(async () => (await h.ctx.db.run.findUniqueOrThrow({ where: { id: runId } })).settledAt !== null);
  return runId;
}

const get = (url: string, key: string) => h.ctx.app.inject({ method: 'GET', url, headers: auth(key) });

describe('metering and debit of real Runs', () => {
  it('meters a Run exactly from its statistics and the configured prices, debits it, and reports it everywhere', async () => {
    const key = h.org.apiKey;
    const agent = await createAgent(h.ctx.app, key, h.org.spaceId, catalogDefinition(h.site.url), 'Metered catalog');
    const runId = await runToSettled(agent.id, key);
    const { run, lines, total } = await expectedUsage(runId, agent.id, key);
    expect(run.recordsExported).toBe(30);

    const records = await h.ctx.db.usageRecord.findMany({ where: { runId }, orderBy: { id: 'asc' } });
    expect(
      records.map((r) => ({
        usageType: r.usageType,
        quantity: r.quantity.toString(),
        unitPrice: r.unitPrice.toString(),
        cost: r.cost.toString(),
      })),
    ).toEqual(lines);
    expect(records.map((r) => r.usageType)).toEqual(['Server Time', 'Export GB', 'Agent Inputs', 'Export CPM']);

    // One Usage transaction (the bootstrap grant), with the balance after it.
    const history = (await get('/api/v1/billing/history', key)).json();
    expect(history).toMatchObject({ totalCount: 2, pageIndex: 1, recordsPerPage: 50 });
    const [usage, grant] = history.transactions;
    expect(grant).toMatchObject({ transactionType: 'Grant', amount: 1000, balance: 1000 });
    expect(usage).toMatchObject({
      transactionType: 'Usage',
      amount: -total.toNumber(),
      balance: new D(1000).minus(total).toNumber(),
    });
    expect(Object.keys(usage).sort()).toEqual([
      'amount',
      'balance',
      'created',
      'expiresAt',
      'id',
      'message',
      'transactionType',
    ]);

    const credits = (await get('/api/v1/billing/credits', key)).json();
    expect(credits).toEqual({
      availableCredits: new D(1000).minus(total).toNumber(),
      organizationId: h.org.organizationId,
      retrievedAt: expect.any(String),
    });

    const today = new Date().toISOString().slice(0, 10);
    const agents = (await get(`/api/v1/billing/agents?startDate=${today}&endDate=${today}`, key)).json();
    expect(agents).toEqual({
      agents: [{ agentId: agent.id, agentName: 'Metered catalog', cost: total.toNumber(), spaceId: h.org.spaceId }],
      totalRecordCount: 1,
      totalCost: total.toNumber(),
      startDate: `${today}T00:00:00.000Z`,
      endDate: `${today}T23:59:59.999Z`,
    });

    const runs = (await get(`/api/v1/billing/agents/${agent.id}/runs?startDate=${today}&endDate=${today}`, key)).json();
    expect(runs).toEqual({
      runs: [
        {
          runId,
          date: expect.any(String),
          startTime: run.startTime!.toISOString(),
          endTime: run.endTime!.toISOString(),
          cost: total.toNumber(),
          billingType: 'Credits',
        },
      ],
      totalRecordCount: 1,
      totalCost: total.toNumber(),
      agentId: agent.id,
      agentName: 'Metered catalog',
    });

    const breakdown = (
      await get(
        `/api/v1/billing/agents/${agent.id}?startDate=${today}&endDate=${today}&usageTypes=Export%20CPM,server%20time`,
        key,
      )
    ).json();
    const cost = (t: string) => new D(lines.find((l) => l.usageType === t)!.cost).toNumber();
    expect(breakdown).toEqual({
      agentId: agent.id,
      agentName: 'Metered catalog',
      labels: [today],
      usageTypes: [
        { type: 'Export CPM', data: [cost('Export CPM')], totalCost: cost('Export CPM') },
        { type: 'Server Time', data: [cost('Server Time')], totalCost: cost('Server Time') },
      ],
      totalCost: new D(lines.find((l) => l.usageType === 'Export CPM')!.cost)
        .plus(lines.find((l) => l.usageType === 'Server Time')!.cost)
        .toNumber(),
      startDate: `${today}T00:00:00.000Z`,
      endDate: `${today}T23:59:59.999Z`,
    });

    const spending = (await get('/api/v1/billing/spending', key)).json();
    expect(spending).toMatchObject({
      totalSpent: total.toNumber(),
      organizationId: h.org.organizationId,
      currentBalance: new D(1000).minus(total).toNumber(),
    });
  });

  it('meters Proxy Data for a Run through a proxy pool', async () => {
    const key = h.org.apiKey;
    const proxy = await startForwardProxy();
    try {
      const port = proxy.port;
      const pool = await h.ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(key),
        payload: { name: 'metered', proxies: [`http://127.0.0.1:${port}`] },
      });
      expect(pool.statusCode, pool.body).toBe(201);
      const agent = await createAgent(
        h.ctx.app,
        key,
        h.org.spaceId,
        catalogDefinition(h.site.url, { format: 'json' }),
        'Proxied catalog',
      );
      const before = await h.ctx.db.creditGrant.aggregate({
        _sum: { remaining: true },
        where: { organizationId: h.org.organizationId },
      });
      const runId = await runToSettled(agent.id, key, { proxyPoolId: pool.json().id });
      const { run, lines, total } = await expectedUsage(runId, agent.id, key);
      expect(run.traffic).toBeGreaterThan(0n);
      const records = await h.ctx.db.usageRecord.findMany({ where: { runId }, orderBy: { id: 'asc' } });
      expect(
        records.map((r) => ({
          usageType: r.usageType,
          quantity: r.quantity.toString(),
          unitPrice: r.unitPrice.toString(),
          cost: r.cost.toString(),
        })),
      ).toEqual(lines);
      expect(records.map((r) => r.usageType)).toContain('Proxy Data');
      const after = await h.ctx.db.creditGrant.aggregate({
        _sum: { remaining: true },
        where: { organizationId: h.org.organizationId },
      });
      expect(before._sum.remaining!.minus(after._sum.remaining!).toString()).toBe(total.toString());
    } finally {
      await proxy.close();
    }
  });
});
