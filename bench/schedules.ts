// Benchmark of Schedule firing. (1) 10,000 enabled Schedules due in the same minute, fired by 2
// worker processes (src/worker.ts, SCHEDULE_TICK_SECONDS=1): every fire must become exactly one Run
// (duplicates and misses counted from the database) and the fire lag (due time -> Run row created)
// is reported as p50/p99/max. The Schedules use a server group no worker serves, so their Runs stay
// Queuing: the figures are those of firing, not of executing 10,000 extractions on 2 cores.
// (2) The tick's cost with 100,000 enabled Schedules of which none is due: statements and
// milliseconds per tick, measured in this process with the worker's own firing service.
import { performance } from 'node:perf_hooks';
import { createPrisma } from '../src/db/prisma.js';
import { createGroupQueues, createQueue, createRunScheduler, redisConnection } from '../src/queues/queues.js';
import { runSeed } from '../src/tools/seed.js';
import { createCreditsRepository } from '../src/services/billing/credits.repository.js';
import { createRunsRepository } from '../src/services/runs/runs.repository.js';
import { createScheduleFiring } from '../src/services/schedules/firing.service.js';
import { createSchedulesRepository } from '../src/services/schedules/schedules.repository.js';
import { createWebhooksRepository } from '../src/services/webhooks/webhooks.repository.js';
import { startStatementCounter } from '../test/helpers/statement-counter.js';
import {
  createBenchEnvironment,
  fmt,
  machineSummary,
  note,
  percentile,
  print,
  sleep,
  startWorkerProcess,
  table,
} from './helpers.js';

const DUE = Number(process.env.BENCH_SCHEDULES_DUE ?? 10_000);
const IDLE = Number(process.env.BENCH_SCHEDULES_IDLE ?? 100_000);
const AGENTS = 1000;
const NO_WORKER_GROUP = 999;

