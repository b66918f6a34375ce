// The runs domain's core, built the same way by the API (services/runs/index.ts) and the worker
// (jobs/runtime.ts): the repository whose terminal transitions settle the Run and announce its end,
// and the scheduler that puts each Run in its server group's queue.
import type { ConnectionOptions } from 'bullmq';
import type { Config } from '../../config.js';
import type { Db } from '../../db/prisma.js';
import type { Clock } from '../../lib/clock.js';
import { createGroupQueues, createRunScheduler, type TypedQueue } from '../../queues/queues.js';
import type { RunSignals } from '../../queues/run-signals.js';
import { createSettlement } from '../settlement/index.js';
import type { SettlementLog } from '../settlement/settlement.service.js';
import { recordRunEnd } from './run-metrics.js';
import { createRunsRepository } from './runs.repository.js';

export function wireRunsCore(
  db: Db,
  deps: {
    clock: Clock;
    log: SettlementLog;
    config: Config;
    signals: Pick<RunSignals, 'publish'>;
    /** The default Run queue; a getter, so the API can open it on first use. */
    runQueue: () => TypedQueue<'runs'>;
    /** The connection of the server groups' queues. */
    connection: ConnectionOptions;
    /** Bounds every queue call (the API's requests never wait longer on Redis). */
    timeoutMs?: number;
  },
) {
  const settlement = createSettlement(db, { clock: deps.clock, log: deps.log, config: deps.config });
  const repo = createRunsRepository(db, {
    settle: (run) => settlement.afterTerminal(run),
    settleMoving: (runId, move, alone) => settlement.settleMoving(runId, move, alone),
    ended: async (run) => {
      recordRunEnd(run);
      // A synchronous start waiting for this Run hears of its end at once. Only such a start waits for
      // a Run's end, and only its Run keeps its records (keepRecords): no other Run's end is published.
      if (run.keepRecords) await deps.signals.publish(run.id, 'ended');
    },
  });
  // Runs of a server group go to (and are retried, reconciled and stopped in) that group's queue.
  const groupQueues = createGroupQueues(deps.connection, deps.config.redisPrefix);
  const groups = {
    groupQueue: (id: number) => groupQueues.get(id),
    serverGroupOf: async (runId: number) => (await repo.findRun(runId))?.serverGroupId ?? null,
  };
  const scheduler = () => createRunScheduler(deps.runQueue(), { timeoutMs: deps.timeoutMs, groups });
  return { settlement, repo, groupQueues, scheduler };
}
