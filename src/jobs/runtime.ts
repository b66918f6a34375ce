// The worker runtime: the BullMQ workers and job schedulers of every domain, with a graceful close.
// Each domain wires its own queues, processors and options (run-jobs.ts, webhooks.processor.ts,
// schedules.processor.ts, builder.processor.ts, maintenance.processor.ts); this file starts them,
// counts every queue in the metrics and closes everything in order. src/worker.ts runs it as a
// process; integration tests run the same thing as a child process too.
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { isDatabaseUnreachable, isRedisUnavailable } from '../db/failures.js';
import { createPrisma } from '../db/prisma.js';
import { closeSharedBrowserPool } from '../engine/index.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { DependencyMonitor } from '../lib/dependencies.js';
import { trackQueues } from '../lib/metrics-sources.js';
import { redisConnection } from '../queues/queues.js';
import { createCreditsRepository } from '../services/billing/credits.repository.js';
import { wireWebhooksCore } from '../services/webhooks/wiring.js';
import { createStorage, type Storage } from '../storage/index.js';
import { wireBuilderJobs } from './builder.processor.js';
import type { CloseStep, JobDomain, QueueWorker, WorkerContext } from './job-domain.js';
import { wireMaintenanceJobs } from './maintenance.processor.js';
import { wireRunJobs } from './run-jobs.js';
import { HandedBackError } from './runs.processor.js';
import { wireScheduleJobs } from './schedules.processor.js';
import { wireWebhookJobs } from './webhooks.processor.js';
import { startWorkerLiveness } from './worker-liveness.js';

export interface WorkerRuntime {
  /**
   * Graceful close: no new job is taken and running Runs may finish; those still running after
   * `handBackAfterMs` are ended and handed back to the queue (to restart on another worker).
   */
  close(opts?: { handBackAfterMs?: number }): Promise<void>;
}

