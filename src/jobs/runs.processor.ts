// The `runs` queue processor: executes one Run in a child process, relays its progress to the
// execution service, and acts on stop (graceful) and kill (SIGKILL) as soon as they are signalled.
// Status changes and files all go through the execution service; the control logic is in
// run-supervisor.ts. A failure before the Run is taken (the database away) throws, and BullMQ retries
// the job; after that nothing throws except a hand-back, which BullMQ also retries (elsewhere).
import type { Job } from 'bullmq';
import { failureOfStorage, fetchesOnePage, type BrowserSourceFactory, type ExtractionStats } from '../engine/index.js';
import { type StorageFailure, type StorageFailureKind } from '../storage/index.js';
import type { Logger } from 'pino';
import { recordRunStarted } from '../lib/metrics.js';
import { isChangesRequest } from '../services/changes/changes-protocol.js';
import type { RunChangesService } from '../services/changes/changes.service.js';
import type { RunExecutionService } from '../services/runs/execution.service.js';
import { internalRunFailure, RunFailureCode, type RunFailure } from '../services/runs/run-errors.js';
import { recordRunResult } from '../services/runs/run-metrics.js';
import type { RunRow } from '../services/runs/runs.repository.js';
import { RUN_STATUS_NAMES, RunStatus, type RunStatusValue } from '../services/runs/status-machine.js';
import {
  isBrowserRequest,
  type ChildMessage,
  type ChildResult,
  type ParentMessage,
  type RunSignals,
} from '../services/runs/run-protocol.js';
import type { QueuePayloads } from '../queues/queues.js';
import { openRunBrowserSessions } from './browser-sessions.js';
import { createCheckpointWriter } from './checkpoint-writer.js';
import { relayRunChanges } from './run-changes-relay.js';
import type { RunChildPool } from './run-child-pool.js';
import { createRunSupervisor, systemTimers, untilDone, type RunSupervisor, type Timers } from './run-supervisor.js';

const MAX_HEARTBEAT_INTERVAL_MS = 5_000;
const MIN_HEARTBEAT_INTERVAL_MS = 250;

/** Heartbeats come at least three times per RUN_STALE_SECONDS, so a live Run is never taken for lost. */
export function heartbeatIntervalMs(staleAfterSeconds: number): number {
  return Math.max(
    MIN_HEARTBEAT_INTERVAL_MS,
    Math.min(MAX_HEARTBEAT_INTERVAL_MS, Math.floor((staleAfterSeconds * 1000) / 3)),
  );
}
// After the Run's own timeout the engine stops itself; this is the margin before we kill it.
const TIMEOUT_GRACE_MS = 30_000;

/** Thrown to give a Run back to the queue on a planned shutdown: BullMQ retries the job elsewhere. */
export class HandedBackError extends Error {}

