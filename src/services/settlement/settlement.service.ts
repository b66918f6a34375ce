// Settlement: what happens exactly once when a Run reaches a terminal status, by whatever path
// (finished, failed, stopped, killed, skipped, lost worker). Each step (usage metering and the
// credit debit, analytics rollups) runs inside the one transaction that claims the Run, so either
// all of them happen once or none does and a later sweep tries again. A status change to a terminal
// status is made by the claim itself (`settleMoving`): the Run ends and is settled in one transaction.
import { isDatabaseUnreachable } from '../../db/failures.js';
import type { Clock } from '../../lib/clock.js';
import type { Prisma } from '../../db/prisma.js';
import type { NewRunFile, RunRow, SettledRun, TerminalMove } from '../runs/runs.repository.js';
import { settledRunOf } from '../runs/run-sql.repository.js';
import type { ClaimReadValue, ClaimSql, SettlementRepository } from './settlement.repository.js';

export type AfterCommit = () => void;

export interface SettlementStep {
  /** For logs. */
  name: string;
  /**
   * What the step reads in the statement that claims the Run, on the claimed row (no round trip of its
   * own): `read`, an SQL value handed to `apply` as `claimRead`. It sees the Run as the claim returns it.
   */
  atClaim?: (claimed: ClaimedRunSql) => ClaimSql;
  /**
   * What `atClaim`'s read will be for a Run that ends as `run` with `files` (undefined: not known before
   * the claim), so that a Run's end and its settlement go in one round trip (settleMoving): `value` is
   * handed to `apply`, and the claim checks that the read has that value.
   */
  predictRead?(run: SettledRun, files: readonly NewRunFile[] | undefined): { value: ClaimReadValue } | undefined;
  /**
   * What the step writes after the claim: at most one statement, which the service runs in the claim's
   * transaction after the earlier steps' (all of them, and the COMMIT, in one round trip), and what to
   * do once the transaction committed (a metric: nothing counted twice or for a rollback).
   */
  apply(run: SettledRun, at: Date, claimRead: unknown): StepWork | void;
}

/** A step's part after the claim (SettlementStep.apply). */
export interface StepWork {
  /** A statement run just before `statement`, in a snapshot of its own: a lock `statement` must see taken. */
  before?: Prisma.Sql;
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

  /**
   * Claims the Run (making `move` first, when given) and runs the steps: the claimed Run, or null when
   * it was not terminal (did not move) or already settled. Two round trips: the claim, then every
   * step's statement with the COMMIT.
   */
  async function claimAndSettle(runId: number, move?: TerminalMove): Promise<RunRow | null> {
    const afterCommit: AfterCommit[] = [];
    const settled = await repo.transaction(async (tx) => {
      afterCommit.length = 0;
      const at = clock.now();
      const claimed = await repo.claim(tx, runId, at, atClaim, move);
      if (!claimed) return null;
      const run = settledRunOf(claimed.run);
      const work = steps.map((step, i) => step.apply(run, at, claimed.reads[i]) ?? {});
      const statements = work.flatMap((w) => [w.before, w.statement].filter((q) => q !== undefined));
      // A settlement alone commits without waiting for the WAL flush, so that the locks its steps take
      // (the organization's debit lock) are not held through a disk write: a crash can lose it only with
      // everything committed after it, and the sweep settles the Run again. One that also ends
      // the Run commits durably, as every status change does.
      if (!move && statements.length > 0) statements.unshift(repo.asyncCommitSql());
      const last = statements.pop();
      if (last) await tx.rows(last, { before: statements, last: true });
      for (const w of work) if (w.afterCommit) afterCommit.push(w.afterCommit);
      return claimed.run;
    });
    for (const then of afterCommit) then();
    return settled;
  }

  /**
   * A Run's end and its settlement in one round trip, written from the Run as the change is expected to
   * leave it (`move.expected`): undefined when a step's claim read cannot be foretold, or when the claim
   * found the Run otherwise (moved meanwhile, other figures, a read that differs): nothing of it then
   * stays, and the caller ends and settles the Run in two round trips (claimAndSettle).
   */
  async function settleAtOnce(
    runId: number,
    move: TerminalMove,
    expected: NonNullable<TerminalMove['expected']>,
  ): Promise<RunRow | undefined> {
    const predicted = steps.map((s) => (s.atClaim ? s.predictRead?.(expected.run, expected.files) : null));
    if (predicted.some((p) => p === undefined)) return undefined;
    const at = clock.now();
    const work = steps.map((step, i) => step.apply(expected.run, at, predicted[i]?.value) ?? {});
    const statements = work.flatMap((w) => [w.before, w.statement].filter((q) => q !== undefined));
    const reads = predicted.map((p) => p?.value);
    let ended: RunRow | null;
    try {
      ended = await repo.transaction((tx) =>
        repo.claimAtOnce(tx, runId, at, atClaim, move, { run: expected.run, reads }, statements),
      );
    } catch (err) {
      if (repo.isClaimCheckFailure(err)) return undefined;
      throw err;
    }
    for (const w of work) w.afterCommit?.();
    return ended ?? undefined;
  }

  /** Settles one Run; true when this call did it, false when it was not terminal or already settled. */
  async function settle(runId: number): Promise<boolean> {
    return (await claimAndSettle(runId)) !== null;
  }

  /**
   * Called right after a Run's terminal transition committed. A failure leaves the Run unsettled
   * for the sweep; it never undoes or fails the transition itself.
   */
  async function afterTerminal(run: Pick<RunRow, 'id'>): Promise<void> {
    try {
      await settle(run.id);
    } catch (err) {
      log.warn(
        { runId: run.id, err: { message: (err as Error).message } },
        'run settlement failed; the sweep will retry it',
      );
    }
  }

  return {
    settle,
    afterTerminal,

    /**
     * Makes a Run's terminal status change and settles it in one transaction: the moved Run, or null
     * when its status did not allow the change. In one round trip when the Run is expected to end as
     * `move.expected` says and it does; in two otherwise. When that transaction fails, the change is made alone
     * (`alone`) and settled as after any terminal transition, so a failing step never holds up a Run's end.
     */
    async settleMoving(runId: number, move: TerminalMove, alone: () => Promise<RunRow | null>): Promise<RunRow | null> {
      try {
        const once = move.expected ? await settleAtOnce(runId, move, move.expected) : undefined;
        return once ?? (await claimAndSettle(runId, move));
      } catch (err) {
        // The database away fails the change alone too: the caller retries it whole.
        if (isDatabaseUnreachable(err)) throw err;
        log.warn(
          { runId, err: { message: (err as Error).message } },
          'run end and settlement failed together; ending the Run alone',
        );
        const run = await alone();
        if (run) await afterTerminal(run);
        return run;
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
