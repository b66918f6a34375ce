// The worker's side of the runs domain: the Run queues it serves (the default one and its server
// groups, WORKER_SERVER_GROUPS), each Run in a run process from the pool, the reconciler, and the
// core it shares with the API (wireRunsCore).
import type { Storage } from '../storage/index.js';
import { pooledBrowserSources } from '../engine/index.js';
import { recordStorageError } from '../lib/metrics.js';
import { createQueue, runQueueName } from '../queues/queues.js';
import { createRunSignals } from '../queues/run-signals.js';
import { createChangesRepository } from '../services/changes/changes.repository.js';
import { createRunChangesService } from '../services/changes/changes.service.js';
import { createCheckpointsRepository } from '../services/runs/checkpoints.repository.js';
import { createRunCheckpoints } from '../services/runs/checkpoints.service.js';
import { createRunExecutionService } from '../services/runs/execution.service.js';
import { createReconciler } from '../services/runs/reconciler.js';
import { wireRunsCore } from '../services/runs/wiring.js';
import type { JobDomain, WorkerContext } from './job-domain.js';
import { createRunChildPool } from './run-child-pool.js';
import { createRunsProcessor } from './runs.processor.js';

export const RUNS_WORKER_OPTIONS = {
  // A Run can take a long time; the lock is renewed while the process lives, and a lost worker
  // is noticed after this long (then the job comes back and the Run is ended as lost).
  lockDuration: 30_000,
  maxStalledCount: 1,
};

export function wireRunJobs(ctx: WorkerContext, deps: { storage: Storage; canRender: boolean }) {
  const { config, log, clock } = ctx;
  const runsQueue = createQueue('runs', ctx.connection, ctx.prefix);
  const signals = createRunSignals(config.redisUrl, ctx.prefix, { timeoutMs: config.runs.queueTimeoutMs, log });
  const core = wireRunsCore(ctx.db, {
    clock,
    log,
    config,
    signals,
    runQueue: () => runsQueue,
    connection: ctx.connection,
  });
  const { repo, groupQueues } = core;
  const scheduler = core.scheduler();
  const checkpoints = createRunCheckpoints({
    repo: createCheckpointsRepository(ctx.db),
    runs: repo,
    scheduler,
    storage: deps.storage,
    clock,
    maxTakeovers: config.runs.maxTakeovers,
    log,
  });
  const execution = createRunExecutionService({ repo, clock, config, scheduler, log, checkpoints });
  const reconcile = createReconciler({ repo, execution, queue: scheduler, clock, config });
  const pool = createRunChildPool({
    maxIdle: config.runs.workerConcurrency,
    maxOldSpaceMb: config.runs.processMaxOldSpaceMb,
  });
  pool.warm(config.runs.warmProcesses);
  const processor = createRunsProcessor({
    execution,
    log,
    staleAfterSeconds: config.runs.staleAfterSeconds,
    pool,
    signals,
    // One browser pool per worker renders the pages of all its run processes.
    browsers: deps.canRender ? pooledBrowserSources(config.browser) : null,
    onStorageFailure: (kind) => recordStorageError(config.storage.driver, kind),
    changes: createRunChangesService(createChangesRepository(ctx.db)),
  });
  const served = config.schedules.workerServerGroups;
  const options = { ...RUNS_WORKER_OPTIONS, concurrency: config.runs.workerConcurrency };
  const domain: JobDomain = {
    // The default queue is counted even when this worker serves only groups: the API fills it.
    queues: [runsQueue, ...served.groups.map((g) => groupQueues.get(g))],
    workers: [...(served.default ? [runQueueName(null)] : []), ...served.groups.map((g) => runQueueName(g))].map(
      (queue) => ({ queue, processor: processor.process, options }),
    ),
    async close(step) {
      await step('run processes', () => pool.close());
      await step('run signals', () => signals.close());
      await step('server group queues', () => groupQueues.close());
    },
  };
  return { domain, core, reconcile, handBackAll: () => processor.handBackAll() };
}