export function createRunsProcessor(deps: {
  execution: RunExecutionService;
  log: Logger;
  staleAfterSeconds: number;
  pool: RunChildPool;
  signals: Pick<RunSignals, 'listen'>;
  /** The worker's browser pool, which renders the pages of every run process; null without Chromium. */
  browsers: BrowserSourceFactory | null;
  timers?: Timers;
  /** Answers run processes' questions about their Runs' records (change tracking). */
  changes?: RunChangesService;
  /** Told of each Run that failed on a storage error (a metrics counter, for one). */
  onStorageFailure?: (kind: StorageFailureKind) => void;
}) {
  const { execution, log, pool, signals } = deps;
  const timers = deps.timers ?? systemTimers;
  const heartbeatMs = heartbeatIntervalMs(deps.staleAfterSeconds);
  const active = new Map<number, RunSupervisor>();
  let handingBack = false;

  async function processRun(job: Job<QueuePayloads['runs']>): Promise<{ status: string }> {
    const { runId } = job.data;
    const picked = await execution.pick(runId);
    if (!picked) return { status: 'skipped' };
    recordRunStarted();
    log.info({ agentId: picked.run.agentId, runId, attempt: picked.run.retryCount }, 'run started');
    // One line when the execution ends, from the row the terminal write returned (no extra read).
    const logEnded = (run: RunRow | null) => {
      const durationMs = run?.startTime ? (run.endTime?.getTime() ?? Date.now()) - run.startTime.getTime() : null;
      log.info(
        {
          agentId: picked.run.agentId,
          runId,
          status: run ? (RUN_STATUS_NAMES[run.status as RunStatusValue] ?? run.status) : undefined,
          durationMs,
          records: run?.recordsExtracted,
          errorMessage: run?.errorMessage ?? undefined,
        },
        'run ended',
      );
    };

    // A resumed Run's figures start from its checkpoint, which may be behind what its earlier attempt
    // reported: the Run's record count never goes backwards (its end writes the exact figures).
    const floor = picked.payload.resume ? picked.run.recordsExtracted : 0;
    const notBelow = (stats: ExtractionStats) => (stats.dataCount >= floor ? stats : { ...stats, dataCount: floor });
    const runChild = pool.acquire({ onePage: fetchesOnePage(picked.payload.definition, picked.payload.inputRows) });
    const child = runChild.process;
    const send = (msg: ParentMessage) => {
      if (child.connected) child.send(msg);
    };
    const onError = (err: unknown, what: string) => log.error({ err, runId, what }, 'run update failed');
    const supervisor = createRunSupervisor({
      run: {
        heartbeat: () => execution.heartbeat(runId),
        firstPage: () => execution.firstPage(runId),
        progress: (stats) => execution.progress(runId, notBelow(stats)),
        exporting: (stats) => execution.exporting(runId, notBelow(stats)),
      },
      process: { stop: () => send({ type: 'stop' }), kill: () => child.kill('SIGKILL') },
      timers,
      heartbeatMs,
      deadlineMs: picked.timeoutSeconds * 1000 + TIMEOUT_GRACE_MS,
      onError,
    });
    active.set(runId, supervisor);
    // A Run picked while the shutdown is already handing Runs back goes back at once.
    if (handingBack) supervisor.handBack();
    const listening = signals.listen(runId, (kind) => supervisor.signal(kind));

    let result: ChildResult | null = null;
    let childError: string | null = null;
    let storageFailure: StorageFailure | null = null;
    let kept: { host: string; dir: string } | undefined;
    let exitCode: number | null = null;
    let endRun: () => void = () => {};
    const ended = new Promise<void>((resolve) => (endRun = resolve));
    const onExit = (code: number | null) => {
      exitCode = code;
      endRun();
    };
    const checkpoints = createCheckpointWriter(
      (checkpoint, records) => execution.checkpoint(runId, checkpoint, records),
      (err) => onError(err, 'checkpoint'),
    );
    const browserSessions = openRunBrowserSessions(deps.browsers, send);
    const changes = relayRunChanges(runId, picked.payload.definition, deps.changes, send);
    const onMessage = (msg: ChildMessage) => {
      if (isBrowserRequest(msg)) return browserSessions.handle(msg);
      if (isChangesRequest(msg)) return changes.ask(msg);
      switch (msg.type) {
        case 'firstPage':
          return supervisor.firstPage();
        case 'progress':
          return supervisor.progress(msg.stats);
        case 'exporting':
          return supervisor.exporting(msg.stats);
        case 'checkpoint':
          changes.observe(msg.records);
          return checkpoints.push(msg.checkpoint, msg.records);
        case 'done':
          result = msg.result;
          return endRun();
        case 'error':
          // The child sends nothing after an error (it exits): waiting for its exit is not needed.
          childError = msg.message;
          storageFailure = msg.storageFailure ?? null;
          kept = msg.kept;
          return endRun();
      }
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    send({ type: 'start', payload: picked.payload });

    try {
      await ended;
      // A run process that was killed or exited mid-render leaves pages open in the worker's pool.
      await browserSessions.close();
      supervisor.detach();
      listening.close();
      child.off('message', onMessage);
      child.off('exit', onExit);
      await supervisor.settled();
      // The last checkpoint is written before the Run is handed back (or ends and its checkpoint goes).
      await checkpoints.flush();
      const end = supervisor.end;
      pool.release(runChild, result !== null && end === null && childError === null);

      // The terminal write waits for the database if it has to; heartbeats go on meanwhile.
      const retrying = {
        onError: (err: unknown, attempt: number) =>
          log.warn({ runId, attempt, err: { message: (err as Error).message } }, 'terminal write failed; retrying'),
      };
      if (end === 'handedBack') {
        await untilDone(() => execution.handBack(runId), retrying);
        throw new HandedBackError(`Run ${runId} handed back: the worker is shutting down.`);
      }
      const finished = result as ChildResult | null;
      if (finished) {
        recordRunResult(finished);
        const ended = await untilDone(() => execution.finish(runId, finished, picked.run), retrying);
        logEnded(ended);
        // What a change-tracking Run that ended Success staged becomes its Agent's state now, after its
        // end; a merge that does not happen here (the worker stopped) is made by the Agent's next Run.
        if (picked.payload.definition.changes && ended?.status === RunStatus.Success && deps.changes)
          deps.changes.mergeAfterEnd(runId).catch((err: unknown) => onError(err, 'change tracking merge'));
        return { status: 'finished' };
      }
      if (end === 'killed') {
        logEnded(await untilDone(() => execution.killed(runId), retrying));
        return { status: 'killed' };
      }
      // The child's own error text stays in the worker log; the Run says where to find it.
      // TypeScript cannot see the message handler's assignment: the cast restores the declared type.
      const failure = storageFailure as StorageFailure | null;
      if (childError !== null) log.error({ runId, childError, storageFailure: failure?.kind }, 'run process failed');
      if (failure && end !== 'timedOut') deps.onStorageFailure?.(failure.kind);
      const runFailure: RunFailure =
        end === 'timedOut'
          ? { code: RunFailureCode.RunTimeout, params: { seconds: picked.timeoutSeconds, terminated: 1 } }
          : childError !== null
            ? failure
              ? failureOfStorage(failure.kind, kept)
              : internalRunFailure(runId)
            : { code: RunFailureCode.RunProcessCrashed, params: { exitCode: String(exitCode) } };
      logEnded(await untilDone(() => execution.crashed(runId, runFailure), retrying));
      return { status: 'failed' };
    } finally {
      supervisor.close();
      active.delete(runId);
    }
  }

  return {
    process: processRun,
    /** Planned shutdown: every Run still executing is ended and handed back to the queue. */
    handBackAll(): number {
      handingBack = true;
      for (const s of active.values()) s.handBack();
      return active.size;
    },
  };
}
