// The worker runtime: BullMQ workers and job schedulers of every queue, with a graceful close.
// src/worker.ts runs it as a process; integration tests run the same thing as a child process too.
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createPrisma } from '../db/prisma.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createIdentityRepository } from '../services/identity/identity.repository.js';
import { createRunExecutionService } from '../services/runs/execution.service.js';
import { createRunsRepository } from '../services/runs/runs.repository.js';
import { createSettlement } from '../services/settlement/index.js';
import { createMaintenanceProcessor } from './maintenance.processor.js';
import { createQueue, createRunScheduler, redisConnection } from './queues.js';
import { createRunChildPool } from './run-child-pool.js';
import { createRunsProcessor } from './runs.processor.js';

export interface WorkerRuntime {
  close(): Promise<void>;
}

export async function startWorkerRuntime(config: Config, log: Logger, opts: { clock?: Clock } = {}): Promise<WorkerRuntime> {
  const clock = opts.clock ?? systemClock;
  const prefix = config.redisPrefix;
  const connection = redisConnection(config.redisUrl);
  const db = createPrisma(config.databaseUrl, { max: Math.max(5, config.runs.workerConcurrency * 2) });

  const runsQueue = createQueue('runs', connection, prefix);
  const maintenanceQueue = createQueue('maintenance', connection, prefix);
  const settlement = createSettlement(db, { clock, log, config });
  const execution = createRunExecutionService({
    repo: createRunsRepository(db, { onTerminal: settlement.afterTerminal }),
    clock,
    config,
    scheduler: createRunScheduler(runsQueue),
    log,
  });

  await maintenanceQueue.upsertJobScheduler('purge-expired-tokens', { every: 3600_000 }, {
    name: 'purge-expired-tokens',
    data: { task: 'purge-expired-tokens' },
  });
  await maintenanceQueue.upsertJobScheduler('settle-runs', { every: config.runs.reconcileIntervalSeconds * 1000 }, {
    name: 'settle-runs',
    data: { task: 'settle-runs' },
  });
  await maintenanceQueue.upsertJobScheduler('reconcile-runs', { every: config.runs.reconcileIntervalSeconds * 1000 }, {
    name: 'reconcile-runs',
    data: { task: 'reconcile-runs' },
  });

  const pool = createRunChildPool({ maxIdle: config.runs.workerConcurrency });
  pool.warm(config.runs.warmProcesses);
  const workers: Worker[] = [
    new Worker('maintenance', createMaintenanceProcessor({ identity: createIdentityRepository(db), clock, execution, settlement }), { connection, prefix, concurrency: 1 }),
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
    w.on('error', (err) => log.error({ err, queue: w.name }, 'worker error'));
    w.on('failed', (job, err) => log.warn({ queue: w.name, jobId: job?.id, err: { message: err.message } }, 'job failed'));
  }
  // Runs a lost worker left behind are found at once, not only at the next interval.
  execution.reconcile().catch((err) => log.error({ err }, 'initial reconcile failed'));
  log.info({ queues: workers.map((w) => w.name) }, 'worker started');

  return {
    async close() {
      // Each step runs even if an earlier one fails (a connection closed while still connecting
      // rejects, harmlessly); failures are logged, not allowed to strand the rest.
      const step = async (name: string, fn: () => Promise<unknown> | void) => {
        try {
          await fn();
        } catch (err) {
          log.warn({ err: { message: (err as Error).message }, step: name }, 'error while closing');
        }
      };
      await Promise.all(workers.map((w) => step(`worker ${w.name}`, () => w.close())));
      await step('run processes', () => pool.close());
      await Promise.all([step('maintenance queue', () => maintenanceQueue.close()), step('runs queue', () => runsQueue.close())]);
      await step('database', () => db.$disconnect());
    },
  };
}
