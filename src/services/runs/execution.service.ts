// The worker side of the Run lifecycle: taking a Run, reporting progress, finishing it (files,
// statuses, wait-on-failure retries) and reconciling Runs whose worker was lost. The worker's job
// processor calls this service; it never touches Prisma itself.
import type { Clock } from '../../lib/clock.js';
import { unseal } from '../../lib/crypto.js';
import { resolveInputRows, type AgentDefinition, type ExtractionStats } from '../../engine/index.js';
import { openDefinitionSecrets } from '../agents/definition-secrets.js';
import { openSentParameters, resolveParameters } from './input-parameters.js';
import type { ChildResult, ChildStartPayload } from './run-protocol.js';
import { internalRunFailure, RunSetupError } from './run-errors.js';
import type { RunsRepository } from './runs.repository.js';
import { isTerminal, RunStatus } from './status-machine.js';

export interface ExecutionConfig {
  encryptionKey: Buffer;
  storageDir: string;
  engineAllowPrivateTargets: boolean;
  runs: { defaultTimeoutSeconds: number; waitOnFailureSeconds: number; waitOnFailureRetries: number; requestTimeoutMs: number; staleAfterSeconds: number };
}

export interface RunScheduler {
  /** Enqueues (or re-enqueues) the job that executes a Run, optionally after a delay. */
  enqueueRun(runId: number, attempt: number, delayMs?: number): Promise<void>;
}