export async function startWorkerRuntime(
  config: Config,
  log: Logger,
  opts: { clock?: Clock } = {},
): Promise<WorkerRuntime> {
  const ctx: WorkerContext = {
    config,
    log,
    clock: opts.clock ?? systemClock,
    db: createPrisma(config.databaseUrl, { max: Math.max(5, config.runs.workerConcurrency * 2) }),
    connection: redisConnection(config.redisUrl),
    prefix: config.redisPrefix,
  };
  const storage = createStorage(config.storage);
  const liveness = await startWorkerLiveness(ctx, storage);
  const { dependencies } = liveness;

  const { runs, domains } = wireDomains(ctx, storage, liveness.canRender);
  const queues = domains.flatMap((d) => d.queues);
  for (const q of queues) {
    q.on('error', (err) =>
      isRedisUnavailable(err) ? dependencies.down('redis', err) : log.error({ err, queue: q.name }, 'queue error'),
    );
  }
  // Job counts by queue and state for the metrics (read when scraped).
  const counted = trackQueues(queues);

  // Job schedulers live in Redis: declared at start and again whenever a worker (re)connects, so a
  // Redis that lost its data gets them back without a worker restart. BullMQ keeps one scheduler
  // per id, so every worker declaring them still gives one job per interval.
  const declareSchedulers = async () => {
    for (const d of domains) await d.declareSchedulers?.();
  };
  await declareSchedulers();

  const workers = domains.flatMap((d) => d.workers.map((w) => startWorker(ctx, w)));
  for (const w of workers) watchWorker(w, log, dependencies);
  // `run started` and `run ended` are logged by the runs processor, from the rows it has anyway.
  // Runs a lost worker left behind are found at once, not only at the next interval; after a
  // reconnection, Runs whose jobs Redis lost are queued again at once.
  runs.reconcile().catch((err) => log.error({ err }, 'initial reconcile failed'));
  let started = false;
  workers[0].on('ready', () => {
    if (!started) return;
    log.info('reconnected to Redis: declaring job schedulers and reconciling Runs');
    declareSchedulers().catch((err) => log.error({ err }, 'declaring job schedulers failed'));
    runs.reconcile().catch((err) => log.error({ err }, 'reconcile after reconnection failed'));
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  started = true;
  log.info({ queues: workers.map((w) => w.name) }, 'worker started');

  return {
    async close(closeOpts = {}) {
      liveness.stop();
      counted.untrack();
      const step = closingStep(log, () => dependencies.anyDown());
      const handBack =
        closeOpts.handBackAfterMs === undefined
          ? null
          : setTimeout(() => {
              const n = runs.handBackAll();
              if (n > 0) log.warn({ runs: n }, 'shutdown grace ending: handing running Runs back to the queue');
            }, closeOpts.handBackAfterMs);
      for (const d of domains) await d.stopFeeding?.(step);
      await Promise.all(workers.map((w) => step(`worker ${w.name}`, () => w.close())));
      if (handBack) clearTimeout(handBack);
      for (const d of domains) await d.close?.(step);
      // Runs (through their run processes) and the Agent Builder render in this process's browser pool.
      await step('browsers', () => closeSharedBrowserPool());
      await Promise.all(queues.map((q) => step(`${q.name} queue`, () => q.close())));
      await step('liveness', () => liveness.close());
      await step('database', () => ctx.db.$disconnect());
    },
  };
}

/** Every domain of the worker, in the order they are started and closed; the runs domain first. */
function wireDomains(ctx: WorkerContext, storage: Storage, canRender: boolean) {
  const runs = wireRunJobs(ctx, { storage, canRender });
  const { repo, settlement } = runs.core;
  const credits = createCreditsRepository(ctx.db);
  const webhooks = wireWebhooksCore(ctx.db, ctx);
  const builder = wireBuilderJobs(ctx, { outbox: webhooks.repo });
  const domains: JobDomain[] = [
    runs.domain,
    wireWebhookJobs(ctx, webhooks),
    wireScheduleJobs(ctx, { runs: repo, credits, scheduler: runs.core.scheduler(), outbox: webhooks.repo }),
    builder,
    wireMaintenanceJobs(ctx, {
      reconcile: runs.reconcile,
      settlement,
      runs: repo,
      storage,
      credits,
      builder: builder.repo,
      webhooks: webhooks.repo,
    }),
  ];
  return { runs, domains };
}

function startWorker(ctx: WorkerContext, w: QueueWorker): Worker {
  return new Worker(w.queue, (job) => w.processor(job), {
    ...w.options,
    connection: ctx.connection,
    prefix: ctx.prefix,
  });
}

/** Logs a worker's errors and failed jobs; a lost connection goes to the dependency monitor instead. */
function watchWorker(w: Worker, log: Logger, dependencies: Pick<DependencyMonitor, 'down'>): void {
  w.on('error', (err) => {
    // A lost connection is reported by BullMQ on every retry: the monitor logs the change once.
    if (isRedisUnavailable(err)) dependencies.down('redis', err);
    else if (isDatabaseUnreachable(err)) dependencies.down('postgres', err);
    else log.error({ err, queue: w.name }, 'worker error');
  });
  w.on('failed', (job, err) => {
    const fields = {
      queue: w.name,
      job: job?.name,
      jobId: job?.id,
      attemptsMade: job?.attemptsMade,
      err: { message: err.message },
    };
    // A planned shutdown handing a Run back is routine: it is queued again, not failed.
    if (err instanceof HandedBackError) log.info(fields, 'job handed back');
    else log.error(fields, 'job failed');
  });
}

/**
 * Each closing step runs even if an earlier one fails (a connection closed while still connecting
 * rejects, harmlessly); failures are logged, not allowed to strand the rest. While PostgreSQL or
 * Redis is down a step that needs it cannot finish: once a dependency is known to be down, wait
 * briefly, then go on, so SIGTERM ends the process promptly instead of at the grace deadline.
 */
function closingStep(log: Logger, anyDown: () => boolean): CloseStep {
  return async (name, fn) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      let waitedDown = 0;
      const givenUp = new Promise((_, reject) => {
        timer = setInterval(() => {
          waitedDown = anyDown() ? waitedDown + 250 : 0;
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
}
