// The worker side of the Run lifecycle: taking a Run, reporting progress, finishing it (files,
// statuses, wait-on-failure retries) and reconciling Runs whose worker was lost. The worker's job
// processor calls this service; it never touches Prisma itself.
import { rm } from 'node:fs/promises';
import type { Clock } from '../../lib/clock.js';
import {
  appendRunLogLine,
  CONTENT_TYPES,
  type AgentDefinition,
  type CrawlCheckpoint,
  type ExtractionStats,
} from '../../engine/index.js';
import { createStorage, storageFailureOf } from '../../storage/index.js';
import { RUN_LOG_NAME, runLogKey } from './run-keys.js';
import { runScratchDir, type ChildResult, type ChildStartPayload } from './run-protocol.js';
import {
  failureColumns,
  internalRunFailure,
  RunFailureCode,
  runFailureMessage,
  RunSetupError,
  stoppedBy,
  type RunFailure,
} from './run-errors.js';
import type { RunCheckpoints, TakeoverOutcome } from './checkpoints.service.js';
import type { RunRow, RunsRepository } from './runs.repository.js';
import { prepareRun, type ExecutionConfig } from './run-payload.js';
import { isTerminal, RunStatus } from './status-machine.js';

export type { ExecutionConfig } from './run-payload.js';

export interface RunScheduler {
  /** Enqueues (or re-enqueues) the job that executes a Run, optionally after a delay. */
  enqueueRun(runId: number, attempt: number, delayMs?: number): Promise<void>;
  /** Enqueues a job of its own for a Run taken over from a lost worker (whose job may still be active). */
  enqueueTakeover?(runId: number, attempt: number, takeover: number): Promise<void>;
}

/** The control state a heartbeat reads back: what the worker should do about the Run it executes. */
export type ControlAction = 'continue' | 'stop' | 'kill' | 'gone';

export function controlOf(run: { status: number; killRequested: Date | null } | null): ControlAction {
  if (!run) return 'kill';
  if (run.status === RunStatus.Stopping) return run.killRequested ? 'kill' : 'stop';
  if (isTerminal(run.status)) return 'gone';
  return 'continue';
}

const LOST: RunFailure = { code: RunFailureCode.WorkerLost, params: { reason: 'stalled' } };
const LOST_WHY = 'the worker executing the Run was lost (process ended or stalled)';

