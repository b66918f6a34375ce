// Runs throughput: how many small Runs per second the system takes from the start request to a
// terminal status, with 1 and with 2 worker processes (src/worker.ts, RUN_WORKER_CONCURRENCY each).
//
// The API runs in this process (buildApp + app.inject) on a fresh migrated database; the workers are
// real processes; every Run belongs to its own Agent (Agents are exclusive by default) whose
// definition reads one 10-product page of the fixture site on 127.0.0.1. All start requests are
// fired at once, then the Runs are polled until every one is terminal.
//
// The same burst then goes, for each worker count, to the floor (bench/runs-floor.ts): bare BullMQ
// workers doing only the irreducible work per Run; our Runs/s is reported as a ratio of it
// (BENCH_FLOOR=0 leaves it out). A last part times the Run child process on its own (bench/runs-child.ts).
//
//   npm run bench -- runs                 (or: npx tsx bench/runs.ts)
//   BENCH_RUNS=60 BENCH_WORKERS=1,2 npm run bench -- runs
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import type { AgentDefinition } from '../src/engine/index.js';
import {
  RunStatus,
  TERMINAL_STATUSES,
  RUN_STATUS_NAMES,
  type RunStatusValue,
} from '../src/services/runs/status-machine.js';
import { startFixtureSite } from '../test/helpers/fixture-site.js';
import {
  benchOrganization,
  catalogList,
  createBenchAgents,
  createBenchEnvironment,
  fmt,
  installSignalCleanup,
  note,
  onCleanup,
  percentile,
  print,
  processTreeCpuMs,
  serviceCpuSince,
  serviceCpuSnapshot,
  runCleanups,
  sleep,
  startWorkerProcess,
  table,
  type BurstFigures,
  type WorkerProcess,
} from './helpers.js';
import { benchRunChild, printChildTables, type ChildCost } from './runs-child.js';
import { measureFloor, printFloorTable, type FloorScenario } from './runs-floor.js';
import { PG_CLIENTS, postgresCpuSince, postgresCpuSnapshot, printPostgresTable } from './postgres-cpu.js';

export interface RunsScenario extends BurstFigures {
  /** How the workers ran: `tsx src/worker.ts` or `node <dist>/worker.js`. */
  mode: string;
  concurrencyPerWorker: number;
  /** Start request sent -> picked by a worker (startTime): time spent queued. */
  queuedP50Ms: number;
  /** Picked -> terminal: the Run's own cost (child process, crawl, export, status updates). */
  executeP50Ms: number;
  executeP95Ms: number;
  /** Start request round trip (POST /start through app.inject, while all are in flight). */
  startRequestP50Ms: number;
  /** Start requests that did not answer 202 (their Runs are not counted). */
  startErrors: number;
  /** CPU per completed Run: the worker processes themselves, their per-Run children, and this process (API + fixture site + polling). */
  workerCpuMsPerRun: number;
  childCpuMsPerRun: number;
  apiCpuMsPerRun: number;
  /** SQL round trips per completed Run of the worker processes (every node-postgres query: BEGIN and COMMIT when sent alone, not when they go with a statement), and of the API during the start requests. */
  workerStatementsPerRun: number;
  apiStatementsPerRun: number;
  statuses: Record<string, number>;
}

/** Waits (at most 30 s) until the processes and their children use under 5 % of a core. */
async function untilIdle(pids: number[]): Promise<void> {
  const cpu = () => pids.reduce((n, pid) => n + processTreeCpuMs(pid).own + processTreeCpuMs(pid).children, 0);
  const deadline = Date.now() + 30_000;
  let last = cpu();
  while (Date.now() < deadline) {
    await sleep(500);
    const now = cpu();
    if (now - last < 25) return;
    last = now;
  }
}

export interface RunsBenchResult {
  scenarios: RunsScenario[];
  floors: FloorScenario[];
  child: ChildCost[];
  /** The same extraction in-process, without any child (runExtraction only), p50 ms. */
  inProcessP50Ms: number;
}

