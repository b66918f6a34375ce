// The reconciler with a fake clock, a fake queue and an in-memory store: no Run stays active without
// an owner, and a Run that moved on is never enqueued again.
import { describe, expect, it } from 'vitest';
import type { RunJobState } from '../../src/queues/queues.js';
import { createReconciler } from '../../src/services/runs/reconciler.js';
import type { RunFailure } from '../../src/services/runs/run-errors.js';
import { nextStatus, type RunEvent } from '../../src/services/runs/status-machine.js';

interface FakeRun {
  id: number;
  status: number;
  retryCount: number;
  waitUntil: Date | null;
  updated: Date;
  statusChanged: Date;
  isWaitOnFailure: boolean;
  errorMessage?: string | null;
  errorCode?: string | null;
}

const T0 = Date.parse('2026-06-01T12:00:00Z');
const STALE = 60;

function setup(runs: FakeRun[], jobs: Record<string, RunJobState> = {}) {
  const now = new Date(T0);
  const byId = new Map(runs.map((r) => [r.id, { ...r }]));
  const requeued: Array<[number, number, number]> = [];
  const failed: Array<[number, RunFailure]> = [];
  const afterFailed: number[] = [];
  let onJobState: ((runId: number) => void) | null = null;
  const repo = {
    findStaleRuns: async (before: Date) =>
      [...byId.values()]
        .filter((r) => [1, 2, 3, 5].includes(r.status) && r.updated < before)
        .map((r) => ({ id: r.id, status: r.status })),
    findFailedBefore: async (before: Date) =>
      [...byId.values()].filter((r) => r.status === 7 && r.statusChanged < before) as never[],
    findPendingRuns: async (changedBefore?: Date) =>
      [...byId.values()]
        .filter((r) => (r.status === 4 || r.status === 12) && (!changedBefore || r.statusChanged < changedBefore))
        .map((r) => ({ id: r.id, status: r.status, retryCount: r.retryCount, waitUntil: r.waitUntil })),
    findRun: async (id: number) => (byId.get(id) ? ({ ...byId.get(id)! } as never) : null),
    transition: async (id: number, event: RunEvent, _at: Date, patch: object = {}) => {
      const r = byId.get(id);
      if (!r) return null;
      try {
        r.status = nextStatus(r.status, event);
      } catch {
        return null;
      }
      Object.assign(r, patch);
      return r as never;
    },
  };
  const reconcile = createReconciler({
    // Prisma's promise types are not plain promises: the fake stands in for the methods used.
    repo: repo as unknown as Parameters<typeof createReconciler>[0]['repo'],
    execution: {
      failOrRetry: async (id: number, failure: RunFailure) => {
        failed.push([id, failure]);
        byId.get(id)!.status = 6;
        return null;
      },
      afterFailed: async (row: { id: number }) => {
        afterFailed.push(row.id);
        byId.get(row.id)!.status = 6;
        return null;
      },
    },
    queue: {
      jobState: async (runId, attempt) => {
        onJobState?.(runId);
        return jobs[`${runId}-${attempt}`] ?? 'missing';
      },
      requeueRun: async (runId, attempt, delayMs = 0) => {
        requeued.push([runId, attempt, delayMs]);
      },
    },
    clock: { now: () => now },
    config: { runs: { staleAfterSeconds: STALE } },
  });
  return {
    reconcile,
    byId,
    requeued,
    failed,
    afterFailed,
    onJobState: (fn: (runId: number) => void) => (onJobState = fn),
  };
}

const at = (secondsAgo: number) => new Date(T0 - secondsAgo * 1000);
const run = (id: number, status: number, extra: Partial<FakeRun> = {}): FakeRun => ({
  id,
  status,
  retryCount: 0,
  waitUntil: null,
  updated: at(1),
  statusChanged: at(1),
  isWaitOnFailure: false,
  ...extra,
});