export async function benchSchedules() {
  const bench = await createBenchEnvironment({
    SCHEDULE_TICK_SECONDS: '1',
    RUN_RECONCILE_INTERVAL_SECONDS: '3600',
    RUN_WARM_PROCESSES: '0',
  });
  const config = bench.config;
  const db = createPrisma(config.databaseUrl, { max: 4 });
  try {
    note(`seeding ${AGENTS} Agents`);
    const seeded = await runSeed(config, { agents: AGENTS, spaces: 1 }, () => {});
    const agents = (
      await db.agent.findMany({
        where: { organizationId: seeded.organizationId, validationStatus: 3 },
        select: { id: true },
      })
    ).map((a) => a.id);

    const rows = (n: number, nextRunTime: Date, offset: number) =>
      Array.from({ length: n }, (_, i) => ({
        organizationId: seeded.organizationId,
        agentId: agents[(i + offset) % agents.length],
        name: `bench ${i + offset}`,
        scheduleType: 2,
        runEveryCount: 1,
        runEveryPeriod: 2, // hourly: each fires once during the bench
        startTime: nextRunTime,
        nextRunTime,
        isEnabled: true,
        isExclusive: false,
        serverGroupId: NO_WORKER_GROUP,
      }));
    const insert = async (n: number, at: Date, offset: number) => {
      for (let i = 0; i < n; i += 5000)
        await db.schedule.createMany({ data: rows(Math.min(5000, n - i), at, offset + i) });
    };

    // ---- (1) 10,000 due in the same minute, 2 workers.
    const workers = [await startWorkerProcess(bench.env), await startWorkerProcess(bench.env)];
    // Due at the start of a minute far enough ahead for the inserts to finish first.
    const minute = 60_000;
    const dueAt = new Date(Math.ceil((Date.now() + 20_000) / minute) * minute);
    note(`inserting ${DUE} Schedules due at ${dueAt.toISOString()}`);
    await insert(DUE, dueAt, 0);
    const loadBefore = machineSummary().replace(/^.*load average /, '');
    await sleep(Math.max(0, dueAt.getTime() - Date.now()));
    const t0 = performance.now();
    let created = 0;
    while (performance.now() - t0 < 180_000) {
      created = await db.run.count({ where: { scheduleId: { not: null } } });
      if (created >= DUE) break;
      await sleep(250);
    }
    const drainSeconds = (performance.now() - t0) / 1000;
    await sleep(3000); // a few more ticks: nothing else may fire
    const [stats] = await db.$queryRaw<Array<{ runs: bigint; fires: bigint; schedules_fired: bigint }>>`
      SELECT count(*) AS runs, count(DISTINCT ("scheduleId", "scheduledFor")) AS fires, count(DISTINCT "scheduleId") AS schedules_fired
      FROM "Run" WHERE "scheduleId" IS NOT NULL`;
    const lags = (
      await db.$queryRaw<Array<{ ms: number }>>`
      SELECT EXTRACT(EPOCH FROM (created - "scheduledFor")) * 1000 AS ms FROM "Run" WHERE "scheduleId" IS NOT NULL`
    ).map((r) => Number(r.ms));
    const duplicates = Number(stats.runs) - Number(stats.fires);
    const misses = DUE - Number(stats.schedules_fired);
    const ticks = workers.map((w) => (w.output().match(/"msg":"schedules fired"/g) ?? []).length);
    for (const w of workers) await w.stop();
    print(
      table(
        `Schedules: ${DUE.toLocaleString('en-US')} due in the same minute, 2 worker processes (load before ${loadBefore})`,
        [
          'runs',
          'duplicates',
          'misses',
          'lag p50 ms',
          'lag p99 ms',
          'lag max ms',
          'all created after s',
          'ticks that fired (w1/w2)',
        ],
        [
          [
            Number(stats.runs),
            duplicates,
            misses,
            fmt(percentile(lags, 50), 0),
            fmt(percentile(lags, 99), 0),
            fmt(Math.max(...lags), 0),
            fmt(drainSeconds, 1),
            ticks.join('/'),
          ],
        ],
      ),
    );

    // ---- (2) tick cost, 100,000 enabled, none due.
    note(`inserting ${IDLE - DUE} more Schedules (none due)`);
    await insert(IDLE - DUE, new Date(Date.now() + 7 * 86_400_000), DUE);
    await db.$executeRawUnsafe('ANALYZE "Schedule"');
    const enabled = await db.schedule.count({ where: { isEnabled: true } });
    const due = await db.schedule.count({ where: { isEnabled: true, nextRunTime: { lte: new Date() } } });
    // Statements counted at the PostgreSQL protocol, whoever sends them.
    const counter = await startStatementCounter(config.databaseUrl);
    const counted = createPrisma(counter.url, { max: 4 });
    const connection = redisConnection(config.redisUrl);
    const runsQueue = createQueue('runs', connection, config.redisPrefix);
    const groups = createGroupQueues(connection, config.redisPrefix);
    const runsRepo = createRunsRepository(counted);
    const firing = createScheduleFiring({
      repo: createSchedulesRepository(counted),
      runs: runsRepo,
      credits: createCreditsRepository(counted),
      scheduler: createRunScheduler(runsQueue, {
        groups: {
          groupQueue: groups.get,
          serverGroupOf: async (id) => (await runsRepo.findRun(id))?.serverGroupId ?? null,
        },
      }),
      outbox: createWebhooksRepository(counted),
      clock: { now: () => new Date() },
      log: { info: () => {}, warn: () => {} } as never,
      batchSize: config.schedules.batchSize,
    });
    for (let i = 0; i < 20; i++) await firing.tick(); // warm-up
    const before = counter.count();
    const times: number[] = [];
    const N = 200;
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await firing.tick();
      times.push(performance.now() - s);
    }
    const statements = counter.count() - before;
    const plan = (
      await db.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN ANALYZE SELECT * FROM "Schedule" WHERE "isEnabled" = true AND "nextRunTime" <= now()::timestamp ORDER BY "nextRunTime", id LIMIT ${config.schedules.batchSize} FOR UPDATE SKIP LOCKED`,
      )
    ).map((r) => r['QUERY PLAN']);
    await runsQueue.close();
    await groups.close();
    await counted.$disconnect();
    await counter.close();
    print(
      table(
        `Schedules: tick cost with ${enabled.toLocaleString('en-US')} enabled Schedules, ${due} due`,
        ['ticks', 'statements per tick', 'ms per tick p50', 'ms per tick p99'],
        [[N, fmt(statements / N, 1), fmt(percentile(times, 50), 2), fmt(percentile(times, 99), 2)]],
      ),
    );
    print(`\nClaim query plan:\n\n${plan.map((l) => `    ${l}`).join('\n')}`);
    return { runs: Number(stats.runs), duplicates, misses, lags };
  } finally {
    await db.$disconnect();
    await bench.dispose();
  }
}
