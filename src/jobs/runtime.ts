// The worker runtime: BullMQ workers and job schedulers of every queue, with a graceful close.
// src/worker.ts runs it as a process; integration tests run the same thing as a child process too.
import os from 'node:os';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { isDatabaseUnreachable, isRedisUnavailable } from '../db/failures.js';
import { createPrisma } from '../db/prisma.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createDependencyMonitor } from '../lib/dependencies.js';
import { recordStorageError } from '../lib/metrics.js';
import { trackQueues } from '../lib/metrics-sources.js';
import { recordDeliveryAttempt } from '../services/webhooks/delivery-metrics.js';
import { createIdentityRepository } from '../services/identity/identity.repository.js';
import { createCheckpointsRepository } from '../services/runs/checkpoints.repository.js';
import { createRunCheckpoints } from '../services/runs/checkpoints.service.js';
import { createRunExecutionService } from '../services/runs/execution.service.js';
import { createCreditsRepository } from '../services/billing/credits.repository.js';
import { createStorage } from '../engine/index.js';
import { createOrphanFileSweep } from '../services/runs/orphan-files.js';
import { createReconciler } from '../services/runs/reconciler.js';
import { wireRunsCore } from '../services/runs/wiring.js';
import { createScheduleFiring } from '../services/schedules/firing.service.js';
import { createSchedulesRepository } from '../services/schedules/schedules.repository.js';
import { createCreditExpiry } from '../services/billing/billing.service.js';
import { createMaintenanceProcessor } from './maintenance.processor.js';
import { startOutboxListener } from './outbox-listener.js';
import {
  createQueue,
  createWebhookQueue,
  redisConnection,
  runQueueName,
  type QueuePayloads,
} from '../queues/queues.js';
import { createRunChildPool } from './run-child-pool.js';
import { createRunSignals } from '../queues/run-signals.js';
import { createRunsProcessor, HandedBackError } from './runs.processor.js';
import { createSchedulesProcessor } from './schedules.processor.js';
import { createBuilderRepository } from '../services/builder/builder.repository.js';
import { createBuilderWorkService } from '../services/builder/builder-work.service.js';
import { createEventsPublisher, createEventsSubscriber } from '../services/builder/events-bus.js';
import { createBuilderProcessor } from './builder.processor.js';
import { createStorageWatch } from './storage-watch.js';
import { HEARTBEAT_INTERVAL_MS, writeHeartbeat } from './worker-health.js';
import { announceBrowser } from '../queues/worker-capabilities.js';
import { createWebhookDeliveryService, type OnAttempt } from '../services/webhooks/delivery.service.js';
import { createWebhookSender } from '../services/webhooks/sender.js';
import { createWebhooksRepository } from '../services/webhooks/webhooks.repository.js';
import {
  createWebhooksProcessor,
  WEBHOOK_RELAY_INTERVAL_MS,
  WEBHOOK_WORKER_CONCURRENCY,
} from './webhooks.processor.js';
import {
  chromiumAvailable,
  CHROMIUM_PATH_HINT,
  closeSharedBrowserPool,
  pooledBrowserSources,
} from '../engine/index.js';

export interface WorkerRuntime {
  /**
   * Graceful close: no new job is taken and running Runs may finish; those still running after
   * `handBackAfterMs` are ended and handed back to the queue (to restart on another worker).
   */
  close(opts?: { handBackAfterMs?: number }): Promise<void>;
}