describe('reconciler', () => {
  it('re-enqueues Queuing Runs whose job is missing (Redis lost it) or finished (pick-up failed for good)', async () => {
    const t = setup([run(1, 4), run(2, 4), run(3, 4), run(4, 4), run(5, 4, { retryCount: 2 })], {
      '1-0': 'missing',
      '2-0': 'finished',
      '3-0': 'pending',
      '4-0': 'active',
      '5-2': 'finished',
    });
    const result = await t.reconcile();
    expect(t.requeued).toEqual([
      [1, 0, 0],
      [2, 0, 0],
      [5, 2, 0],
    ]);
    expect(result).toEqual({ failed: 0, finished: 0, requeued: 3 });
  });

  it('in its periodic pass, checks only Runs pending for longer than its interval', async () => {
    const jobs: Record<string, RunJobState> = { '1-0': 'missing', '2-0': 'missing', '3-0': 'missing' };
    const runs = [
      run(1, 4, { statusChanged: at(45) }),
      run(2, 4, { statusChanged: at(5) }),
      run(3, 12, { statusChanged: at(31) }),
    ];
    const periodic = setup(runs, jobs);
    expect(await periodic.reconcile({ pendingForMs: 30_000 })).toEqual({ failed: 0, finished: 0, requeued: 2 });
    expect(periodic.requeued.map(([id]) => id)).toEqual([1, 3]);
    // On a (re)connection every pending Run is checked: Redis may have lost the newest jobs too.
    const reconnected = setup(runs, jobs);
    expect(await reconnected.reconcile()).toEqual({ failed: 0, finished: 0, requeued: 3 });
  });

  it('re-enqueues a Waiting Run for what is left of its wait, and at once when the wait is over', async () => {
    const t = setup([
      run(1, 12, { retryCount: 1, waitUntil: new Date(T0 + 30_000) }),
      run(2, 12, { retryCount: 1, waitUntil: at(5) }),
    ]);
    await t.reconcile();
    expect(t.requeued).toEqual([
      [1, 1, 30_000],
      [2, 1, 0],
    ]);
  });

  it('leaves alone a Run picked between the queue check and the re-enqueue', async () => {
    const t = setup([run(1, 4)], { '1-0': 'finished' });
    // The job finished because a worker took the Run: by the time the queue answers it is Starting.
    t.onJobState((id) => (t.byId.get(id)!.status = 3));
    expect(await t.reconcile()).toEqual({ failed: 0, finished: 0, requeued: 0 });
    expect(t.requeued).toEqual([]);
  });

  it('ends Runs whose heartbeat is stale: Stopping -> Stopped, others through failOrRetry', async () => {
    const t = setup([
      run(1, 1, { updated: at(STALE + 1) }),
      run(2, 5, { updated: at(STALE + 1) }),
      run(3, 1, { updated: at(STALE - 1) }),
    ]);
    const result = await t.reconcile();
    expect(t.failed).toEqual([[1, { code: 'WORKER_LOST', params: { reason: 'heartbeat' } }]]);
    expect(t.byId.get(2)).toMatchObject({
      status: 8,
      errorCode: 'STOPPED_BY_USER',
      errorParams: { when: 'workerLost' },
    });
    expect(t.byId.get(3)!.status).toBe(1);
    expect(result.failed).toBe(2);
  });

  it('finishes Runs left in 7 Failed, once they have been there longer than RUN_STALE_SECONDS', async () => {
    const t = setup([run(1, 7, { statusChanged: at(STALE + 1) }), run(2, 7, { statusChanged: at(2) })]);
    const result = await t.reconcile();
    expect(t.afterFailed).toEqual([1]);
    expect(result.finished).toBe(1);
    expect(t.byId.get(2)!.status).toBe(7);
  });

  it('does nothing when every active Run has an owner', async () => {
    const t = setup([run(1, 1), run(2, 4), run(3, 12, { waitUntil: new Date(T0 + 1000), retryCount: 1 })], {
      '2-0': 'pending',
      '3-1': 'pending',
    });
    expect(await t.reconcile()).toEqual({ failed: 0, finished: 0, requeued: 0 });
    expect(t.requeued).toEqual([]);
  });
});
