// The credit debit under concurrency and over time: many Runs ending at once on one organization never
// spend a credit twice; grants are consumed soonest-expiring first, then oldest; an expired grant
// stops paying and its expiry is recorded once. Real Postgres; the settlement of the service itself
// (billing step included), driven by an injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../../src/db/prisma.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import type { Clock } from '../../src/lib/clock.js';
import { createCreditExpiry } from '../../src/services/billing/billing.service.js';
import { createCreditsRepository } from '../../src/services/billing/credits.repository.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { endRun as endRunAt, queuedRun as queuedRunAt } from '../helpers/billing.js';
import { createAgent } from '../helpers/runs.js';

const D = Prisma.Decimal;
const HOUR = 3_600_000;
// Near the real time, so the API keys bootstrap issues (valid for a year from now) are valid.
const T0 = new Date(Math.floor(Date.now() / HOUR) * HOUR);
let now = T0;
const clock: Clock = { now: () => now };

let ctx: TestContext;
let processes: Db[];

beforeAll(async () => {
  ctx = await createTestContext({ clock });
  // Two clients stand for two processes (an API instance and a worker) settling at the same time.
  processes = [createPrisma(ctx.config.databaseUrl, { max: 10 }), createPrisma(ctx.config.databaseUrl, { max: 10 })];
});
afterAll(async () => {
  for (const p of processes ?? []) await p.$disconnect();
  await ctx?.close();
});

async function newOrg(credits = 0) {
  const org = await ctx.bootstrap({ credits });
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
    startUrl: 'http://127.0.0.1:1/',
    list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] },
  });
  return { org, agentId: agent.id };
}

function grant(organizationId: number, amount: string, expiresAt: Date | null, at = now) {
  return createCreditsRepository(ctx.db).grant({ organizationId, amount, expiresAt, message: `grant ${amount}`, at });
}

const queuedRun = (organizationId: number, agentId: number) => queuedRunAt(ctx.db, organizationId, agentId, now);
const endRun = (db: Db, runId: number, inputCount: number) => endRunAt(db, ctx.env, clock, runId, { inputCount });

const ledger = (organizationId: number) =>
  ctx.db.creditTransaction.findMany({ where: { organizationId }, orderBy: { id: 'asc' } });

