// Benchmark of billing: (1) GET /api/v1/billing/agents for a 30-day range over 10,000 Agents and
// 1,000,000 usage records (seeded with bulk SQL, the daily rollup built from them as the settlement
// step would), next to its floors (a trivial billing endpoint, and the same report summed straight
// from the usage records); (2) debit throughput: terminal Runs of one organization settled per second
// (metering + debit), next to the floor of claiming them with no step. Run alone with
// `npx tsx bench/billing.ts`. Options: BENCH_BILLING_AGENTS, BENCH_BILLING_RECORDS,
// BENCH_BILLING_ITERATIONS, BENCH_BILLING_DEBITS, BENCH_BILLING_CONCURRENCY.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { systemClock } from '../src/lib/clock.js';
import { issueApiKey } from '../src/services/identity/api-keys.service.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { createIdentityRepository } from '../src/services/identity/identity.repository.js';
import { createSettlement } from '../src/services/settlement/index.js';
import { createSettlementRepository } from '../src/services/settlement/settlement.repository.js';
import { createSettlementService } from '../src/services/settlement/settlement.service.js';
import { createBenchEnvironment, fmt, note, percentile, print, table } from './helpers.js';

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

export async function benchBilling() {
  const agents = env('BENCH_BILLING_AGENTS', 10_000);
  const records = env('BENCH_BILLING_RECORDS', 1_000_000);
  const iterations = env('BENCH_BILLING_ITERATIONS', 40);
  const debits = env('BENCH_BILLING_DEBITS', 2000);
  const concurrency = env('BENCH_BILLING_CONCURRENCY', 16);
  const runs = Math.ceil(records / 5);

  // Measure the report, not the load shedding (a loaded machine's event loop delay would trip it).
  const bench = await createBenchEnvironment({ LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
  const config = bench.config;
  const db = createPrisma(config.databaseUrl, { max: concurrency + 4 });
  const sql = new pg.Client({ connectionString: config.databaseUrl });
  await sql.connect();
  try {
    const org = await bootstrapOrganization(db, {
      org: 'Bench billing',
      email: `billing-${bench.dbName}@example.com`,
      password: 'bench password 1',
      credits: 0,
      apiKeyDays: 1,
      now: new Date(),
    });
    const o = org.organizationId;

    // ---- Seed (bulk SQL): 10 Spaces, Agents, Runs (5 usage records each) over the last 30 days.
    let t0 = performance.now();
    await sql.query(
      `INSERT INTO "Space" ("organizationId", name, "isDefaultAccess", updated) SELECT $1, 'Bench space ' || g, false, now() FROM generate_series(1, 9) g`,
      [o],
    );
    const spaceIds = (await sql.query(`SELECT id FROM "Space" WHERE "organizationId" = $1 ORDER BY id`, [o])).rows.map(
      (r) => r.id as number,
    );
    await sql.query(
      `INSERT INTO "Agent" ("organizationId", "spaceId", "userId", name, updated)
       SELECT $1, ($2::int[])[1 + g % 10], $3, 'Agent ' || g || ' ' || (ARRAY['phones', 'books', 'shoes', 'news'])[1 + g % 4], now()
       FROM generate_series(1, $4) g`,
      [o, spaceIds, org.userId, agents],
    );
    const firstAgent = (await sql.query(`SELECT min(id) AS id FROM "Agent" WHERE "organizationId" = $1`, [o])).rows[0]
      .id as number;
    await sql.query(
      `INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", status, "startTime", "endTime", "settledAt", "inputCount", "recordsExported", updated)
       SELECT $1, $2 + (g % $3), 1, 10, t - interval '10 minutes', t, t, 1 + g % 5, g % 1000, t
       FROM generate_series(1, $4) g, LATERAL (SELECT now() - random() * interval '30 days' + g * interval '0 seconds' AS t) x ORDER BY t`,
      [o, firstAgent, agents, runs],
    );
    await sql.query(
      `INSERT INTO "UsageRecord" ("organizationId", "agentId", "runId", "usageType", quantity, "unitPrice", cost, created)
       SELECT r."organizationId", r."agentId", r.id, u.t, 1, 1, round((random() * 2)::numeric, 6), r."endTime"
       FROM "Run" r CROSS JOIN unnest(ARRAY['Server Time', 'Export GB', 'Agent Inputs', 'Proxy Data', 'Export CPM']) AS u(t)
       WHERE r."organizationId" = $1 ORDER BY r."endTime"`,
      [o],
    );
    // The rollups as the settlement step keeps them (week, day, hour: one row per Agent and period with
    // usage). Everything is inserted in time order, as settlement writes it (at the time a Run ends),
    // so the rows of one period lie together in the table as they would in production.
    for (const [table, key, period] of [
      ['UsageWeekly', 'week', `date_trunc('week', created)::date`],
      ['UsageDaily', 'day', 'created::date'],
      ['UsageHourly', 'hour', `date_trunc('hour', created)`],
    ]) {
      await sql.query(
        `INSERT INTO "${table}" ("agentId", "${key}", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
         SELECT "agentId", ${period}, "organizationId",
           COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Server Time'), 0), COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Export GB'), 0),
           COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Agent Inputs'), 0), COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Proxy Data'), 0),
           COALESCE(SUM(cost) FILTER (WHERE "usageType" = 'Export CPM'), 0), SUM(cost)
         FROM "UsageRecord" WHERE "organizationId" = $1 GROUP BY 1, 2, 3 ORDER BY 2, 1`,
        [o],
      );
    }
    await sql.query('ANALYZE');
    const counts = (
      await sql.query(
        `SELECT (SELECT count(*) FROM "UsageRecord") AS usage, (SELECT count(*) FROM "UsageDaily") AS daily, (SELECT count(*) FROM "UsageWeekly") AS weekly, (SELECT count(*) FROM "UsageHourly") AS hourly, (SELECT count(*) FROM "Agent") AS agents`,
      )
    ).rows[0];
    const seedSeconds = (performance.now() - t0) / 1000;
    note(
      `seeded ${counts.agents} agents, ${counts.usage} usage records, ${counts.weekly} weekly, ${counts.daily} daily and ${counts.hourly} hourly rollup rows in ${seedSeconds.toFixed(1)} s`,
    );

    // A member who reads 3 of the 10 Spaces.
    const identity = createIdentityRepository(db);
    const user = await identity.createUser({
      organizationId: o,
      email: `member-${bench.dbName}@example.com`,
      name: 'Bench member',
      role: 'member',
      passwordHash: null,
    });
    await db.spaceMembership.createMany({
      data: spaceIds.slice(1, 4).map((spaceId) => ({ spaceId, userId: user.id, role: 'reader' })),
    });
    const memberKey = (
      await issueApiKey(identity, {
        organizationId: o,
        userId: user.id,
        description: 'bench',
        expiresAt: new Date(Date.now() + 86_400_000),
      })
    ).key;

    // ---- (1) The per-Agent report.
    const now = new Date();
    const day = (offset: number) => new Date(now.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
    const range = `startDate=${day(-29)}&endDate=${day(0)}`;
    const partial = `startDate=${new Date(now.getTime() - 30 * 86_400_000).toISOString()}&endDate=${now.toISOString()}`;
    const app = await buildApp({ ...config, rateLimit: { ...config.rateLimit, max: 1_000_000 } }, { logger: false });
    await app.ready();
    const cases: Array<Array<string | number>> = [];
    try {
      const scenarios: Array<{ label: string; url?: string; member?: boolean; raw?: string }> = [
        { label: 'floor: GET /billing/credits', url: '/api/v1/billing/credits' },
        {
          label: '30 days, sort name, page 1 x50',
          url: `/api/v1/billing/agents?${range}&pageIndex=1&recordsPerPage=50`,
        },
        {
          label: '30 days, sort cost desc, page 1 x50',
          url: `/api/v1/billing/agents?${range}&sortColumn=cost&sortOrder=1`,
        },
        {
          label: '30 days, page 100 x100, sort name desc',
          url: `/api/v1/billing/agents?${range}&pageIndex=100&recordsPerPage=100&sortOrder=1`,
        },
        {
          label: '30 days, x1000, sort cost',
          url: `/api/v1/billing/agents?${range}&recordsPerPage=1000&sortColumn=cost`,
        },
        { label: '30 days to the ms (partial edge days)', url: `/api/v1/billing/agents?${partial}` },
        {
          label: '30 days, usageTypes=Server Time,Export CPM',
          url: `/api/v1/billing/agents?${range}&usageTypes=${encodeURIComponent('Server Time,Export CPM')}`,
        },
        {
          label: '30 days, name contains "phones"',
          url: `/api/v1/billing/agents?${range}&name=phones&sortColumn=cost&sortOrder=1`,
        },
        { label: '30 days, member (3 of 10 Spaces)', url: `/api/v1/billing/agents?${range}`, member: true },
        {
          label: '7 days, sort cost desc',
          url: `/api/v1/billing/agents?startDate=${day(-6)}&endDate=${day(0)}&sortColumn=cost&sortOrder=1`,
        },
        { label: 'one Agent: breakdown by day (30 days)', url: `/api/v1/billing/agents/${firstAgent + 7}?${range}` },
        { label: 'one Agent: runs page 1 (30 days)', url: `/api/v1/billing/agents/${firstAgent + 7}/runs?${range}` },
        {
          label: 'floor: same report summed from UsageRecord (SQL only)',
          raw: `SELECT a.id, a.name, a."spaceId", c.cost, COUNT(*) OVER (), SUM(c.cost) OVER ()
                FROM (SELECT "agentId", SUM(cost) AS cost FROM "UsageRecord" WHERE "organizationId" = ${o} AND created >= '${day(-29)}' AND created < '${day(1)}' GROUP BY 1) c
                JOIN "Agent" a ON a.id = c."agentId" ORDER BY a.name LIMIT 50`,
        },
      ];
      for (const s of scenarios) {
        const headers = { authorization: `ApiKey ${s.member ? memberKey : org.apiKey}` };
        const once = async () => {
          if (s.raw) return (await sql.query(s.raw)).rowCount ?? 0;
          const res = await app.inject({ method: 'GET', url: s.url!, headers });
          if (res.statusCode !== 200) throw new Error(`${s.label}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
          const body = res.json() as { agents?: unknown[]; runs?: unknown[]; totalRecordCount?: number };
          return body.totalRecordCount ?? 1;
        };
        for (let i = 0; i < 3; i++) await once();
        const times: number[] = [];
        let matched = 0;
        const n = s.raw ? Math.min(iterations, 10) : iterations;
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          matched = await once();
          times.push(performance.now() - t);
        }
        cases.push([s.label, fmt(percentile(times, 50)), fmt(percentile(times, 95)), n, matched]);
        note(
          `${s.label.padEnd(52)} p50 ${fmt(percentile(times, 50)).padStart(7)} ms  p95 ${fmt(percentile(times, 95)).padStart(7)} ms`,
        );
      }
      // The report must stay exact: its totals against the usage records summed directly.
      for (const [label, qs, from, to] of [
        ['30 days', range, `${day(-29)}T00:00:00Z`, `${day(1)}T00:00:00Z`],
        [
          '30 days to the ms',
          partial,
          new Date(now.getTime() - 30 * 86_400_000).toISOString(),
          new Date(now.getTime() + 1).toISOString(),
        ],
      ]) {
        const res = await app.inject({
          method: 'GET',
          url: `/api/v1/billing/agents?${qs}&recordsPerPage=1`,
          headers: { authorization: `ApiKey ${org.apiKey}` },
        });
        const want = (
          await sql.query(
            `SELECT SUM(cost)::float8 AS total FROM "UsageRecord" WHERE "organizationId" = $1 AND created >= $2 AND created < $3`,
            [o, from, to],
          )
        ).rows[0].total as number;
        const got = (res.json() as { totalCost: number }).totalCost;
        if (Math.abs(got - want) > 1e-6)
          throw new Error(`${label}: report totalCost ${got} differs from the usage records' ${want}`);
        note(`${label}: report totalCost ${got} = sum of the usage records`);
      }
    } finally {
      await app.close();
    }
    print(
      table(
        `Billing report over ${counts.agents} Agents, ${counts.usage} usage records (rollup rows: ${counts.weekly} weekly, ${counts.daily} daily, ${counts.hourly} hourly), app.inject, ms`,
        ['case', 'p50', 'p95', 'n', 'matching'],
        cases,
      ),
    );

    // ---- (2) Debit throughput on one organization.
    t0 = performance.now();
    await sql.query(
      `INSERT INTO "CreditGrant" ("organizationId", amount, remaining, "expiresAt", message) SELECT $1, 1000000, 1000000, now() + g * interval '1 day', 'bench' FROM generate_series(1, 5) g`,
      [o],
    );
    const throughput: Array<Array<string | number>> = [];
    const settleAll = async (label: string, agentsUsed: number, settle: (id: number) => Promise<boolean>) => {
      const ids = (
        await sql.query(
          `INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", status, "startTime", "endTime", "inputCount", "recordsExported", updated)
           SELECT $1, $2 + (g % $3), 1, 10, now() - interval '3 minutes', now(), 1 + g % 5, 100 + g % 900, now() FROM generate_series(1, $4) g RETURNING id`,
          [o, firstAgent, agentsUsed, debits],
        )
      ).rows.map((r) => r.id as number);
      const queue = [...ids];
      const start = performance.now();
      let settled = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) if (await settle(id)) settled += 1;
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      if (settled !== ids.length) throw new Error(`${label}: settled ${settled} of ${ids.length}`);
      throughput.push([label, debits, concurrency, fmt(seconds, 2), fmt(debits / seconds, 0)]);
      note(`${label.padEnd(52)} ${fmt(debits / seconds, 0)} Runs/s`);
    };
    const log = { warn: (obj: object, msg: string) => note(`${msg} ${JSON.stringify(obj)}`) };
    const floor = createSettlementService({ repo: createSettlementRepository(db), steps: [], clock: systemClock, log });
    const billing = createSettlement(db, { clock: systemClock, log, config });
    await settleAll('floor: claim only (no steps)', 100, floor.settle);
    await settleAll('metering + debit, Runs of 100 Agents', 100, billing.settle);
    await settleAll('metering + debit, Runs of one Agent', 1, billing.settle);
    const check = (
      await sql.query(
        `SELECT count(*) FILTER (WHERE "transactionType" = 'Usage') AS usage, count(*) FILTER (WHERE "transactionType" = 'Uncovered') AS uncovered FROM "CreditTransaction" WHERE "organizationId" = $1`,
        [o],
      )
    ).rows[0];
    note(
      `ledger: ${check.usage} Usage, ${check.uncovered} Uncovered transactions; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    print(
      table(
        'Debit throughput on one organization (terminal Runs settled per second)',
        ['case', 'Runs', 'in flight', 'seconds', 'Runs/s'],
        throughput,
      ),
    );
    return { cases, throughput };
  } finally {
    await sql.end();
    await db.$disconnect();
    await bench.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchBilling().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