export function createRunExecutionService(deps: {
  repo: RunsRepository;
  clock: Clock;
  config: ExecutionConfig;
  scheduler: RunScheduler;
  /** Where exceptions that a Run's errorMessage must not quote are written. */
  log?: { error(obj: object, msg: string): void };
  /** Resumable Runs; absent: an interrupted Run starts again from its first page. */
  checkpoints?: RunCheckpoints;
}) {
  const { repo, clock, config, scheduler, checkpoints } = deps;

  /**
   * A Run whose worker was lost goes on elsewhere from its checkpoint (TakeoverOutcome); without
   * resumable Runs it is refused, and the caller ends it.
   */
  const takeOver = (runId: number, why: string, staleBefore: Date): Promise<TakeoverOutcome> =>
    checkpoints ? checkpoints.takeOver(runId, why, staleBefore) : Promise.resolve('refused');
  const storage = createStorage(config.storage);

  /** The second half of a failure: 7 Failed -> 12 Waiting (retry scheduled) or 6 Failure. */
  async function afterFailed(failed: RunRow) {
    if (failed.isWaitOnFailure && failed.retryCount < config.runs.waitOnFailureRetries) {
      const waitUntil = new Date(clock.now().getTime() + config.runs.waitOnFailureSeconds * 1000);
      const waiting = await repo.transition(failed.id, { type: 'retry' }, clock.now(), {
        retryCount: failed.retryCount + 1,
        waitUntil,
      });
      if (waiting) await scheduler.enqueueRun(failed.id, waiting.retryCount, config.runs.waitOnFailureSeconds * 1000);
      return waiting;
    }
    return repo.transition(failed.id, { type: 'giveUp' }, clock.now(), { endTime: clock.now() });
  }

  /** The Run fails (or, being stopped, ends Stopped); its checkpoint goes only once it has. */
  async function failOrRetry(runId: number, failure: RunFailure) {
    const failed = await repo.transition(runId, { type: 'failed' }, clock.now(), failureColumns(failure));
    if (!failed) {
      // A Run being stopped that then fails (timeout, crash) still ends Stopped, as the user asked.
      const stopped = await repo.transition(runId, { type: 'stopped' }, clock.now(), {
        endTime: clock.now(),
        ...failureColumns(stoppedBy('unclean', failure)),
      });
      if (stopped) await checkpoints?.remove(runId);
      return stopped;
    }
    await checkpoints?.remove(runId);
    return afterFailed(failed);
  }

  /**
   * The Run's log as a file row, for a run process that could not finish it (killed, crashed): its
   * lines were written as they came, so what it logged until then is kept, with `line` appended.
   */
  async function attachLog(runId: number, line: string) {
    // The records it spooled are not exported: remove them (they are on this host, if anywhere).
    await rm(runScratchDir(process.pid, runId), { recursive: true, force: true });
    const key = runLogKey(runId);
    let size: number | undefined;
    try {
      await appendRunLogLine(storage, key, line, clock.now());
      size = (await storage.stat(key))?.size;
    } catch (err) {
      // A store that cannot be written must not hold the Run's end: it ends without its log file.
      if (!storageFailureOf(err)) throw err;
      deps.log?.error(
        { runId, err: { message: (err as Error).message } },
        'run log could not be completed: storage failure',
      );
    }
    if (size !== undefined)
      await repo.replaceFiles(runId, [
        { name: RUN_LOG_NAME, fileType: 'Log', contentType: CONTENT_TYPES.Log, fileSize: size, storageKey: key },
      ]);
  }

  function statsPatch(stats: ExtractionStats) {
    return {
      pageCount: stats.pageCount,
      recordsExtracted: stats.dataCount,
      errorCount: stats.errorCount,
      inputCount: stats.inputCount,
      traffic: BigInt(stats.traffic),
    };
  }

  return {
    failOrRetry,
    afterFailed,

    /**
     * Takes a Run for execution. Returns the child payload, or null when there is nothing to do
     * (already terminal, stopped meanwhile, or executed by another worker). Everything is read before
     * the Run moves to Starting, so a database failure here throws with the Run still Queuing and the
     * job is retried.
     */
    async pick(runId: number): Promise<{ payload: ChildStartPayload; timeoutSeconds: number; run: RunRow } | null> {
      // The common case, a Queuing Run, in one statement that also reads what preparing it needs.
      const taken = await repo.takeQueued(runId, clock.now());
      if (taken) {
        const { run, definition, agentExists, proxies } = taken;
        try {
          const prepared = prepareRun(
            config,
            run,
            agentExists && definition ? (definition as AgentDefinition) : null,
            run.proxyPoolId && proxies !== null ? { proxies } : null,
          );
          return { ...(await resumed(prepared)), run };
        } catch (err) {
          if (!(err instanceof RunSetupError)) deps.log?.error({ err, runId }, 'preparing a Run failed');
          await failOrRetry(runId, err instanceof RunSetupError ? err.failure : internalRunFailure(runId));
          return null;
        }
      }
      const run = await repo.findRunToPick(runId);
      if (!run) return null;
      if (run.status === RunStatus.Starting || run.status === RunStatus.Running || run.status === RunStatus.Exporting) {
        // A job came back (stalled, or a duplicate): the Run is lost only when its heartbeat is stale;
        // otherwise another worker is executing it. The reconciler ends lost Runs either way.
        const staleBefore = new Date(clock.now().getTime() - config.runs.staleAfterSeconds * 1000);
        if (run.updated < staleBefore && (await takeOver(runId, LOST_WHY, staleBefore)) === 'refused')
          await failOrRetry(runId, LOST);
        return null;
      }
      if (run.status === RunStatus.Stopping) {
        await repo.transition(runId, { type: 'stopped' }, clock.now(), { endTime: clock.now() });
        return null;
      }
      if (run.status === RunStatus.Waiting && run.waitUntil && run.waitUntil > clock.now()) return null;
      if (run.status !== RunStatus.Waiting && run.status !== RunStatus.Queuing) return null;

      const agent = await repo.findAgentWithDefinition(run.agentId);
      const version = agent ? await repo.findAgentVersion(run.agentId, run.agentVersion) : null;
      const pool = run.proxyPoolId ? await repo.findProxyPool(run.proxyPoolId) : null;
      let prepared: { payload: ChildStartPayload; timeoutSeconds: number } | null = null;
      let setupError: RunFailure | null = null;
      try {
        prepared = prepareRun(
          config,
          run,
          agent && version ? (version.definition as unknown as AgentDefinition) : null,
          pool,
        );
      } catch (err) {
        if (!(err instanceof RunSetupError)) deps.log?.error({ err, runId }, 'preparing a Run failed');
        setupError = err instanceof RunSetupError ? err.failure : internalRunFailure(runId);
      }

      if (run.status === RunStatus.Waiting && !(await repo.transition(runId, { type: 'waitOver' }, clock.now())))
        return null;
      const started = await repo.transition(runId, { type: 'picked' }, clock.now(), {
        startTime: clock.now(),
        ...failureColumns(null),
      });
      if (!started) return null;
      if (setupError !== null || !prepared) {
        await failOrRetry(runId, setupError ?? internalRunFailure(runId));
        return null;
      }
      return { ...(await resumed(prepared)), run: started };
    },

    /** Keeps where the Run has got to (a Run without checkpoints starts again when interrupted). */
    async checkpoint(runId: number, checkpoint: CrawlCheckpoint, records: Array<{ set: number; ndjson: string }>) {
      await checkpoints?.save(runId, checkpoint, records);
    },

    async firstPage(runId: number) {
      await repo.transition(runId, { type: 'firstPage' }, clock.now());
    },

    async progress(runId: number, stats: ExtractionStats) {
      await repo.updateProgress(runId, statsPatch(stats), clock.now());
    },

    async exporting(runId: number, stats: ExtractionStats) {
      // The figures go with the status change; a Run no longer Running (stopping) still gets them.
      if (!(await repo.transition(runId, { type: 'extracted' }, clock.now(), statsPatch(stats))))
        await repo.updateProgress(runId, statsPatch(stats), clock.now());
    },

    /** Marks the Run alive and reads back what to do about it (one query). */
    async heartbeat(runId: number): Promise<ControlAction> {
      return controlOf(await repo.heartbeat(runId, clock.now()));
    },

    /**
     * Records the child's result and moves the Run to its final status. Idempotent, so the worker can
     * repeat it until the database answers: the files are replaced, and a Run already ended (by the
     * reconciler while the database was away) keeps its status but gets its files. `known`: the Run as
     * the worker took it, so that its end is usually settled in the same round trip.
     */
    async finish(runId: number, result: ChildResult, known?: RunRow) {
      await checkpoints?.remove(runId);
      const files = result.files.map((f) => ({
        name: f.name,
        fileType: f.fileType,
        contentType: f.contentType,
        fileSize: f.size,
        storageKey: f.key,
      }));
      const now = clock.now();
      const evidence = result.evidence ? { evidence: result.evidence } : {};
      const patch = {
        ...statsPatch(result.stats),
        recordsExported: result.stats.exportCount,
        exportCount: result.stats.exportCount,
        ...evidence,
      };
      if (result.fatalError && !result.stopped) {
        await repo.replaceFiles(runId, files);
        await repo.updateProgress(runId, { ...statsPatch(result.stats), ...evidence }, now);
        return failOrRetry(runId, result.fatalError);
      }
      // The usual case first: the Run is still executing (Starting, Running or Exporting). Its files are
      // recorded by the same statement, whatever the Run's status.
      const exported = await repo.transition(
        runId,
        { type: 'exported', errorCount: result.stats.errorCount, degraded: result.warning !== undefined },
        now,
        { ...patch, endTime: now, ...(result.warning !== undefined ? failureColumns(result.warning) : {}) },
        files,
        known,
      );
      if (exported) return exported;
      const current = await repo.findRun(runId);
      if (current?.status === RunStatus.Stopping) {
        return repo.transition(runId, { type: 'stopped' }, now, {
          ...patch,
          endTime: now,
          ...failureColumns(stoppedBy('exported')),
        });
      }
      const done = await repo.transition(
        runId,
        { type: 'exported', errorCount: result.stats.errorCount, degraded: result.warning !== undefined },
        now,
        { ...patch, endTime: now, ...(result.warning !== undefined ? failureColumns(result.warning) : {}) },
      );
      // A stop that raced with the export: the export finished, so the Run ends as Stopped.
      return done ?? repo.transition(runId, { type: 'stopped' }, now, { ...patch, endTime: now });
    },

    /** The second kill: the child was terminated at once; what it logged is kept. */
    async killed(runId: number) {
      await checkpoints?.remove(runId);
      const now = clock.now();
      await attachLog(runId, 'Killed by user: the run process was terminated immediately.');
      return repo.transition(runId, { type: 'kill' }, now, {
        endTime: now,
        ...failureColumns({ code: RunFailureCode.KilledByUser, params: {} }),
      });
    },

    /** The run process ended without a result (crash, run timeout): its log is kept, the Run fails. */
    async crashed(runId: number, failure: RunFailure) {
      await attachLog(runId, runFailureMessage(failure));
      return failOrRetry(runId, failure);
    },

    /** A planned shutdown could not wait for the Run: it goes back to Queuing for another worker. */
    async handBack(runId: number) {
      const back = checkpoints
        ? await checkpoints.handBack(runId)
        : await repo.transition(runId, { type: 'handBack' }, clock.now(), { startTime: null, ...failureColumns(null) });
      if (back && checkpoints)
        await checkpoints.note(runId, 'Interrupted: the worker shut down and handed the Run back to the queue');
      if (!back) {
        // It was being stopped meanwhile: the stop wins, without the data (the process is gone).
        await attachLog(runId, 'The worker shut down while the Run was stopping.');
        await repo.transition(runId, { type: 'stopped' }, clock.now(), {
          endTime: clock.now(),
          ...failureColumns(stoppedBy('workerShutDown')),
        });
      }
      return back;
    },

    takeOver,
  };

  /** What an interrupted Run goes on from, in its payload. */
  async function resumed<T extends { payload: ChildStartPayload }>(prepared: T): Promise<T> {
    return checkpoints ? checkpoints.withResume(prepared) : prepared;
  }
}
export type RunExecutionService = ReturnType<typeof createRunExecutionService>;
