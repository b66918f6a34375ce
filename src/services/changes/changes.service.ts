// Change tracking's rules outside the engine: a Run's records staged and classified as its export goes
// (the run process asks through the worker, batch by batch), the settlement step that marks a Run that
// ended Success, the merge of what it staged into the Agent's state after its end, and the reset a user
// asks for.
import type { Principal } from '../identity/principal.js';
import type { AccessService } from '../access/access.service.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import { RunStatus } from '../runs/status-machine.js';
import { settleChangesSql, type ChangesRepository } from './changes.repository.js';

export type { DeletedRecord } from './changes.repository.js';

/** Most keys one question of a run process may carry (a bigger batch is refused, not cut). */
export const MAX_CHANGES_BATCH = 5_000;

/** What a run process asks about its Run's records (over its worker: it has no database of its own). */
export type ChangesAsk =
  // observe: the worker tracks the Run's records from its checkpoints (run-changes-tracker.ts).
  | { op: 'begin'; trackDeletes: boolean; observe?: boolean }
  | { op: 'known'; keys: string[] }
  | { op: 'lookup'; keys: string[] }
  | { op: 'classify'; batch: number; keys: string[] }
  | { op: 'seen'; batch: number; keys: string[] }
  | { op: 'stage'; batch: number; keys: string[]; valuesHashes: string[]; listHashes: string[]; values: string[] }
  | { op: 'unseenAfter'; after: string | null; limit: number };

export function createRunChangesService(repo: ChangesRepository) {
  const bounded = (n: number) => {
    if (n > MAX_CHANGES_BATCH) throw new RangeError(`at most ${MAX_CHANGES_BATCH} records per question, got ${n}`);
  };
  return {
    /** Merges what Run `runId` (ended Success) staged into its Agent's state. */
    mergeAfterEnd: (runId: number) => repo.mergeSettled(runId),

    /**
     * For each of `keys`, in order, the values hash the Agent last saw (null: a new key), asked after the
     * Run's `begin` was answered (the state is whole then: no merge to check first).
     */
    lookupBegun(runId: number, keys: string[]): Promise<Array<string | null>> {
      bounded(keys.length);
      return repo.lookup(runId, keys);
    },

    /** Answers a run process's question about Run `runId`'s records. */
    async answer(runId: number, ask: ChangesAsk): Promise<unknown> {
      switch (ask.op) {
        // The state the Run reads is whole first: what earlier Runs of its Agent staged is merged.
        case 'begin':
          await repo.mergeSettled(runId);
          return repo.begin(runId, ask.trackDeletes);
        case 'known':
          bounded(ask.keys.length);
          // Asked during the crawl too (skipUnchangedDetails), before the export begins.
          await repo.mergeSettled(runId);
          return repo.known(runId, ask.keys);
        case 'lookup':
          bounded(ask.keys.length);
          // Asked during the crawl, before the export begins: the state is made whole first.
          await repo.mergeSettled(runId);
          return repo.lookup(runId, ask.keys);
        case 'classify':
          bounded(ask.keys.length);
          return repo.classify(runId, ask.batch, ask.keys);
        case 'seen':
          bounded(ask.keys.length);
          return repo.seen(runId, ask.batch, ask.keys);
        case 'stage':
          bounded(ask.keys.length);
          return repo.stage(runId, ask);
        case 'unseenAfter':
          return repo.unseenAfter(runId, ask.after, Math.min(ask.limit, MAX_CHANGES_BATCH));
      }
    },
  };
}
export type RunChangesService = ReturnType<typeof createRunChangesService>;

/** The settlement step: a Run's end decides what becomes of the records it staged (settleChangesSql). */
export function createChangesSettlementStep(): SettlementStep {
  return {
    name: 'changes',
    apply: (run) => ({ statement: settleChangesSql(run, run.status === RunStatus.Success) }),
  };
}

/** POST /agent/{id}/changes/reset: the Agent forgets its records; its next Run finds them all new. */
export function createChangesService(deps: { repo: ChangesRepository; access: Pick<AccessService, 'requireAgent'> }) {
  return {
    async reset(principal: Principal, agentId: number): Promise<{ agentId: number; forgottenKeys: number }> {
      await deps.access.requireAgent(principal, agentId, 'write');
      const forgottenKeys = await deps.repo.reset(agentId);
      return { agentId, forgottenKeys };
    },
  };
}
export type ChangesService = ReturnType<typeof createChangesService>;
