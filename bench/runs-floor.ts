// The floor of `bench -- runs`: the same burst of small Runs, on the same Redis, PostgreSQL, fixture
// site and machine, taken by N bare BullMQ worker processes (bench/floor-worker.ts) that do per Run
// only the irreducible work: INSERT the Run row, run the extraction in-process, write the CSV, UPDATE
// the row to Success. Our Runs/s is reported as a ratio of this floor, measured in the same invocation
// right after our scenario of the same worker count.
import { Queue } from 'bullmq';
import { performance } from 'node:perf_hooks';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import type { AgentDefinition } from '../src/engine/index.js';
import { startNode, waitFor } from '../test/helpers/process.js';
import {
  fmt,
  note,
  onCleanup,
  percentile,
  print,
  processTreeCpuMs,
  serviceCpuSince,
  serviceCpuSnapshot,
  type ServiceCpu,
  sleep,
  table,
  type BurstFigures,
} from './helpers.js';
import type { FloorJob } from './floor-worker.js';
import { PG_CLIENTS, postgresCpuSince, postgresCpuSnapshot } from './postgres-cpu.js';
import type { RunsScenario } from './runs.js';

export interface FloorScenario extends BurstFigures {
  /** CPU per completed Run: the floor worker processes, and this process (the feeder, fixture site, polling). */
  workerCpuMsPerRun: number;
  benchCpuMsPerRun: number;
  workerStatementsPerRun: number;
}

export interface FloorContext {
  db: PrismaClient;
  /** The bench environment (DATABASE_URL, REDIS_URL, REDIS_PREFIX, STORAGE_DIR...). */
  env: Record<string, string>;
  organizationId: number;
  agentIds: number[];
  definition: AgentDefinition;
  concurrency: number;
  /** Warm-up Runs fired at once before the burst (at least one per slot), as for ours. */
  warmRuns: number;
  pageCpuSeconds: number;
  /** NODE_OPTIONS and BENCH_STATEMENTS_DIR of the statement-counting preload. */
  preloadEnv: Record<string, string>;
  /** A worker process's statement count so far (asked by SIGUSR2). */
  statements(pid: number): Promise<number>;
}

const SUCCESS = 10;

async function startFloorWorker(env: Record<string, string>): Promise<{ pid: number; stop: () => Promise<void> }> {
  const w = startNode(['bench/floor-worker.ts'], env);
  const stop = onCleanup(`floor worker ${w.child.pid}`, async () => {
    if (w.child.exitCode !== null || w.child.signalCode !== null) return;
    w.child.kill('SIGTERM');
    const timer = setTimeout(() => w.child.kill('SIGKILL'), 10_000);
    await w.exited;
    clearTimeout(timer);
  });
  try {
    await waitFor(
      async () => {
        if (w.child.exitCode !== null) throw new Error(`exited with ${w.child.exitCode}: ${w.output()}`);
        return w.output().includes('worker started');
      },
      60_000,
      50,
    );
  } catch (err) {
    await stop();
    throw new Error(`floor worker did not start: ${(err as Error).message}`);
  }
  return { pid: w.child.pid!, stop };
}

/** One burst of `agentIds.length` Runs through `workerCount` floor worker processes. */
const serviceCpu = (c: ServiceCpu) => `${fmt(c.postgres, 1)} + ${fmt(c.redis, 1)}`;

export async function measureFloor(ctx: FloorContext, workerCount: number, round = 1): Promise<FloorScenario> {
  const total = ctx.agentIds.length;
  const queueName = 'floor-runs';
  const prefix = `${ctx.env.REDIS_PREFIX}-floor${workerCount}-${round}`;
  const env = {
    ...ctx.env,
    ...ctx.preloadEnv,
    FLOOR_QUEUE: queueName,
    FLOOR_PREFIX: prefix,
    FLOOR_CONCURRENCY: String(ctx.concurrency),
    FLOOR_DEFINITION: JSON.stringify(ctx.definition),
    FLOOR_PAGE_CPU_SECONDS: String(ctx.pageCpuSeconds),
    PGAPPNAME: PG_CLIENTS.floor,
  };
  const redis = new URL(ctx.env.REDIS_URL);
  const queue = new Queue<FloorJob>(queueName, {
    connection: { host: redis.hostname, port: Number(redis.port || 6379) },
    prefix,
    defaultJobOptions: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } },
  });
  const closeQueue = onCleanup('floor queue', async () => {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  });
  note(`runs: starting ${workerCount} floor worker process(es), concurrency ${ctx.concurrency}...`);
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startFloorWorker(env)));
  const rowsOf = (tag: string) =>
    ctx.db.run.findMany({
      where: { startedBy: tag },
      select: { agentId: true, status: true, startTime: true, endTime: true, recordsExported: true },
    });
  const fire = async (agentIds: number[], tag: string, sentAt?: Map<number, number>) => {
    await Promise.all(
      agentIds.map((agentId) => {
        sentAt?.set(agentId, Date.now());
        return queue.add('run', { organizationId: ctx.organizationId, agentId, tag });
      }),
    );
    const deadline = Date.now() + 60_000 + agentIds.length * 2_000;
    for (;;) {
      const rows = await rowsOf(tag);
      if (rows.filter((r) => r.status === SUCCESS).length === agentIds.length || Date.now() > deadline) return rows;
      await sleep(50);
    }
  };
  try {
    // Warm-up, as for ours.
    await fire(
      ctx.agentIds.slice(0, Math.min(total, Math.max(ctx.warmRuns, workerCount * ctx.concurrency))),
      `floor-warm-${workerCount}-${round}`,
    );
    note(`runs: firing ${total} jobs at the floor with ${workerCount} worker(s)...`);
    const tag = `floor-${workerCount}-${round}`;
    const sentAt = new Map<number, number>();
    const statements0 = await Promise.all(workers.map((w) => ctx.statements(w.pid)));
    const postgres0 = await postgresCpuSnapshot();
    const cpu0 = workers.map((w) => processTreeCpuMs(w.pid).own);
    const bench0 = process.cpuUsage();
    const service0 = serviceCpuSnapshot();
    const t0 = Date.now();
    const p0 = performance.now();
    const rows = await fire(ctx.agentIds, tag, sentAt);
    const cpu1 = workers.map((w) => processTreeCpuMs(w.pid).own);
    const bench = process.cpuUsage(bench0);
    const service = serviceCpuSince(service0);
    const postgres = await postgresCpuSince(postgres0);
    const statements1 = await Promise.all(workers.map((w) => ctx.statements(w.pid)));
    const finished = rows.filter((r) => r.status === SUCCESS && r.endTime);
    if (finished.some((r) => r.recordsExported !== 10)) note('runs: warning: a floor Run did not export 10 records');
    const lastEnd = Math.max(...finished.map((r) => r.endTime!.getTime()));
    const seconds = finished.length > 0 ? (lastEnd - t0) / 1000 : (performance.now() - p0) / 1000;
    const latency = finished.map((r) => r.endTime!.getTime() - sentAt.get(r.agentId)!);
    const perRun = (ms: number) => ms / Math.max(1, finished.length);
    return {
      workers: workerCount,
      round,
      runs: total,
      completed: finished.length,
      seconds,
      runsPerSecond: finished.length / seconds,
      latencyP50Ms: percentile(latency, 50),
      latencyP95Ms: percentile(latency, 95),
      workerCpuMsPerRun: perRun(cpu1.reduce((n, c, i) => n + c - cpu0[i], 0)),
      benchCpuMsPerRun: perRun((bench.user + bench.system) / 1000),
      serviceCpuMsPerRun: { postgres: perRun(service.postgres), redis: perRun(service.redis) },
      postgresByClientMsPerRun: Object.fromEntries(Object.entries(postgres).map(([k, ms]) => [k, perRun(ms)])),
      workerStatementsPerRun: perRun(statements1.reduce((n, c, i) => n + c - statements0[i], 0)),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await closeQueue();
  }
}