describe('debits under concurrency', () => {
  it('100 Runs ending at once never spend a credit twice: every Run is paid or recorded uncovered, exactly once', async () => {
    const { org } = await newOrg();
    // Ten Agents, so the Runs do not queue behind one Agent's daily rollup row.
    const agentIds = await Promise.all(
      Array.from(
        { length: 10 },
        async (_, i) =>
          (
            await createAgent(
              ctx.app,
              org.apiKey,
              org.spaceId,
              { startUrl: 'http://127.0.0.1:1/', list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] } },
              `A${i}`,
            )
          ).id,
      ),
    );
    const agentId = agentIds[0];
    const grants = [
      (await grant(org.organizationId, '30', new Date(T0.getTime() + 24 * HOUR))).grant,
      (await grant(org.organizationId, '20', null)).grant,
      (await grant(org.organizationId, '25.5', new Date(T0.getTime() + 48 * HOUR))).grant,
    ];
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => queuedRun(org.organizationId, agentIds[i % 10])),
    );
    const costOf = (i: number) => (i % 3) + 1;
    const warnings = (await Promise.all(runs.map((r, i) => endRun(processes[i % 2], r.id, costOf(i))))).flat();
    expect(warnings).toEqual([]);

    const totalCost = runs.reduce((s, _r, i) => s + costOf(i), 0);
    const settled = await ctx.db.run.count({ where: { id: { in: runs.map((r) => r.id) }, settledAt: { not: null } } });
    expect(settled).toBe(100);

    // No grant negative; everything granted was spent, once.
    const after = await ctx.db.creditGrant.findMany({ where: { organizationId: org.organizationId } });
    for (const g of after) expect(g.remaining.toString()).toBe('0');
    const txs = await ledger(org.organizationId);
    const usage = txs.filter((t) => t.transactionType === 'Usage');
    const uncovered = txs.filter((t) => t.transactionType === 'Uncovered');
    const sum = (list: typeof txs) => list.reduce((s, t) => s.plus(t.amount), new D(0));
    expect(sum(usage).negated().toString()).toBe('75.5');
    expect(sum(uncovered).negated().toString()).toBe(new D(totalCost).minus('75.5').toString());
    for (const g of grants)
      expect(
        sum(usage.filter((t) => t.grantId === g.id))
          .negated()
          .toString(),
      ).toBe(g.amount.toString());

    // Each Run's transactions add up to its cost.
    runs.forEach((r, i) => {
      const mine = txs.filter((t) => t.runId === r.id);
      expect(mine.length).toBeGreaterThan(0);
      expect(sum(mine).negated().toString()).toBe(String(costOf(i)));
    });
    // The balances form one chain: each debit starts where the previous one left off.
    let balance = new D('75.5');
    for (const t of txs.filter((x) => x.transactionType !== 'Grant')) {
      if (t.transactionType === 'Usage') balance = balance.plus(t.amount);
      expect(t.balance.toString()).toBe(balance.toString());
    }
    expect(balance.toString()).toBe('0');
    expect(uncovered.every((t) => t.balance.isZero() && t.grantId === null)).toBe(true);

    // Usage records: one per Run and usage type.
    expect(await ctx.db.usageRecord.count({ where: { organizationId: org.organizationId } })).toBe(100);

    // A start now meets the same rule the debit used: nothing left.
    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agentId}/start`,
      headers: auth(org.apiKey),
      payload: { isExclusive: false },
    });
    expectProblem(start, 422, 'INSUFFICIENT_CREDITS');
    const credits = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/billing/credits', headers: auth(org.apiKey) })
    ).json();
    expect(credits.availableCredits).toBe(0);
    const history = (
      await ctx.app.inject({
        method: 'GET',
        url: '/api/v1/billing/history?pageIndex=1&recordsPerPage=500',
        headers: auth(org.apiKey),
      })
    ).json();
    expect(history.recordsPerPage).toBe(100);
    expect(history.totalCount).toBe(txs.length);
    expect(history.transactions[0].id).toBe(txs[txs.length - 1].id);
    expect(history.transactions.some((t: { transactionType: string }) => t.transactionType === 'Uncovered')).toBe(true);
  });

  it('the database refuses a grant below zero whatever the code does', async () => {
    const { org } = await newOrg();
    const { grant: g } = await grant(org.organizationId, '1', null);
    await expect(
      ctx.db.creditGrant.update({ where: { id: g.id }, data: { remaining: { decrement: 2 } } }),
    ).rejects.toThrow(/CreditGrant_remaining_nonnegative|check constraint/i);
  });
});

describe('the debit statement', () => {
  // CreditsRepository.debit directly, as the settlement step calls it (organization locked first).
  async function debit(organizationId: number, runId: number, cost: string) {
    const credits = createCreditsRepository(ctx.db);
    await ctx.db.$rawTransaction(async (tx) => {
      await tx.rows(credits.debitLock(organizationId));
      await credits.debit(tx, {
        organizationId,
        runId,
        cost: new D(cost),
        at: now,
        message: 'usage',
        uncoveredMessage: 'short by {uncovered} of ' + cost,
      });
    });
    return (await ledger(organizationId))
      .filter((t) => t.runId === runId)
      .map((t) => [t.transactionType, t.grantId, t.amount.toString(), t.balance.toString(), t.message]);
  }

  it('takes from grants in consumption order with the balance after each, and records what none covers', async () => {
    now = T0;
    const { org, agentId } = await newOrg();
    const o = org.organizationId;
    const g1 = (await grant(o, '2', new Date(T0.getTime() + HOUR))).grant;
    const g2 = (await grant(o, '5', new Date(T0.getTime() + 2 * HOUR))).grant;
    const g3 = (await grant(o, '10', null)).grant;
    const runs = await Promise.all([1, 2, 3, 4].map(() => queuedRun(o, agentId)));
    expect(await debit(o, runs[0].id, '6.5')).toEqual([
      ['Usage', g1.id, '-2', '15', 'usage'],
      ['Usage', g2.id, '-4.5', '10.5', 'usage'],
    ]);
    expect(await debit(o, runs[1].id, '10.75')).toEqual([
      ['Usage', g2.id, '-0.5', '10', 'usage'],
      ['Usage', g3.id, '-10', '0', 'usage'],
      ['Uncovered', null, '-0.25', '0', 'short by 0.25 of 10.75'],
    ]);
    expect(await debit(o, runs[2].id, '3')).toEqual([['Uncovered', null, '-3', '0', 'short by 3 of 3']]);
    expect(
      (await ctx.db.creditGrant.findMany({ where: { organizationId: o }, orderBy: { id: 'asc' } })).map((g) =>
        g.remaining.toString(),
      ),
    ).toEqual(['0', '0', '0']);
    // An exact fit leaves nothing uncovered.
    await grant(o, '0.000001', null);
    expect((await debit(o, runs[3].id, '0.000001')).map((t) => t.slice(0, 4))).toEqual([
      ['Usage', expect.any(Number), '-0.000001', '0'],
    ]);
  });
});

describe('grants over time', () => {
  it('consumes soonest-expiring first, then oldest; an expired grant stops paying and its expiry is recorded once', async () => {
    now = T0;
    const { org, agentId } = await newOrg();
    const o = org.organizationId;
    const older = (await grant(o, '100', null, new Date(T0.getTime() - 2 * HOUR))).grant;
    const laterExpiring = (await grant(o, '10', new Date(T0.getTime() + 2 * HOUR))).grant;
    const soonExpiring = (await grant(o, '10', new Date(T0.getTime() + HOUR))).grant;
    const newer = (await grant(o, '100', null)).grant;

    // 4 credits at T0: from the grant expiring soonest.
    const r1 = await queuedRun(o, agentId);
    expect(await endRun(ctx.db, r1.id, 4)).toEqual([]);
    let txs = await ledger(o);
    expect(
      txs
        .filter((t) => t.runId === r1.id)
        .map((t) => [t.transactionType, t.grantId, t.amount.toString(), t.balance.toString()]),
    ).toEqual([['Usage', soonExpiring.id, '-4', '216']]);

    // An hour later the 6 credits left on that grant no longer count.
    now = new Date(T0.getTime() + HOUR);
    const balance = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/billing/credits', headers: auth(org.apiKey) })
    ).json();
    expect(balance).toMatchObject({ availableCredits: 210, retrievedAt: now.toISOString() });

    // 12 credits: the rest of the grant expiring next, then the oldest grant without expiry.
    const r2 = await queuedRun(o, agentId);
    expect(await endRun(ctx.db, r2.id, 12)).toEqual([]);
    txs = await ledger(o);
    expect(
      txs
        .filter((t) => t.runId === r2.id)
        .map((t) => [t.transactionType, t.grantId, t.amount.toString(), t.balance.toString()]),
    ).toEqual([
      ['Usage', laterExpiring.id, '-10', '200'],
      ['Usage', older.id, '-2', '198'],
    ]);
    expect((await ctx.db.creditGrant.findUniqueOrThrow({ where: { id: newer.id } })).remaining.toString()).toBe('100');

    // The maintenance task records the expiry, once.
    const expiry = createCreditExpiry({ credits: createCreditsRepository(ctx.db), clock });
    expect(await expiry.expireGrants()).toMatchObject({ expired: 1 });
    expect(await expiry.expireGrants()).toEqual({ organizations: 0, expired: 0 });
    txs = await ledger(o);
    const expiries = txs.filter((t) => t.transactionType === 'Expiry');
    expect(
      expiries.map((t) => [
        t.grantId,
        t.amount.toString(),
        t.balance.toString(),
        t.expiresAt?.toISOString(),
        t.created.toISOString(),
      ]),
    ).toEqual([[soonExpiring.id, '-6', '198', soonExpiring.expiresAt!.toISOString(), now.toISOString()]]);
    const history = (
      await ctx.app.inject({
        method: 'GET',
        url: '/api/v1/billing/history?recordsPerPage=2',
        headers: auth(org.apiKey),
      })
    ).json();
    expect(history).toMatchObject({ totalCount: 8, pageIndex: 1, recordsPerPage: 2 });
    expect(
      history.transactions.map((t: { transactionType: string; amount: number; balance: number }) => [
        t.transactionType,
        t.amount,
        t.balance,
      ]),
    ).toEqual([
      ['Expiry', -6, 198],
      ['Usage', -2, 198],
    ]);
    const page4 = (
      await ctx.app.inject({
        method: 'GET',
        url: '/api/v1/billing/history?pageIndex=4&recordsPerPage=2',
        headers: auth(org.apiKey),
      })
    ).json();
    expect(
      page4.transactions.map((t: { transactionType: string; amount: number }) => [t.transactionType, t.amount]),
    ).toEqual([
      ['Grant', 10],
      ['Grant', 100],
    ]);

    // Spending in the window: 16 credits debited.
    const spending = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/billing/spending?startDate=${T0.toISOString().slice(0, 10)}`,
        headers: auth(org.apiKey),
      })
    ).json();
    expect(spending).toEqual({
      totalSpent: 16,
      startDate: `${T0.toISOString().slice(0, 10)}T00:00:00.000Z`,
      endDate: now.toISOString(),
      organizationId: o,
      currentBalance: 198,
    });
  });
});
