// The reconciler: no Run stays active without a live owner. It runs every
// RUN_RECONCILE_INTERVAL_SECONDS (a maintenance job) and when a worker (re)connects to Redis.
// - Runs whose heartbeat is stale (their worker was lost) are taken over: they go on from their last
//   checkpoint on another worker (RUN_MAX_TAKEOVERS times at most); past that they end as the status
//   machine says.
// - Runs left in 7 Failed (the step to 6 or 12 never happened) take that step.
// - Queuing and Waiting Runs whose job is finished (its pick-up failed for good) or missing (Redis
//   lost it) are enqueued again; a Run that moved on meanwhile is left alone. The periodic pass looks
//   only at Runs pending for longer than `pendingForMs` (its interval): a Run's job is enqueued in the
//   transaction that creates it, so a newer one lacks it only when Redis lost its data, which the pass
//   on reconnection covers. Checking each Run of a burst one by one (a queue read, then a row read for
//   every job that finished meanwhile) cost a worker 1 ms per Run of the burst.
import type { Clock } from '../../lib/clock.js';
import type { RunJobState } from '../../queues/queues.js';
import type { RunExecutionService } from './execution.service.js';
import { failureColumns, RunFailureCode, stoppedBy } from './run-errors.js';
import type { RunsRepository } from './runs.repository.js';
import { RunStatus } from './status-machine.js';

export interface ReconcilerQueue {
  jobState(runId: number, attempt: number): Promise<RunJobState>;
  /** Enqueues a Run again under its attempt's job id (replacing a finished job). */
  requeueRun(runId: number, attempt: number, delayMs?: number): Promise<void>;
}

export interface ReconcileResult {
  failed: number;
  finished: number;
  requeued: number;
}

export function createReconciler(deps: {
  repo: Pick<RunsRepository, 'findStaleRuns' | 'findFailedBefore' | 'findPendingRuns' | 'findRun' | 'transition'>;
  execution: Pick<RunExecutionService, 'failOrRetry' | 'afterFailed'> & Partial<Pick<RunExecutionService, 'takeOver'>>;
  queue: ReconcilerQueue;
  clock: Clock;
  config: { runs: { staleAfterSeconds: number } };
}) {
  const { repo, execution, queue, clock, config } = deps;

  return async function reconcile(opts: { pendingForMs?: number } = {}): Promise<ReconcileResult> {
    const now = clock.now();
    const staleBefore = new Date(now.getTime() - config.runs.staleAfterSeconds * 1000);

    const stale = await repo.findStaleRuns(staleBefore);
    for (const r of stale) {
      if (r.status === RunStatus.Stopping) {
        await repo.transition(r.id, { type: 'stopped' }, now, {
          endTime: now,
          ...failureColumns(stoppedBy('workerLost')),
        });
      } else {
        const outcome = execution.takeOver
          ? await execution.takeOver(r.id, 'the worker executing the Run was lost (no heartbeat)', staleBefore)
          : 'refused';
        if (outcome === 'refused')
          await execution.failOrRetry(r.id, { code: RunFailureCode.WorkerLost, params: { reason: 'heartbeat' } });
      }
    }

    const leftFailed = await repo.findFailedBefore(staleBefore);
    for (const r of leftFailed) await execution.afterFailed(r);

    let requeued = 0;
    const pendingBefore = opts.pendingForMs === undefined ? undefined : new Date(now.getTime() - opts.pendingForMs);
    for (const r of await repo.findPendingRuns(pendingBefore)) {
      const state = await queue.jobState(r.id, r.retryCount);
      if (state === 'pending' || state === 'active') continue;
      // Read again after the job: a Run picked meanwhile (its job then finished) has moved on.
      const current = await repo.findRun(r.id);
      if (!current || current.status !== r.status || current.retryCount !== r.retryCount) continue;
      const delayMs =
        current.status === RunStatus.Waiting && current.waitUntil
          ? Math.max(0, current.waitUntil.getTime() - now.getTime())
          : 0;
      await queue.requeueRun(r.id, r.retryCount, delayMs);
      requeued += 1;
    }
    return { failed: stale.length, finished: leftFailed.length, requeued };
  };
}
export type Reconcile = ReturnType<typeof createReconciler>;
