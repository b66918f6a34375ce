// Benchmark of the analytics summaries: 1,000,000 Runs in 1,000 Agents (10 Spaces) over 90 days,
// seeded by bulk SQL, their hourly rollups built by the same statement the migration backfills with.
// Measures p50/p95/p99 of the runs and records summaries through app.inject for a 30-day and a 1-day
// range, with and without an Agent filter, for an admin and for a member of 5 Spaces; side by side with
// the floor (an authenticated request that reads almost nothing) and with the same totals counted
// directly over the Runs (what the rollups avoid).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/tools/seed.js';
import { issueApiKey } from '../src/services/identity/api-keys.service.js';
import { createIdentityRepository } from '../src/services/identity/identity.repository.js';
import { createBenchEnvironment, fmt, note, percentile, print, table } from './helpers.js';

const RUNS = Number(process.env.BENCH_ANALYTICS_RUNS ?? 1_000_000);
const AGENTS = Number(process.env.BENCH_ANALYTICS_AGENTS ?? 1000);
const ITERATIONS = Number(process.env.BENCH_ANALYTICS_ITERATIONS ?? 60);
const DAYS = 90;
const BATCH = 100_000;

export async function seedRuns(client: pg.Client, organizationId: number): Promise<void> {
  // Status mix: mostly Success, some Completed, Failure, Stopped, Skipped; all terminal and settled.
  for (let done = 0; done < RUNS; done += BATCH) {
    const n = Math.min(BATCH, RUNS - done);
    await client.query(
      `WITH ids AS (SELECT array_agg("id" ORDER BY "id") AS a, count(*)::int AS n FROM "Agent" WHERE "organizationId" = $1),
            g AS (SELECT i, random() AS r, (now() AT TIME ZONE 'UTC') - random() * interval '${DAYS} days' AS c FROM generate_series(1, $2::int) i)
       INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", "status", "created", "startTime", "endTime", "statusChanged", "updated",
                          "recordsExtracted", "recordsExported", "errorCount", "pageCount", "settledAt")
       SELECT $1, ids.a[1 + ((g.i + $3::int) % ids.n)], 1,
              CASE WHEN g.r < 0.70 THEN 10 WHEN g.r < 0.80 THEN 9 WHEN g.r < 0.88 THEN 6 WHEN g.r < 0.94 THEN 8 ELSE 11 END,
              g.c, g.c, g.c + interval '90 seconds', g.c + interval '90 seconds', g.c + interval '90 seconds',
              (g.r * 200)::int, (g.r * 200)::int, CASE WHEN g.r >= 0.70 AND g.r < 0.88 THEN 1 + (g.r * 10)::int ELSE 0 END, 1 + (g.r * 20)::int,
              g.c + interval '90 seconds'
       FROM g, ids`,
      [organizationId, n, done],
    );
    note(`runs: ${done + n} of ${RUNS}`);
  }
  // A few active Runs (counted live) in the last hours.
  await client.query(
    `INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", "status", "created", "statusChanged", "updated")
     SELECT $1, a."id", 1, CASE WHEN a."id" % 2 = 0 THEN 1 ELSE 4 END, (now() AT TIME ZONE 'UTC') - random() * interval '3 hours', now(), now()
     FROM "Agent" a WHERE a."organizationId" = $1 ORDER BY a."id" LIMIT 50`,
    [organizationId],
  );
  // Rollup rows are written as Runs settle, so in time order: the backfill inserts them in that order too.
  note('rollups');
  await client.query(`
    INSERT INTO "AgentRunHour" ("agentId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
    SELECT r."agentId", date_trunc('hour', r."created"), r."status", count(*), sum(r."recordsExtracted"), sum(r."recordsExported"), sum(r."errorCount"), sum(r."pageCount")
    FROM "Run" r WHERE r."settledAt" IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 2`);
  await client.query(`
    INSERT INTO "SpaceRunHour" ("spaceId", "organizationId", "hour", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
    SELECT a."spaceId", a."organizationId", h."hour", h."status", sum(h."runs"), sum(h."recordsExtracted"), sum(h."recordsExported"), sum(h."errorCount"), sum(h."pageCount")
    FROM "AgentRunHour" h JOIN "Agent" a ON a."id" = h."agentId" GROUP BY 1, 2, 3, 4 ORDER BY 3`);
  await client.query(`
    INSERT INTO "SpaceRunDay" ("spaceId", "organizationId", "day", "status", "runs", "recordsExtracted", "recordsExported", "errorCount", "pageCount")
    SELECT h."spaceId", h."organizationId", date_trunc('day', h."hour"), h."status", sum(h."runs"), sum(h."recordsExtracted"), sum(h."recordsExported"), sum(h."errorCount"), sum(h."pageCount")
    FROM "SpaceRunHour" h GROUP BY 1, 2, 3, 4 ORDER BY 3`);
  note('vacuum analyze');
  await client.query('VACUUM ANALYZE');
}