/** `onWebhookAttempt`: each delivery attempt's outcome and latency (for metrics). */
export async function startWorkerRuntime(
  config: Config,
  log: Logger,
  opts: { clock?: Clock; onWebhookAttempt?: OnAttempt } = {},
): Promise<WorkerRuntime> {
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
    // A worker that cannot store Run files is not healthy either.
    if (!storageWatch.writable()) return;
    await writeHeartbeat(beatRedis, prefix, clock.now()).catch((err) => dependencies.down('redis', err));
    if (canRender) await announceBrowser(beatRedis, prefix).catch((err) => dependencies.down('redis', err));
  };
  const storage = createStorage(config.storage);
  const storageWatch = createStorageWatch({
    storage,
    log,
    dirs: [...(config.storage.driver === 'local' ? [config.storage.dir] : []), os.tmpdir()],
    minFreeBytes: config.storageMinFreeBytes,
  });
  await storageWatch.check();
  const canRender = chromiumAvailable(config.browser.executablePath);
  if (!canRender)
    log.warn(
      `browser Runs are not executed here: no Chromium at ${config.browser.executablePath}; ${CHROMIUM_PATH_HINT}`,
    );
  const heartbeat = setInterval(() => void beat(), HEARTBEAT_INTERVAL_MS);
  void beat();

  const runsQueue = createQueue('runs', connection, prefix);
  const maintenanceQueue = createQueue('maintenance', connection, prefix);
  const signals = createRunSignals(config.redisUrl, prefix, { timeoutMs: config.runs.queueTimeoutMs, log });
  const core = wireRunsCore(db, { clock, log, config, signals, runQueue: () => runsQueue, connection });
  const { settlement, repo, groupQueues } = core;
  const scheduler = core.scheduler();
  const checkpoints = createRunCheckpoints({
    repo: createCheckpointsRepository(db),
    runs: repo,
    scheduler,
    storage,
    clock,
    maxTakeovers: config.runs.maxTakeovers,
    log,
  });
  const execution = createRunExecutionService({ repo, clock, config, scheduler, log, checkpoints });
  const reconcile = createReconciler({ repo, execution, queue: scheduler, clock, config });
  const credits = createCreditsRepository(db);
  const schedulesQueue = createQueue('schedules', connection, prefix);
  // Webhooks: the outbox relay and deliveries (issue 22).
  const webhooksQueue = createQueue('webhooks', connection, prefix);
  const webhookSender = createWebhookSender({
    allowPrivateTargets: config.engineAllowPrivateTargets,
    timeoutMs: config.webhookAttemptTimeoutMs,
  });
  const webhooksRepo = createWebhooksRepository(db);
  const webhookDelivery = createWebhookDeliveryService({
    repo: webhooksRepo,
    sender: webhookSender,
    queue: createWebhookQueue(webhooksQueue),
    clock,
    encryptionKey: config.encryptionKey,
    onAttempt: opts.onWebhookAttempt ?? recordDeliveryAttempt,
  });
  const outboxListener = startOutboxListener({
    databaseUrl: config.databaseUrl,
    relay: () => webhookDelivery.relay(),
    log,
  });
  for (const q of [runsQueue, maintenanceQueue, schedulesQueue, webhooksQueue]) {
    q.on('error', (err) =>
      isRedisUnavailable(err) ? dependencies.down('redis', err) : log.error({ err, queue: q.name }, 'queue error'),
    );
  }
  const firing = createScheduleFiring({
    repo: createSchedulesRepository(db),
    runs: repo,
    credits,
    scheduler,
    outbox: webhooksRepo,
    clock,
    log,
    batchSize: config.schedules.batchSize,
  });

  // Job schedulers live in Redis: declared at start and again whenever a worker (re)connects, so a
  // Redis that lost its data gets them back without a worker restart. BullMQ keeps one scheduler
  // per id, so every worker declaring them still gives one job per interval.
  const hourMs = 3_600_000;
  // Every maintenance task and how often it runs (a task missing here fails to compile).
  const maintenanceEvery: Record<QueuePayloads['maintenance']['task'], number> = {
    'purge-expired-tokens': hourMs,
    'settle-runs': config.runs.reconcileIntervalSeconds * 1000,
    'sweep-orphan-files': hourMs,
    'reconcile-runs': config.runs.reconcileIntervalSeconds * 1000,
    'expire-credits': config.billing.expiryIntervalSeconds * 1000,
    'purge-builder-sessions': hourMs,
    'purge-webhook-deliveries': hourMs,
  };
  async function declareSchedulers() {
    await schedulesQueue.upsertJobScheduler(
      'schedule-tick',
      { every: config.schedules.tickSeconds * 1000 },
      {
        name: 'schedule-tick',
        data: { task: 'tick' },
        opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
      },
    );
    for (const [task, every] of Object.entries(maintenanceEvery) as Array<[keyof typeof maintenanceEvery, number]>) {
      await maintenanceQueue.upsertJobScheduler(task, { every }, { name: task, data: { task } });
    }
    await webhooksQueue.upsertJobScheduler(
      'webhook-relay',
      { every: WEBHOOK_RELAY_INTERVAL_MS },
      {
        name: 'relay',
        data: { kind: 'relay' },
        opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
      },
    );
  }
  await declareSchedulers();

  // Agent Builder: its own queue; stops are heard on the sessions channel.
  const builderRepo = createBuilderRepository(db);
  const builderPublisherRedis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  builderPublisherRedis.on('error', (err) => log.warn({ err: { message: err.message } }, 'builder redis error'));
  const builderSubscriber = createEventsSubscriber(config.redisUrl, config.redisPrefix, (err) =>
    log.warn({ err: { message: err.message } }, 'builder subscriber error'),
  );
  const builderWork = createBuilderWorkService({
    repo: builderRepo,
    publisher: createEventsPublisher(builderPublisherRedis, config.redisPrefix),
    outbox: webhooksRepo,
    clock,
    config,
  });

  const pool = createRunChildPool({
    maxIdle: config.runs.workerConcurrency,
    maxOldSpaceMb: config.runs.processMaxOldSpaceMb,
    inlineOnePage: config.runs.inlineOnePage,
  });
  pool.warm(config.runs.warmProcesses);
  const served = config.schedules.workerServerGroups;
  const runQueues = [...(served.default ? [runQueueName(null)] : []), ...served.groups.map((g) => runQueueName(g))];
  // Job counts by queue and state for the metrics (read when scraped): the queues this worker serves.
  const builderQueue = createQueue('builder', connection, prefix);
  const counted = trackQueues([
    ...(served.default ? [runsQueue] : []),
    ...served.groups.map((g) => groupQueues.get(g)),
    schedulesQueue,
    maintenanceQueue,
    builderQueue,
  ]);
  const runsProcessor = createRunsProcessor({
    execution,
    log,
    staleAfterSeconds: config.runs.staleAfterSeconds,
    pool,
    signals,
    // One browser pool per worker renders the pages of all its run processes.
    browsers: canRender ? pooledBrowserSources(config.browser) : null,
    onStorageFailure: (kind) => recordStorageError(config.storage.driver, kind),
  });
  const workers: Worker[] = [
    new Worker(
      'maintenance',
      createMaintenanceProcessor({
        identity: createIdentityRepository(db),
        clock,
        reconcile,
        reconcileIntervalMs: config.runs.reconcileIntervalSeconds * 1000,
        settlement,
        sweepOrphanFiles: createOrphanFileSweep({ repo, storage }),
        creditExpiry: createCreditExpiry({ credits, clock }),
        builder: builderRepo,
        builderRetentionDays: config.builder.retentionDays,
        webhooks: webhooksRepo,
      }),
      { connection, prefix, concurrency: 1 },
    ),
    // One Run queue per server group this worker serves (WORKER_SERVER_GROUPS), plus the default one.
    ...runQueues.map(
      (name) =>
        new Worker(name, runsProcessor.process, {
          connection,
          prefix,
          concurrency: config.runs.workerConcurrency,
          // A Run can take a long time; the lock is renewed while the process lives, and a lost worker
          // is noticed after this long (then the job comes back and the Run is ended as lost).
          lockDuration: 30_000,
          maxStalledCount: 1,
        }),
    ),
    new Worker('schedules', createSchedulesProcessor({ firing }), { connection, prefix, concurrency: 1 }),
    new Worker('webhooks', createWebhooksProcessor({ delivery: webhookDelivery }), {
      connection,
      prefix,
      concurrency: WEBHOOK_WORKER_CONCURRENCY,
      // An attempt killed with its worker comes back after the stall check; the delivery row says
      // whether it was recorded, so the rerun sends at most once more (same webhook-id). The lock is
      // renewed every 5 s while the worker lives, so a 15 s attempt keeps it; a dead worker's attempt
      // is taken up again within about 15 s instead of BullMQ's default minute.
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 5,
    }),
    new Worker('builder', createBuilderProcessor({ work: builderWork, subscriber: builderSubscriber }), {
      connection,
      prefix,
      concurrency: config.builder.workerConcurrency,
    }),
  ];
  for (const w of workers) {
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
  // `run started` and `run ended` are logged by the runs processor, from the rows it has anyway.
  // Runs a lost worker left behind are found at once, not only at the next interval; after a
  // reconnection, Runs whose jobs Redis lost are queued again at once.
  reconcile().catch((err) => log.error({ err }, 'initial reconcile failed'));
  let started = false;
  workers[1].on('ready', () => {
    if (!started) return;
    log.info('reconnected to Redis: declaring job schedulers and reconciling Runs');
    declareSchedulers().catch((err) => log.error({ err }, 'declaring job schedulers failed'));
    reconcile().catch((err) => log.error({ err }, 'reconcile after reconnection failed'));
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  started = true;
  log.info({ queues: workers.map((w) => w.name) }, 'worker started');

  return {
    async close(opts = {}) {
      clearInterval(heartbeat);
      counted.untrack();
      storageWatch.close();
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
      const handBack =
        opts.handBackAfterMs === undefined
          ? null
          : setTimeout(() => {
              const n = runsProcessor.handBackAll();
              if (n > 0) log.warn({ runs: n }, 'shutdown grace ending: handing running Runs back to the queue');
            }, opts.handBackAfterMs);
      await step('webhook outbox listener', () => outboxListener.close());
      await Promise.all(workers.map((w) => step(`worker ${w.name}`, () => w.close())));
      if (handBack) clearTimeout(handBack);
      await step('run processes', () => pool.close());
      await step('run signals', () => signals.close());
      // Runs (through their run processes) and the Agent Builder render in this process's browser pool.
      await step('browsers', () => closeSharedBrowserPool());
      await step('builder subscriber', () => builderSubscriber.close());
      await step('builder publisher', () => builderPublisherRedis.quit());
      await Promise.all([
        step('maintenance queue', () => maintenanceQueue.close()),
        step('runs queue', () => runsQueue.close()),
        step('schedules queue', () => schedulesQueue.close()),
        step('builder queue', () => builderQueue.close()),
        step('server group queues', () => groupQueues.close()),
        step('webhooks queue', () => webhooksQueue.close()),
      ]);
      await step('webhook sender', () => webhookSender.close());
      dependencies.close();
      await step('heartbeat', () => beatRedis.quit().catch(() => beatRedis.disconnect()));
      await step('database', () => db.$disconnect());
    },
  };
}