/** Each of our scenarios next to the floor of the same worker count. */
export function printFloorTable(ours: RunsScenario[], floors: FloorScenario[]): void {
  const rows = ours.flatMap((o) => {
    const f = floors.find((s) => s.workers === o.workers && s.round === o.round);
    if (!f) return [];
    const oursCpu = o.apiCpuMsPerRun + o.workerCpuMsPerRun + o.childCpuMsPerRun;
    return [
      [
        o.mode,
        `${f.workers}${o.round > 1 || floors.some((s) => s.round > 1) ? ` (round ${o.round})` : ''}`,
        `${o.completed} / ${f.completed}`,
        `${fmt(o.runsPerSecond, 2)} / ${fmt(f.runsPerSecond, 2)}`,
        fmt(o.runsPerSecond / f.runsPerSecond, 2),
        `${fmt(o.latencyP50Ms, 0)} / ${fmt(f.latencyP50Ms, 0)}`,
        `${fmt(o.latencyP95Ms, 0)} / ${fmt(f.latencyP95Ms, 0)}`,
        `${fmt(o.apiCpuMsPerRun, 1)} + ${fmt(o.workerCpuMsPerRun, 1)} + ${fmt(o.childCpuMsPerRun, 1)} = ${fmt(oursCpu, 1)}`,
        `${fmt(f.benchCpuMsPerRun, 1)} + ${fmt(f.workerCpuMsPerRun, 1)} = ${fmt(f.benchCpuMsPerRun + f.workerCpuMsPerRun, 1)}`,
        `${serviceCpu(o.serviceCpuMsPerRun)} / ${serviceCpu(f.serviceCpuMsPerRun)}`,
        `${fmt(o.apiStatementsPerRun + o.workerStatementsPerRun, 1)} / ${fmt(f.workerStatementsPerRun, 1)}`,
      ],
    ];
  });
  print(
    table(
      'Runs: ours against the floor (a bare BullMQ worker: INSERT, runExtraction in-process, CSV, UPDATE), same burst',
      [
        'ours',
        'workers',
        'runs ours / floor',
        'runs/s ours / floor',
        'ratio',
        'p50 latency ms ours / floor',
        'p95 latency ms ours / floor',
        'ours CPU ms/run: API + worker + run process',
        'floor CPU ms/run: feeder + worker',
        'PostgreSQL + Redis CPU ms/run ours / floor',
        'SQL round trips/run ours (API + worker) / floor',
      ],
      rows,
    ),
  );
  // With BENCH_ROUNDS > 1: the median ratio of the rounds, per build and worker count (the machine's speed drifts between rounds).
  for (const mode of [...new Set(ours.map((o) => o.mode))])
    for (const workers of [...new Set(ours.map((o) => o.workers))]) {
      const ratios = ours
        .filter((o) => o.workers === workers && o.mode === mode)
        .flatMap((o) => {
          const f = floors.find((s) => s.workers === workers && s.round === o.round);
          return f ? [o.runsPerSecond / f.runsPerSecond] : [];
        });
      if (ratios.length > 1)
        print(
          `${mode}, ${workers} worker(s): ratio per round ${ratios.map((r) => fmt(r, 2)).join(', ')}; median ${fmt(percentile(ratios, 50), 2)}`,
        );
    }
  print(
    'Both sides run this process (API or feeder, fixture site, polling) and the worker processes; ' +
      'the floor has no run process. PostgreSQL and Redis: every server process of the machine, backends included.',
  );
}