export function createRunExecutionService(deps: {
  repo: RunsRepository;
  clock: Clock;
  config: ExecutionConfig;
  scheduler: RunScheduler;
  /** Where exceptions that a Run's errorMessage must not quote are written. */
  log?: { error(obj: object, msg: string): void };
}) {
  const { repo, clock, config, scheduler } = deps;

  async function failOrRetry(runId: number, message: string) {
    const failed = await repo.transition(runId, { type: 'failed' }, clock.now(), { errorMessage: message });
    if (!failed) {
      // A Run being stopped that then fails (timeout, crash) still ends Stopped, as the user asked.
      return repo.transition(runId, { type: 'stopped' }, clock.now(), { endTime: clock.now(), errorMessage: `Stopped by user; it did not finish stopping cleanly: ${message}` });
    }
    if (failed.isWaitOnFailure && failed.retryCount < config.runs.waitOnFailureRetries) {
      const waitUntil = new Date(clock.now().getTime() + config.runs.waitOnFailureSeconds * 1000);
      const waiting = await repo.transition(runId, { type: 'retry' }, clock.now(), { retryCount: failed.retryCount + 1, waitUntil });
      if (waiting) await scheduler.enqueueRun(runId, waiting.retryCount, config.runs.waitOnFailureSeconds * 1000);
      return waiting;
    }
    return repo.transition(runId, { type: 'giveUp' }, clock.now(), { endTime: clock.now() });
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

    /**
     * Takes a Run for execution. Returns the child payload, or null when there is nothing to do
     * (already terminal, stopped meanwhile, or found half-run by a worker that was lost).
     */
    async pick(runId: number): Promise<{ payload: ChildStartPayload; timeoutSeconds: number } | null> {
      const run = await repo.findRun(runId);
      if (!run) return null;
      if (run.status === RunStatus.Waiting) {
        if (run.waitUntil && run.waitUntil > clock.now()) return null;
        await repo.transition(runId, { type: 'waitOver' }, clock.now());
      } else if (run.status === RunStatus.Starting || run.status === RunStatus.Running || run.status === RunStatus.Exporting) {
        // The job came back after its worker died mid-run.
        await failOrRetry(runId, 'The worker executing this Run was lost (process ended or stalled); the Run did not finish.');
        return null;
      } else if (run.status === RunStatus.Stopping) {
        await repo.transition(runId, { type: 'stopped' }, clock.now(), { endTime: clock.now() });
        return null;
      }
      const started = await repo.transition(runId, { type: 'picked' }, clock.now(), { startTime: clock.now(), errorMessage: null });
      if (!started) return null;
      try {
        const agent = await repo.findAgentWithDefinition(run.agentId);
        const version = agent ? await repo.findAgentVersion(run.agentId, run.agentVersion) : null;
        if (!agent || !version) throw new RunSetupError('The Agent or its definition no longer exists.');
        const definition = openDefinitionSecrets(version.definition as unknown as AgentDefinition, config.encryptionKey);
        const params = definition.parameters ?? [];
        const sent = openSentParameters(config.encryptionKey, run.inputParameters);
        const { values, secretNames } = resolveParameters(params, sent);
        const sentValues = Object.fromEntries(sent.map((s) => [s.name, s.value]));
        const inputs = resolveInputRows({ ...definition, parameters: params }, sentValues);
        const secrets = secretNames.map((n) => values[n]).filter((v): v is string => typeof v === 'string' && v.length > 0);
        let proxyUrl: string | undefined;
        if (run.proxyPoolId) {
          const pool = await repo.findProxyPool(run.proxyPoolId);
          if (!pool) throw new RunSetupError(`Proxy pool ${run.proxyPoolId} no longer exists.`);
          const proxies = JSON.parse(unseal(config.encryptionKey, pool.proxies)) as string[];
          proxyUrl = proxies[(run.id + run.retryCount) % proxies.length];
          if (proxyUrl) secrets.push(proxyUrl);
        }
        const timeoutSeconds = run.timeoutSeconds ?? definition.timeoutSeconds ?? config.runs.defaultTimeoutSeconds;
        return {
          timeoutSeconds,
          payload: {
            runId,
            storageDir: config.storageDir,
            definition: { ...definition, parameters: params, timeoutSeconds },
            inputRows: inputs,
            parallelism: run.parallelism,
            maxConcurrency: run.parallelMaxConcurrency,
            parallelExport: run.parallelExport === 'Separated' ? 'Separated' : 'Combined',
            requestTimeoutMs: config.runs.requestTimeoutMs,
            proxyUrl,
            allowPrivateTargets: config.engineAllowPrivateTargets,
            logLevel: run.logLevel as ChildStartPayload['logLevel'],
            logMode: run.logMode as ChildStartPayload['logMode'],
            secrets,
          },
        };
      } catch (err) {
        if (!(err instanceof RunSetupError)) deps.log?.error({ err, runId }, 'preparing a Run failed');
        await failOrRetry(runId, err instanceof RunSetupError ? err.message : internalRunFailure(runId));
        return null;
      }
    },

    async firstPage(runId: number) {
      await repo.transition(runId, { type: 'firstPage' }, clock.now());
    },

    async progress(runId: number, stats: ExtractionStats) {
      await repo.updateProgress(runId, statsPatch(stats), clock.now());
    },

    async exporting(runId: number, stats: ExtractionStats) {
      await repo.updateProgress(runId, statsPatch(stats), clock.now());
      await repo.transition(runId, { type: 'extracted' }, clock.now());
    },

    heartbeat(runId: number) {
      return repo.heartbeat(runId, clock.now());
    },

    /** What the worker should do about a Run it is executing: keep going, stop gracefully, or kill. */
    async control(runId: number): Promise<'continue' | 'stop' | 'kill' | 'gone'> {
      const run = await repo.findRun(runId);
      if (!run) return 'kill';
      if (run.status === RunStatus.Stopping) return run.killRequested ? 'kill' : 'stop';
      if (isTerminal(run.status)) return 'gone';
      return 'continue';
    },

    /** Records the child's result and moves the Run to its final status. */
    async finish(runId: number, result: ChildResult) {
      await repo.addFiles(
        runId,
        result.files.map((f) => ({ name: f.name, fileType: f.fileType, contentType: f.contentType, fileSize: f.size, storageKey: f.key })),
      );
      const now = clock.now();
      const patch = { ...statsPatch(result.stats), recordsExported: result.stats.exportCount, exportCount: result.stats.exportCount };
      if (result.fatalError && !result.stopped) {
        await repo.updateProgress(runId, statsPatch(result.stats), now);
        return failOrRetry(runId, result.fatalError);
      }
      const current = await repo.findRun(runId);
      if (current?.status === RunStatus.Stopping) {
        return repo.transition(runId, { type: 'stopped' }, now, { ...patch, endTime: now, errorMessage: 'Stopped by user; the data extracted so far was exported.' });
      }
      if (current?.status === RunStatus.Running || current?.status === RunStatus.Starting) {
        await repo.transition(runId, { type: 'extracted' }, now);
      }
      const done = await repo.transition(runId, { type: 'exported', errorCount: result.stats.errorCount }, now, { ...patch, endTime: now });
      // A stop that raced with the export: the export finished, so the Run ends as Stopped.
      return done ?? repo.transition(runId, { type: 'stopped' }, now, { ...patch, endTime: now });
    },

    /** The second kill: the child was terminated at once. */
    async killed(runId: number) {
      const now = clock.now();
      return repo.transition(runId, { type: 'kill' }, now, { endTime: now, errorMessage: 'Killed by user: the run process was terminated immediately; data not yet exported was lost.' });
    },

    /** Runs left active by a lost worker end as the status machine says; waits that are over resume. */
    async reconcile(): Promise<{ failed: number; resumed: number; requeued: number }> {
      const now = clock.now();
      const stale = await repo.findStaleRuns(new Date(now.getTime() - config.runs.staleAfterSeconds * 1000));
      for (const r of stale) {
        if (r.status === RunStatus.Stopping) {
          await repo.transition(r.id, { type: 'stopped' }, now, { endTime: now, errorMessage: 'Stopped; the worker executing the Run was lost before it finished stopping.' });
        } else {
          await failOrRetry(r.id, 'The worker executing this Run was lost (no heartbeat); the Run did not finish.');
        }
      }
      const waits = await repo.findWaitOver(now);
      for (const w of waits) await scheduler.enqueueRun(w.id, w.retryCount);
      const queued = await repo.findQueuedBefore(new Date(now.getTime() - config.runs.staleAfterSeconds * 1000));
      for (const q of queued) await scheduler.enqueueRun(q.id, q.retryCount);
      return { failed: stale.length, resumed: waits.length, requeued: queued.length };
    },
  };
}
export type RunExecutionService = ReturnType<typeof createRunExecutionService>;
