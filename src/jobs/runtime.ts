// The worker runtime: BullMQ workers and job schedulers of every queue, with a graceful close.
// src/worker.ts runs it as a process; integration tests run the same thing in-process.
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createPrisma } from '../db/prisma.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createMaintenanceProcessor } from './maintenance.processor.js';
import { createQueue, redisConnection } from './queues.js';

export interface WorkerRuntime {
  close(): Promise<void>;
}

export async function startWorkerRuntime(config: Config, log: Logger, opts: { clock?: Clock } = {}): Promise<WorkerRuntime> {
  const clock = opts.clock ?? systemClock;
  const prefix = config.redisPrefix;
  const connection = redisConnection(config.redisUrl);
  const db = createPrisma(config.databaseUrl);

  const maintenanceQueue = createQueue('maintenance', connection, prefix);
  await maintenanceQueue.upsertJobScheduler('purge-expired-tokens', { every: 3600_000 }, {
    name: 'purge-expired-tokens',
    data: { task: 'purge-expired-tokens' },
  });
  const workers: Worker[] = [
    new Worker('maintenance', createMaintenanceProcessor({ db, clock }), { connection, prefix, concurrency: 1 }),
  ];
  for (const w of workers) {
    w.on('error', (err) => log.error({ err, queue: w.name }, 'worker error'));
    w.on('failed', (job, err) => log.warn({ queue: w.name, jobId: job?.id, err: { message: err.message } }, 'job failed'));
  }
  log.info({ queues: workers.map((w) => w.name) }, 'worker started');

  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await maintenanceQueue.close();
      await db.$disconnect();
    },
  };
}
