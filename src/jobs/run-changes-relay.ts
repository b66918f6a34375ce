// In the worker: answers a run process's questions about its Run's records (change tracking), which
// its run process cannot ask the database itself. Answers go back over the same channel, in any order.
import type { ChangesReply, ChangesRequest } from '../services/changes/changes-protocol.js';
import type { RunChangesService } from '../services/changes/changes.service.js';

export function relayRunChanges(
  runId: number,
  changes: RunChangesService | undefined,
  send: (msg: ChangesReply) => void,
): (msg: ChangesRequest) => void {
  return (msg) => {
    if (!changes) {
      send({ type: 'changes:answer', request: msg.request, ok: false, message: 'change tracking is not available' });
      return;
    }
    changes.answer(runId, msg.ask).then(
      (value) => send({ type: 'changes:answer', request: msg.request, ok: true, value: value ?? null }),
      (err: Error) => send({ type: 'changes:answer', request: msg.request, ok: false, message: err.message }),
    );
  };
}
