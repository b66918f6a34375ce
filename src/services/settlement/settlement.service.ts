// Settlement: what happens exactly once when a Run reaches a terminal status, by whatever path
// (finished, failed, stopped, killed, skipped, lost worker). Each step (usage metering and the
// credit debit, analytics rollups) runs inside the one transaction that claims the Run, so either
// all of them happen once or none does and a later sweep tries again.
import type { Clock } from '../../lib/clock.js';
import type { RunRow } from '../runs/runs.repository.js';
import type { SettlementRepository, SettlementTx } from './settlement.repository.js';

export type AfterCommit = () => void;

export interface SettlementStep {
  /** For logs. */
  name: string;
  /** May return what to do once the transaction committed (a metric: nothing counted twice or for a rollback). */
  apply(tx: SettlementTx, run: RunRow, at: Date): Promise<void | AfterCommit>;
}

export interface SettlementLog {
  warn(obj: object, msg: string): void;
}

export function createSettlementService(deps: {
  repo: SettlementRepository;
  steps: readonly SettlementStep[];
  clock: Clock;
  log: SettlementLog;
}) {
  const { repo, steps, clock, log } = deps;

  /** Settles one Run; true when this call did it, false when it was not terminal or already settled. */
  async function settle(runId: number): Promise<boolean> {
    const afterCommit: AfterCommit[] = [];
    const settled = await repo.transaction(async (tx) => {
      afterCommit.length = 0;
      const at = clock.now();
      const run = await repo.claim(tx, runId, at);
      if (!run) return false;
      for (const step of steps) {
        const then = await step.apply(tx, run, at);
        if (then) afterCommit.push(then);
      }
      return true;
    });
    for (const then of afterCommit) then();
    return settled;
  }

  return {
    settle,

    /**
     * Called right after a Run's terminal transition committed. A failure leaves the Run unsettled
     * for the sweep; it never undoes or fails the transition itself.
     */
    async afterTerminal(run: Pick<RunRow, 'id'>): Promise<void> {
      try {
        await settle(run.id);
      } catch (err) {
        log.warn(
          { runId: run.id, err: { message: (err as Error).message } },
          'run settlement failed; the sweep will retry it',
        );
      }
    },

    /** The sweep: settles terminal Runs whose settlement has not happened yet. */
    async settlePending(limit = 500): Promise<{ settled: number; failed: number }> {
      let settled = 0;
      let failed = 0;
      for (const id of await repo.findUnsettled(limit)) {
        try {
          if (await settle(id)) settled += 1;
        } catch (err) {
          // Left unsettled for the next sweep.
          failed += 1;
          log.warn(
            { runId: id, err: { message: (err as Error).message } },
            'run settlement failed; the sweep will retry it',
          );
        }
      }
      return { settled, failed };
    },
  };
}
export type SettlementService = ReturnType<typeof createSettlementService>;
