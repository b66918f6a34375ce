// The worker runtime: BullMQ workers and job schedulers of every queue, with a graceful close.
// src/worker.ts runs it as a process; integration tests run the same thing as a child process too.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { isDatabaseUnreachable, isRedisUnavailable } from '../db/failures.js';
import { createPrisma } from '../db/prisma.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createDependencyMonitor } from '../lib/dependencies.js';
import { RUN_STATUS_NAMES, type RunStatusValue } from '../services/runs/status-machine.js';
import { createIdentityRepository } from '../services/identity/identity.repository.js';
import { createRunExecutionService } from '../services/runs/execution.service.js';
import { createRunsRepository } from '../services/runs/runs.repository.js';
import { createMaintenanceProcessor } from './maintenance.processor.js';
import { createQueue, createRunScheduler, redisConnection } from './queues.js';
import { createRunChildPool } from './run-child-pool.js';
import { createRunsProcessor } from './runs.processor.js';
import { HEARTBEAT_INTERVAL_MS, writeHeartbeat } from './worker-health.js';

export interface WorkerRuntime {
  close(): Promise<void>;
}

export async function startWorkerRuntime(config: Config, log: Logger, opts: { clock?: Clock } = {}): Promise<WorkerRuntime> {
  const clock = opts.clock ?? systemClock;
  const prefix = config.redisPrefix;
  const connection = redisConnection(config.redisUrl);
  const db = createPrisma(config.databaseUrl, { max: Math.max(5, config.runs.workerConcurrency * 2) });

  // Its own connection, failing at once while Redis is away (the heartbeat must not queue up).
  const beatRedis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  const dependencies = createDependencyMonitor({
    log,
    probes: { postgres: () => db.$queryRawUnsafe('SELECT 1'), redis: () => beatRedis.ping() },
  });
  beatRedis.on('error', (err) => dependencies.down('redis', err));
  beatRedis.on('ready', () => dependencies.up('redis'));
  const beat = async () => {
    try {
      await db.$queryRawUnsafe('SELECT 1');
      dependencies.up('postgres');
    } catch (err) {
      dependencies.down('postgres', err);
      return;
    }
    // Not connected yet, or reconnecting: the connection's own events report a loss.
    if (beatRedis.status !== 'ready') return;
    await writeHeartbeat(beatRedis, prefix, clock.now()).catch((err) => dependencies.down('redis', err));
  };
  const heartbeat = setInterval(() => void beat(), HEARTBEAT_INTERVAL_MS);
  void beat();

  const runsQueue = createQueue('runs', connection, prefix);
  const maintenanceQueue = createQueue('maintenance', connection, prefix);
  for (const q of [runsQueue, maintenanceQueue]) q.on('error', (err) => (isRedisUnavailable(err) ? dependencies.down('redis', err) : log.error({ err, queue: q.name }, 'queue error')));
  const runsRepo = createRunsRepository(db);
  const execution = createRunExecutionService({
    repo: runsRepo,
    clock,
    config,
    scheduler: createRunScheduler(runsQueue),
  });

  await maintenanceQueue.upsertJobScheduler('purge-expired-tokens', { every: 3600_000 }, {
    name: 'purge-expired-tokens',
    data: { task: 'purge-expired-tokens' },
  });
  await maintenanceQueue.upsertJobScheduler('reconcile-runs', { every: config.runs.reconcileIntervalSeconds * 1000 }, {
    name: 'reconcile-runs',
    data: { task: 'reconcile-runs' },
  });

  const pool = createRunChildPool({ maxIdle: config.runs.workerConcurrency });
  pool.warm(config.runs.warmProcesses);
  const workers: Worker[] = [
    new Worker('maintenance', createMaintenanceProcessor({ identity: createIdentityRepository(db), clock, execution }), { connection, prefix, concurrency: 1 }),
    new Worker('runs', createRunsProcessor({ execution, log, staleAfterSeconds: config.runs.staleAfterSeconds, pool }), {
      connection,
      prefix,
      concurrency: config.runs.workerConcurrency,
      // A Run can take a long time; the lock is renewed while the process lives, and a lost worker
      // is noticed after this long (then the job comes back and the Run is ended as lost).
      lockDuration: 30_000,
      maxStalledCount: 1,
    }),
  ];
  for (const w of workers) {
    w.on('error', (err) => {
      // A lost connection is reported by BullMQ on every retry: the monitor logs the change once.
      if (isRedisUnavailable(err)) dependencies.down('redis', err);
      else if (isDatabaseUnreachable(err)) dependencies.down('postgres', err);
      else log.error({ err, queue: w.name }, 'worker error');
    });
    w.on('failed', (job, err) =>
      log.error({ queue: w.name, job: job?.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: { message: err.message } }, 'job failed'),
    );
  }
  // One line when a Run starts and one when its execution ends, with what an operator asks first.
  const runLookup = (runId: number) => runsRepo.findRun(runId).catch(() => null);
  workers[1].on('active', (job) => {
    const runId = (job.data as { runId: number }).runId;
    void runLookup(runId).then((run) => {
      if (run && (run.status === 4 || run.status === 12)) log.info({ agentId: run.agentId, runId, attempt: run.retryCount }, 'run started');
    });
  });
  workers[1].on('completed', (job, result: { status?: string } | undefined) => {
    if (result?.status === 'skipped') return;
    const runId = (job.data as { runId: number }).runId;
    void runLookup(runId).then((run) => {
      if (!run) return;
      const durationMs = run.startTime ? (run.endTime ?? clock.now()).getTime() - run.startTime.getTime() : null;
      log.info(
        {
          agentId: run.agentId,
          runId,
          status: RUN_STATUS_NAMES[run.status as RunStatusValue] ?? run.status,
          durationMs,
          records: run.recordsExtracted,
          errorMessage: run.errorMessage ?? undefined,
        },
        'run ended',
      );
    });
  });
  // Runs a lost worker left behind are found at once, not only at the next interval.
  execution.reconcile().catch((err) => log.error({ err }, 'initial reconcile failed'));
  log.info({ queues: workers.map((w) => w.name) }, 'worker started');

  return {
    async close() {
      clearInterval(heartbeat);
      // Each step runs even if an earlier one fails (a connection closed while still connecting
      // rejects, harmlessly); failures are logged, not allowed to strand the rest.
      // While PostgreSQL or Redis is down a step that needs it cannot finish: once a dependency is
      // known to be down, wait briefly, then go on, so SIGTERM ends the process promptly instead of
      // at the grace deadline.
      const step = async (name: string, fn: () => Promise<unknown> | void) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          let waitedDown = 0;
          const givenUp = new Promise((_, reject) => {
            timer = setInterval(() => {
              waitedDown = dependencies.anyDown() ? waitedDown + 250 : 0;
              if (waitedDown >= 2_000) reject(new Error('a dependency is down'));
            }, 250);
          });
          await Promise.race([Promise.resolve(fn()), givenUp]);
        } catch (err) {
          log.warn({ err: { message: (err as Error).message }, step: name }, 'error while closing');
        } finally {
          clearInterval(timer);
        }
      };
      await Promise.all(workers.map((w) => step(`worker ${w.name}`, () => w.close())));
      await step('run processes', () => pool.close());
      await Promise.all([step('maintenance queue', () => maintenanceQueue.close()), step('runs queue', () => runsQueue.close())]);
      dependencies.close();
      await step('heartbeat', () => beatRedis.quit().catch(() => beatRedis.disconnect()));
      await step('database', () => db.$disconnect());
    },
  };
}