/** One list page of 10 products, no pagination, no detail pages: the smallest useful Run. */
export function smallDefinition(siteUrl: string): AgentDefinition {
  return {
    ...catalogList(siteUrl),
    politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed: no robots.txt, the Run-wide limit only
    export: { format: 'csv' },
  };
}

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer between ${min} and ${max}`);
  return n;
}

export async function benchRuns(
  opts: { runs?: number; workers?: number[]; childSamples?: number; distDir?: string } = {},
): Promise<RunsBenchResult> {
  // 400 by default: the floor takes a burst of 60 in well under a second, which measures its start-up, not its rate.
  const total = opts.runs ?? envInt('BENCH_RUNS', 400, 1, 1000);
  const workerCounts = opts.workers ?? (process.env.BENCH_WORKERS ?? '1,2').split(',').map((s) => Number(s.trim()));
  if (workerCounts.some((n) => !Number.isInteger(n) || n < 1 || n > 8))
    throw new Error('BENCH_WORKERS must list worker counts between 1 and 8');
  const childSamples = opts.childSamples ?? envInt('BENCH_CHILD_SAMPLES', 8, 1, 50);
  // Ours and the floor alternate this many times per worker count (the machine's speed drifts).
  // Five by default: one round's ratio moves by 0.1 and more from the next on these machines (0.39 to 0.59 for one
  // build in one invocation), and the median of three still moved by 0.05 between invocations; the median is printed.
  const rounds = envInt('BENCH_ROUNDS', 5, 1, 10);
  // Warm-up Runs fired at once before each burst, ours and the floor's alike: at least one per slot, and
  // enough that the API's and the workers' connection pools are open at their burst size (a new
  // PostgreSQL backend costs tens of ms of CPU to start and to load its catalog; a running service has
  // its pools open).
  const warmRuns = envInt('BENCH_WARM_RUNS', 40, 1, 1000);
  // With a compiled build (BENCH_DIST=dist after `npm run build`), production's `node dist/worker.js`
  // is measured too, next to the `tsx src/worker.ts` the tests use.
  // Several builds can be compared side by side in one run: BENCH_DIST=build-before,dist. BENCH_TSX=0
  // leaves out the tsx workers.
  const distDirs = (opts.distDir ?? process.env.BENCH_DIST ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const distDir = distDirs.at(-1);
  const modes: Array<{ mode: string; distDir?: string }> =
    process.env.BENCH_TSX === '0' ? [] : [{ mode: 'tsx src/worker.ts' }];
  for (const d of distDirs) modes.push({ mode: `node ${d}/worker.js`, distDir: d });
  // Statements are counted in the workers by a preload (bench/count-statements.mjs), in this process by the same patch.
  const statementsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-bench-statements-'));
  onCleanup('statement counts', () => fs.rmSync(statementsDir, { recursive: true, force: true }));
  const preload = pathToFileURL(fileURLToPath(new URL('./count-statements.mjs', import.meta.url))).href;
  const pgClient = createRequire(import.meta.url)('pg').Client.prototype as { query: (...args: unknown[]) => unknown };
  let apiStatements = 0;
  const pgQuery = pgClient.query;
  pgClient.query = function (this: unknown, ...args: unknown[]) {
    apiStatements += 1;
    return pgQuery.apply(this, args);
  };
  onCleanup('statement count patch', () => void (pgClient.query = pgQuery));
  // Asks the worker for its count (SIGUSR2) and waits for the answer (the file's sequence number moves on).
  const workerStatements = async (pid: number) => {
    const read = () =>
      fs
        .readFileSync(path.join(statementsDir, String(pid)), 'utf8')
        .split(' ')
        .map(Number);
    const [, seq] = read();
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 100; i++) {
      await sleep(20);
      const [count, now] = read();
      if (now !== seq) return count;
    }
    return NaN;
  };

  // This process's connections (the API's) name themselves, and each worker's too: PostgreSQL's CPU is split by them.
  const appName = process.env.PGAPPNAME;
  process.env.PGAPPNAME = PG_CLIENTS.api;
  onCleanup('PGAPPNAME', () => {
    if (appName === undefined) delete process.env.PGAPPNAME;
    else process.env.PGAPPNAME = appName;
  });
  note('runs: creating a migrated database...');
  const bench = await createBenchEnvironment();
  const { config, env } = bench;
  const concurrency = config.runs.workerConcurrency;
  const site = await startFixtureSite();
  onCleanup('fixture site', () => site.close());
  const app = await buildApp(config, { logger: false });
  onCleanup('app', () => app.close());
  // The app logs nothing here; unexpected errors are shown so a failing start can be explained.
  app.addHook('onError', async (req, _reply, err) => {
    if (
      (err as { statusCode?: number }).statusCode === undefined ||
      (err as { statusCode: number }).statusCode >= 500
    ) {
      note(
        `runs: server error on ${req.method} ${req.url}: ${err.message.split('\n').slice(-3).join(' ').slice(0, 500)}`,
      );
    }
  });
  await app.ready();
  const pollUrl = new URL(config.databaseUrl);
  pollUrl.searchParams.set('application_name', PG_CLIENTS.poll);
  const db = createPrisma(pollUrl.toString(), { max: 2 });
  onCleanup('bench db client', () => db.$disconnect());

  const scenarios: RunsScenario[] = [];
  const floors: FloorScenario[] = [];
  let child: ChildCost[] = [];
  let inProcessP50Ms = NaN;
  try {
    const org = await benchOrganization(db);
    const { headers } = org;
    const definition = smallDefinition(site.url);

    // One Agent per Run of a scenario: starts of one (exclusive) Agent would otherwise conflict.
    note(`runs: creating ${total} agents...`);
    const agentIds = await createBenchAgents(app, org, definition, total);

    const start = async (agentId: number): Promise<number | null> => {
      const res = await app.inject({ method: 'POST', url: `/api/v1/agent/${agentId}/start`, headers, payload: {} });
      if (res.statusCode === 202) return res.json().id as number;
      note(`runs: starting agent ${agentId}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
      return null;
    };
    const started = (ids: Array<number | null>) => ids.filter((id): id is number => id !== null);
    const terminal = new Set<number>(TERMINAL_STATUSES);
    // Also gives up when no Run has ended for `stallMs`: Runs that hang are reported, not waited for.
    const pollUntilTerminal = async (ids: number[], deadline: number, stallMs = 20_000) => {
      let last = { done: -1, at: Date.now() };
      const wanted = new Set(ids);
      const range = { gte: Math.min(...ids), lte: Math.max(...ids) };
      for (;;) {
        // An id range, not an IN list of every id: the poll costs this process about what the floor's costs it.
        const rows = (
          await db.run.findMany({
            where: { id: range },
            select: { id: true, status: true, startTime: true, endTime: true, recordsExported: true },
          })
        ).filter((r) => wanted.has(r.id));
        const done = rows.filter((r) => terminal.has(r.status)).length;
        if (done !== last.done) last = { done, at: Date.now() };
        if (done === ids.length || Date.now() > deadline || Date.now() - last.at > stallMs) return rows;
        await sleep(50);
      }
    };

    const floorCtx = {
      db,
      env,
      organizationId: org.organizationId,
      agentIds,
      definition,
      concurrency,
      warmRuns,
      pageCpuSeconds: config.runs.pageCpuSeconds,
      preloadEnv: {
        BENCH_STATEMENTS_DIR: statementsDir,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim(),
      },
      statements: workerStatements,
    };
    // Per worker count, ours (each mode) and then the floor, so that they run side by side.
    for (const workerCount of workerCounts) {
      for (let round = 1; round <= rounds; round++) {
        for (const { mode, distDir: dir } of modes) {
          note(`runs: starting ${workerCount} worker process(es) (${mode}), RUN_WORKER_CONCURRENCY=${concurrency}...`);
          // BENCH_CPU_PROF=<dir>: CPU profiles of the workers and their run processes, written when they exit (by the preload).
          const prof: Record<string, string> = process.env.BENCH_CPU_PROF
            ? { BENCH_CPU_PROF: path.resolve(process.env.BENCH_CPU_PROF) }
            : {};
          const workerEnv = {
            ...env,
            // Every slot's run process started ahead: the warm-up Runs do not reach every slot of every worker.
            RUN_WARM_PROCESSES: process.env.RUN_WARM_PROCESSES ?? String(concurrency),
            ...prof,
            PGAPPNAME: PG_CLIENTS.worker,
            BENCH_STATEMENTS_DIR: statementsDir,
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim(),
          };
          const workers: WorkerProcess[] = await Promise.all(
            Array.from({ length: workerCount }, () => startWorkerProcess(workerEnv, dir)),
          );
          try {
            // Warm-up: every worker slot runs once (tsx's transform cache, Postgres plans, sockets, pools).
            const warm = agentIds.slice(0, Math.min(total, Math.max(warmRuns, workerCount * concurrency)));
            const warmIds = started(await Promise.all(warm.map(start)));
            // (Forking a run process per slot can take longer than 20 s on a busy machine.)
            const warmRows = await pollUntilTerminal(warmIds, Date.now() + 60_000, 60_000);
            if (warmRows.some((r) => !terminal.has(r.status)))
              throw new Error(
                `the warm-up Runs did not end within 60 s (statuses ${warmRows.map((r) => r.status).join(', ')})`,
              );

            // Run processes started ahead load Node and the engine (0.5-2 s of CPU each): the burst starts once
            // they are done, whether or not the warm-up Runs went to them (a one-page Run executes inline).
            await untilIdle(workers.map((w) => w.pid));
            note(`runs: firing ${total} start requests with ${workerCount} worker(s)...`);
            const sentAt = new Map<number, number>();
            const requestMs: number[] = [];
            const workerStatements0 = await Promise.all(workers.map((w) => workerStatements(w.pid)));
            const postgres0 = await postgresCpuSnapshot();
            const workerCpu0 = workers.map((w) => processTreeCpuMs(w.pid));
            const apiCpu0 = process.cpuUsage();
            const service0 = serviceCpuSnapshot();
            const apiStatements0 = apiStatements;
            const t0 = Date.now();
            const ids = started(
              await Promise.all(
                agentIds.map(async (agentId) => {
                  const sent = Date.now();
                  const p0 = performance.now();
                  const id = await start(agentId);
                  requestMs.push(performance.now() - p0);
                  if (id !== null) sentAt.set(id, sent);
                  return id;
                }),
              ),
            );
            const apiStatements1 = apiStatements;
            // Bounded: a Run of one local page takes well under a second of work.
            const rows = await pollUntilTerminal(ids, Date.now() + 60_000 + total * 2_000);
            const workerCpu1 = workers.map((w) => processTreeCpuMs(w.pid));
            const workerStatements1 = await Promise.all(workers.map((w) => workerStatements(w.pid)));
            const apiCpu = process.cpuUsage(apiCpu0);
            const service = serviceCpuSince(service0);
            const postgres = await postgresCpuSince(postgres0);
            // Runs that hang would keep their (exclusive) Agents from starting in the next scenario.
            await db.run.updateMany({
              where: { id: { in: ids }, status: { notIn: [...TERMINAL_STATUSES] } },
              data: { status: RunStatus.Failure, endTime: new Date() },
            });
            const finished = rows.filter((r) => terminal.has(r.status) && r.endTime);
            const perRun = (ms: number) => ms / Math.max(1, finished.length);
            const statuses: Record<string, number> = {};
            for (const r of rows) {
              const name = RUN_STATUS_NAMES[r.status as RunStatusValue] ?? String(r.status);
              statuses[name] = (statuses[name] ?? 0) + 1;
            }
            const lastEnd = finished.length > 0 ? Math.max(...finished.map((r) => r.endTime!.getTime())) : NaN;
            const latency = finished.map((r) => r.endTime!.getTime() - sentAt.get(r.id)!);
            const queued = finished.filter((r) => r.startTime).map((r) => r.startTime!.getTime() - sentAt.get(r.id)!);
            const execute = finished
              .filter((r) => r.startTime)
              .map((r) => r.endTime!.getTime() - r.startTime!.getTime());
            const seconds = (lastEnd - t0) / 1000;
            const wrongCounts = finished.filter((r) => r.recordsExported !== 10).length;
            if (wrongCounts > 0) note(`runs: warning: ${wrongCounts} Run(s) did not export the 10 expected records`);
            scenarios.push({
              mode,
              workers: workerCount,
              round,
              concurrencyPerWorker: concurrency,
              runs: total,
              completed: finished.length,
              seconds,
              runsPerSecond: finished.length / seconds,
              latencyP50Ms: percentile(latency, 50),
              latencyP95Ms: percentile(latency, 95),
              queuedP50Ms: percentile(queued, 50),
              executeP50Ms: percentile(execute, 50),
              executeP95Ms: percentile(execute, 95),
              startRequestP50Ms: percentile(requestMs, 50),
              startErrors: total - ids.length,
              workerCpuMsPerRun: perRun(workerCpu1.reduce((n, c, i) => n + c.own - workerCpu0[i].own, 0)),
              childCpuMsPerRun: perRun(workerCpu1.reduce((n, c, i) => n + c.children - workerCpu0[i].children, 0)),
              apiCpuMsPerRun: perRun((apiCpu.user + apiCpu.system) / 1000),
              serviceCpuMsPerRun: { postgres: perRun(service.postgres), redis: perRun(service.redis) },
              postgresByClientMsPerRun: Object.fromEntries(Object.entries(postgres).map(([k, ms]) => [k, perRun(ms)])),
              workerStatementsPerRun: perRun(workerStatements1.reduce((n, c, i) => n + c - workerStatements0[i], 0)),
              apiStatementsPerRun: perRun(apiStatements1 - apiStatements0),
              statuses,
            });
            note(
              `runs: ${workerCount} worker(s) (${mode}): ${finished.length}/${total} terminal in ${fmt(seconds, 2)} s`,
            );
          } finally {
            await Promise.all(workers.map((w) => w.stop()));
          }
        }
        if (process.env.BENCH_FLOOR !== '0') floors.push(await measureFloor(floorCtx, workerCount, round));
      }
    }

    ({ child, inProcessP50Ms } = await benchRunChild({ config, definition, childSamples, distDir }));
  } finally {
    await runCleanups();
  }

  print(
    table(
      `Runs: small Runs (1 page, 10 records, CSV) from start request to terminal status, ${total} fired at once`,
      [
        'worker process',
        'workers',
        'slots',
        'runs',
        'seconds',
        'runs/s',
        'p50 start request ms',
        'p50 latency ms',
        'p95 latency ms',
        'p50 queued ms',
        'p50 execute ms',
        'p95 execute ms',
        'statuses',
      ],
      scenarios.map((s) => [
        s.mode,
        s.workers,
        s.workers * s.concurrencyPerWorker,
        `${s.completed}/${s.runs}`,
        fmt(s.seconds, 2),
        fmt(s.runsPerSecond, 2),
        fmt(s.startRequestP50Ms, 0),
        fmt(s.latencyP50Ms, 0),
        fmt(s.latencyP95Ms, 0),
        fmt(s.queuedP50Ms, 0),
        fmt(s.executeP50Ms, 0),
        fmt(s.executeP95Ms, 0),
        [
          ...Object.entries(s.statuses).map(([k, v]) => `${k} ${v}`),
          ...(s.startErrors ? [`start failed ${s.startErrors}`] : []),
        ].join(', '),
      ]),
    ),
  );
  print(
    `RUN_WORKER_CONCURRENCY = ${scenarios[0]?.concurrencyPerWorker ?? '-'} per worker process; "slots" = workers x concurrency. ` +
      'Latency: start request sent -> endTime; queued: -> startTime (picked); execute: startTime -> endTime.',
  );
  const cores = os.cpus().length;
  print(
    table(
      'Runs: CPU per completed Run (Linux /proc; Postgres and Redis not included)',
      [
        'worker process',
        'workers',
        'worker CPU ms/run',
        'child CPU ms/run',
        'API + site CPU ms/run',
        'total ms/run',
        `ceiling on ${cores} cores, runs/s`,
        'worker SQL round trips/run',
        'API SQL round trips/start',
      ],
      scenarios.map((s) => {
        const sum = s.workerCpuMsPerRun + s.childCpuMsPerRun + s.apiCpuMsPerRun;
        return [
          s.mode,
          s.workers,
          fmt(s.workerCpuMsPerRun, 0),
          fmt(s.childCpuMsPerRun, 0),
          fmt(s.apiCpuMsPerRun, 0),
          fmt(sum, 0),
          fmt((cores * 1000) / sum, 2),
          fmt(s.workerStatementsPerRun, 1),
          fmt(s.apiStatementsPerRun, 1),
        ];
      }),
    ),
  );
  if (floors.length > 0) printFloorTable(scenarios, floors);
  if (floors.length > 0) printPostgresTable(scenarios, floors);
  printChildTables(child, childSamples, inProcessP50Ms);
  return { scenarios, floors, child, inProcessP50Ms };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  installSignalCleanup();
  benchRuns().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
