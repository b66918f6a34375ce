// Settlement: what happens exactly once when a Run reaches a terminal status, by whatever path
// (finished, failed, stopped, killed, skipped, lost worker). Each step (usage metering and the
// credit debit, analytics rollups) runs inside the one transaction that claims the Run, so either
// all of them happen once or none does and a later sweep tries again.
import type { Clock } from '../../lib/clock.js';
import type { Prisma } from '../../db/prisma.js';
import type { RunRow } from '../runs/runs.repository.js';
import type { ClaimSql, SettlementRepository } from './settlement.repository.js';

export type AfterCommit = () => void;

export interface SettlementStep {
  /** For logs. */
  name: string;
  /**
   * What the step does in the statement that claims the Run, on the claimed row (no round trip of its
   * own): `read` (an SQL value, handed to `apply` as `claimRead`) and `write` (a statement run once per
   * claimed Run). Both see the Run as the claim returns it.
   */
  atClaim?: (claimed: ClaimedRunSql) => ClaimSql;
  /**
   * What the step writes after the claim: at most one statement, which the service runs in the claim's
   * transaction after the earlier steps' (the last of them carries the COMMIT, in the same round trip),
   * and what to do once the transaction committed (a metric: nothing counted twice or for a rollback).
   */
  apply(run: RunRow, at: Date, claimRead: unknown): StepWork | void;
}

/** A step's part after the claim (SettlementStep.apply). */
export interface StepWork {
  statement?: Prisma.Sql;
  afterCommit?: AfterCommit;
}

/** The claimed Run inside the claim statement: `column('agentId')` is that column of it. */
export interface ClaimedRunSql {
  column: (name: keyof RunRow) => Prisma.Sql;
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
  const atClaim = steps.map((s) => s.atClaim);

  /** Settles one Run; true when this call did it, false when it was not terminal or already settled. */
  async function settle(runId: number): Promise<boolean> {
    const afterCommit: AfterCommit[] = [];
    const settled = await repo.transaction(async (tx) => {
      afterCommit.length = 0;
      const at = clock.now();
      const claimed = await repo.claim(tx, runId, at, atClaim);
      if (!claimed) return false;
      const work = steps.map((step, i) => step.apply(claimed.run, at, claimed.reads[i]) ?? {});
      const statements = work.flatMap((w) => (w.statement ? [w.statement] : []));
      for (const [i, statement] of statements.entries())
        await tx.rows(statement, { last: i === statements.length - 1 });
      for (const w of work) if (w.afterCommit) afterCommit.push(w.afterCommit);
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
