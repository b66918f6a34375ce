// In the worker: answers a run process's questions about its Run's records (change tracking), which
// its run process cannot ask the database itself. Answers go back over the same channel, in any order.
// A Run that asks for it at its beginning has its records tracked here as its checkpoints bring them
// (run-changes-tracker.ts); its export then asks for their marks.
import type { AgentDefinition } from '../engine/index.js';
import type { ChangesReply, ChangesRequest } from '../services/changes/changes-protocol.js';
import type { RunChangesService } from '../services/changes/changes.service.js';
import { createRunChangesTracker, type RunChangesTracker } from './run-changes-tracker.js';

export function relayRunChanges(
  runId: number,
  definition: AgentDefinition,
  changes: RunChangesService | undefined,
  send: (msg: ChangesReply) => void,
) {
  let tracker: RunChangesTracker | null = null;
  const reply = (request: number, answer: Promise<unknown>) =>
    answer.then(
      (value) => send({ type: 'changes:answer', request, ok: true, value: value ?? null }),
      (err: Error) => send({ type: 'changes:answer', request, ok: false, message: err.message }),
    );
  return {
    /** A question of the run process. */
    ask(msg: ChangesRequest): void {
      if (!changes) {
        send({ type: 'changes:answer', request: msg.request, ok: false, message: 'change tracking is not available' });
        return;
      }
      const ask = msg.ask;
      if (ask.op === 'marks') {
        void reply(msg.request, tracker ? tracker.marks(ask) : Promise.resolve(null));
        return;
      }
      if (ask.op === 'staged') {
        void reply(msg.request, tracker ? tracker.staged() : Promise.resolve(false));
        return;
      }
      const answer = changes.answer(runId, ask);
      if (ask.op === 'begin') {
        // A new beginning drops what was tracked: the run process does the work itself from now on.
        tracker = ask.observe ? createRunChangesTracker(runId, definition, changes, answer, ask.trackDeletes) : null;
      }
      void reply(msg.request, answer);
    },
    /** The records a checkpoint brought (tracked when the Run asked for it). */
    observe(records: ReadonlyArray<{ set: number; ndjson: string }>): void {
      tracker?.observe(records);
    },
  };
}
