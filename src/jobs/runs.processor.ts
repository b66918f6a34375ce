// The `runs` queue processor: executes one Run in a child process, relays its progress to the
// execution service, and acts on stop (graceful) and kill (SIGKILL) requests. Status changes and
// files all go through the execution service.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { RunExecutionService } from '../services/runs/execution.service.js';
import { internalRunFailure } from '../services/runs/run-errors.js';
import type { ChildMessage, ChildResult, ParentMessage } from '../services/runs/run-protocol.js';
import type { QueuePayloads } from './queues.js';
import type { RunChildPool } from './run-child-pool.js';

const CONTROL_INTERVAL_MS = 250;
const MAX_HEARTBEAT_INTERVAL_MS = 5_000;

/** Heartbeats come at least three times per RUN_STALE_SECONDS, so a live Run is never taken for lost. */
export function heartbeatIntervalMs(staleAfterSeconds: number): number {
  return Math.max(CONTROL_INTERVAL_MS, Math.min(MAX_HEARTBEAT_INTERVAL_MS, Math.floor((staleAfterSeconds * 1000) / 3)));
}
// After the Run's own timeout the engine stops itself; this is the margin before we kill it.
const TIMEOUT_GRACE_MS = 30_000;

export function createRunsProcessor(deps: { execution: RunExecutionService; log: Logger; staleAfterSeconds: number; pool: RunChildPool }) {
  const { execution, log, pool } = deps;
  const heartbeatMs = heartbeatIntervalMs(deps.staleAfterSeconds);

  return async function processRun(job: Job<QueuePayloads['runs']>): Promise<{ status: string }> {
    const { runId } = job.data;
    const picked = await execution.pick(runId);
    if (!picked) return { status: 'skipped' };

    const runChild = pool.acquire();
    const child = runChild.process;
    const send = (msg: ParentMessage) => {
      if (child.connected) child.send(msg);
    };

    let result: ChildResult | null = null;
    let childError: string | null = null;
    let killed = false;
    let stopSent = false;
    let pending: Promise<unknown> = Promise.resolve();
    // Child messages are applied in order.
    const enqueue = (fn: () => Promise<unknown>) => {
      pending = pending.then(fn).catch((err) => log.error({ err, runId }, 'run update failed'));
    };

    let endRun: () => void = () => {};
    const ended = new Promise<void>((resolve) => (endRun = resolve));
    let exitCode: number | null = null;
    const onExit = (code: number | null) => {
      exitCode = code;
      endRun();
    };
    const onMessage = (msg: ChildMessage) => {
      switch (msg.type) {
        case 'firstPage':
          enqueue(() => execution.firstPage(runId));
          break;
        case 'progress':
          enqueue(() => execution.progress(runId, msg.stats));
          break;
        case 'exporting':
          enqueue(() => execution.exporting(runId, msg.stats));
          break;
        case 'done':
          result = msg.result;
          endRun();
          break;
        case 'error':
          childError = msg.message;
          break;
      }
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    send({ type: 'start', payload: picked.payload });

    const deadline = Date.now() + picked.timeoutSeconds * 1000 + TIMEOUT_GRACE_MS;
    let lastBeat = Date.now();
    let timedOut = false;
    const control = setInterval(() => {
      enqueue(async () => {
        if (killed || result) return;
        if (Date.now() > deadline) {
          timedOut = true;
          killed = true;
          child.kill('SIGKILL');
          return;
        }
        const action = await execution.control(runId);
        if (action === 'kill' || action === 'gone') {
          killed = true;
          child.kill('SIGKILL');
        } else if (action === 'stop' && !stopSent) {
          stopSent = true;
          send({ type: 'stop' });
        }
        if (Date.now() - lastBeat >= heartbeatMs) {
          lastBeat = Date.now();
          await execution.heartbeat(runId);
        }
      });
    }, CONTROL_INTERVAL_MS);

    await ended;
    clearInterval(control);
    await pending;
    child.off('message', onMessage);
    child.off('exit', onExit);
    pool.release(runChild, result !== null && !killed && childError === null);

    if (result) {
      await execution.finish(runId, result);
      return { status: 'finished' };
    }
    if (killed && !timedOut) {
      await execution.killed(runId);
      return { status: 'killed' };
    }
    // The child's own error text stays in the log; the Run says where to find it (issue 8 item 9).
    if (childError !== null) log.error({ runId, childError }, 'run process failed');
    const message = timedOut
      ? `The Run exceeded its timeout of ${picked.timeoutSeconds} s and was terminated.`
      : childError !== null
        ? internalRunFailure(runId)
        : `The run process ended unexpectedly (exit code ${exitCode}).`;
    await execution.failOrRetry(runId, message);
    return { status: 'failed' };
  };
}
