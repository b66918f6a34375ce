// The child process that executes Runs (run-host.ts), one at a time. It exists so that a second kill
// can end a Run at once (SIGKILL), whatever the engine is blocked on; between Runs the worker keeps it
// warm for the next one. It dies with its parent.
import { warmPageWorker } from '../engine/index.js';
import type { ChildMessage, ParentMessage } from '../services/runs/run-protocol.js';
import { createRunHost } from './run-host.js';

process.on('disconnect', () => process.exit(1));
// A parent that died while this process was still loading its modules closed the channel before the
// listener above existed: that 'disconnect' is gone, and the page worker thread would keep this process
// alive for good.
if (!process.connected) process.exit(1);
// Pages are parsed on a thread of their own (under the page CPU budget): started before the first Run.
warmPageWorker();

const host = createRunHost({
  send: (msg: ChildMessage) => process.send?.(msg),
  workerPid: process.ppid,
  onFatal: () => setTimeout(() => process.exit(1), 50),
  where: 'in a run process',
});
process.on('message', (msg: ParentMessage) => host.receive(msg));