interface Row {
  label: string;
  p50: number;
  p95: number;
  p99: number;
  result: string;
}

export async function benchAnalytics(): Promise<Row[]> {
  const bench = await createBenchEnvironment();
  const config = bench.config;
  const t0 = performance.now();
  const seeded = await runSeed(config, { agents: AGENTS, spaces: 10 }, note);
  if (!seeded.apiKey) throw new Error('the seed did not return an API key');
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  let memberKey: string;
  try {
    await seedRuns(client, seeded.organizationId);
    const db = createPrisma(config.databaseUrl, { max: 2 });
    try {
      const repo = createIdentityRepository(db);
      const user = await repo.createUser({
        organizationId: seeded.organizationId,
        email: `bench-${bench.dbName}@example.com`,
        name: 'Bench member',
        role: 'member',
        passwordHash: null,
      });
      await db.spaceMembership.createMany({
        data: seeded.spaceIds.slice(0, 5).map((spaceId) => ({ spaceId, userId: user.id, role: 'reader' })),
      });
      memberKey = (
        await issueApiKey(repo, {
          organizationId: seeded.organizationId,
          userId: user.id,
          description: 'bench',
          expiresAt: new Date(Date.now() + 86_400_000),
        })
      ).key;
    } finally {
      await db.$disconnect();
    }
  } catch (err) {
    await client.end();
    throw err;
  }
  const seedSeconds = (performance.now() - t0) / 1000;
  const {
    rows: [{ n: runCount }],
  } = await client.query('SELECT count(*)::int AS n FROM "Run"');
  const {
    rows: [{ n: rollupRows }],
  } = await client.query(
    'SELECT (SELECT count(*) FROM "AgentRunHour") + (SELECT count(*) FROM "SpaceRunHour") + (SELECT count(*) FROM "SpaceRunDay") AS n',
  );
  const {
    rows: [{ id: agentId }],
  } = await client.query('SELECT "id" FROM "Agent" ORDER BY "id" OFFSET 500 LIMIT 1');

  const app = await buildApp(config, { logger: false });
  await app.ready();
  const rows: Row[] = [];
  try {
    const now = Date.now();
    const range = (days: number) =>
      `startDate=${new Date(now - days * 86_400_000).toISOString()}&endDate=${new Date(now).toISOString()}`;
    const measure = async (
      label: string,
      url: string,
      key = seeded.apiKey!,
      describe: (body: any) => string = () => '',
    ) => {
      const times: number[] = [];
      let body: any;
      for (let i = 0; i < ITERATIONS + 5; i++) {
        const start = performance.now();
        const res = await app.inject({ method: 'GET', url, headers: { authorization: `ApiKey ${key}` } });
        const ms = performance.now() - start;
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
        if (i >= 5) times.push(ms);
        body = res.json();
      }
      rows.push({
        label,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        result: describe(body),
      });
      note(`${label}: p95 ${fmt(percentile(times, 95))} ms`);
      return body;
    };
    const runsResult = (b: any) =>
      `total ${b.totalRuns}, failed ${b.failedRuns}, details ${b.failedRunDetails?.length ?? '-'}`;
    const recordsResult = (b: any) => `runs ${b.runCount}, records ${b.totalRecordsExtracted}`;

    await measure('floor: GET /api/v1/spaces (10 Spaces)', '/api/v1/spaces');
    const all30 = await measure(
      'runs summary, 30 days',
      `/api/v1/analytics/runs/summary?${range(30)}`,
      undefined,
      runsResult,
    );
    await measure(
      'runs summary, 30 days, includeDetails=false',
      `/api/v1/analytics/runs/summary?${range(30)}&includeDetails=false`,
      undefined,
      runsResult,
    );
    await measure(
      'runs summary, 30 days, one Agent',
      `/api/v1/analytics/runs/summary?${range(30)}&agentId=${agentId}`,
      undefined,
      runsResult,
    );
    await measure('runs summary, 1 day', `/api/v1/analytics/runs/summary?${range(1)}`, undefined, runsResult);
    await measure(
      'runs summary, 1 day, one Agent',
      `/api/v1/analytics/runs/summary?${range(1)}&agentId=${agentId}`,
      undefined,
      runsResult,
    );
    await measure(
      'runs summary, 30 days, status=Failed',
      `/api/v1/analytics/runs/summary?${range(30)}&status=Failed`,
      undefined,
      runsResult,
    );
    await measure(
      'runs summary, 30 days, member (5 of 10 Spaces)',
      `/api/v1/analytics/runs/summary?${range(30)}`,
      memberKey,
      runsResult,
    );
    await measure(
      'records summary, 30 days',
      `/api/v1/analytics/records/summary?${range(30)}`,
      undefined,
      recordsResult,
    );
    await measure(
      'records summary, 30 days, one Agent',
      `/api/v1/analytics/records/summary?${range(30)}&agentId=${agentId}`,
      undefined,
      recordsResult,
    );
    await measure('records summary, 1 day', `/api/v1/analytics/records/summary?${range(1)}`, undefined, recordsResult);
    await measure(
      'records summary, 1 day, one Agent',
      `/api/v1/analytics/records/summary?${range(1)}&agentId=${agentId}`,
      undefined,
      recordsResult,
    );
    await measure(
      'records summary, 90 days, member (5 of 10 Spaces)',
      `/api/v1/analytics/records/summary?${range(DAYS)}`,
      memberKey,
      recordsResult,
    );

    // What the rollups avoid: the same 30-day totals counted over the Runs themselves.
    const direct: number[] = [];
    let directTotal = 0;
    for (let i = 0; i < 10; i++) {
      const start = performance.now();
      const { rows: r } = await client.query(
        'SELECT "status", count(*)::int AS n FROM "Run" WHERE "organizationId" = $1 AND "created" >= $2 AND "created" < $3 GROUP BY 1',
        [
          seeded.organizationId,
          new Date(now - 30 * 86_400_000).toISOString().replace('Z', ''),
          new Date(now).toISOString().replace('Z', ''),
        ],
      );
      direct.push(performance.now() - start);
      directTotal = r.reduce((n: number, x: { n: number }) => n + x.n, 0);
    }
    rows.push({
      label: 'for comparison: 30-day count over the Runs (SQL, no rollups)',
      p50: percentile(direct, 50),
      p95: percentile(direct, 95),
      p99: percentile(direct, 99),
      result: `total ${directTotal}`,
    });
    if (directTotal !== all30.totalRuns)
      throw new Error(`the 30-day summary counted ${all30.totalRuns} Runs, the Runs themselves ${directTotal}`);
  } finally {
    await app.close();
    await client.end();
    await bench.dispose();
  }
  print(
    table(
      `Analytics (${runCount.toLocaleString('en-US')} Runs, ${AGENTS.toLocaleString('en-US')} Agents, 10 Spaces, ${DAYS} days; ${Number(rollupRows).toLocaleString('en-US')} rollup rows; seeded in ${fmt(seedSeconds, 0)} s; ${ITERATIONS} requests per case through app.inject)`,
      ['case', 'p50 ms', 'p95 ms', 'p99 ms', 'result'],
      rows.map((r) => [r.label, fmt(r.p50), fmt(r.p95), fmt(r.p99), r.result]),
    ),
  );
  return rows;
}
