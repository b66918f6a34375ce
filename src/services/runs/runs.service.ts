// The API side of Runs: start (async and sync), status, list, stop, kill, delete, files, download
// and run-all. Every start, single or run-all, goes through `start`.
import type { Clock } from '../../lib/clock.js';
import {
  AgentInvalidError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableError,
  ValidationError,
  ErrorCodes,
} from '../../lib/errors.js';
import { renderModeOf, type AgentDefinition } from '../../engine/index.js';
import type { Storage } from '../../storage/index.js';
import { failureColumns, stoppedBy } from './run-errors.js';
import { agentSubject, checkAccess, type AccessService } from '../access/access.service.js';
import { statusOf, ValidationStatus } from '../agents/agent-definition.js';
import type { Principal } from '../identity/principal.js';
import type { ProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createRunFiles } from './run-files.service.js';
import { runAll, type RunAllContext } from './run-all.js';
import { parseSentParameters, sealSentParameters } from './input-parameters.js';
import { jsonArrayFromNdjson } from './records-stream.js';
import { runEndWait } from './run-end-wait.js';
import { runFolderKey, runRecordsKey } from './run-keys.js';
import { type RunSignals } from './run-protocol.js';
import {
  ActiveRunExistsError,
  type NewRun,
  type RunRow,
  type RunsRepository,
  type StartableAgent,
} from './runs.repository.js';
import { isActive, isTerminal, RunStatus } from './status-machine.js';
import { exactBigIntId } from '../../lib/ids.js';
import { requestedPage, unpagedLimit } from '../../lib/paging.js';
import { parseOpenQueryRange } from '../../lib/query-dates.js';
import {
  toRunListItem,
  toRunView,
  type OrgRunsQuery,
  type RunView,
  type StartOptions,
  type StartResult,
} from './run-view.js';

export { toRunView, type OrgRunsQuery, type RunView, type StartOptions, type StartResult } from './run-view.js';

export interface RunsServiceConfig {
  encryptionKey: Buffer;
  runs: { syncInlineMaxBytes: number };
}

const QUEUE_RETRY_AFTER_SECONDS = 5;
/** A synchronous start waits at most this long for its Run to end (the `timeout` body field). */
export const SYNC_START_MAX_WAIT_SECONDS = 300;

export function createRunsService(deps: {
  repo: RunsRepository;
  access: AccessService;
  storage: Storage;
  clock: Clock;
  config: RunsServiceConfig;
  proxyPools: Pick<ProxyPoolOwnership, 'resolve'>;
  scheduler: {
    enqueueRun(runId: number, attempt: number, delayMs?: number): Promise<void>;
    removeRun(runId: number, attempt: number): Promise<void>;
  };
  signals: RunSignals;
  /** Whether some worker announced it has Chromium (browser and auto Runs need one). */
  canRender: () => Promise<boolean>;
  /** A synchronous start re-reads its Run this often in case the end signal was lost (ms). */
  syncFallbackPollMs?: number;
}) {
  const { repo, access, storage, clock, config, scheduler, signals, proxyPools } = deps;
  const waitForEnd = runEndWait({ signals, repo, pollMs: deps.syncFallbackPollMs ?? 5000 });

  function requireRun(principal: Principal, agentId: number, runId: number, need: 'read' | 'write') {
    return access.requireAgentRun(principal, agentId, runId, need);
  }

  /** The stored records as a streamed JSON array, or null when they are more than answered inline. */
  async function inlineRecords(runId: number): Promise<AsyncIterable<Buffer> | null> {
    const key = runRecordsKey(runId);
    const size = (await storage.stat(key))?.size;
    if (size === undefined)
      return (async function* () {
        yield Buffer.from('[]');
      })();
    if (size > config.runs.syncInlineMaxBytes) return null;
    return jsonArrayFromNdjson(await storage.get(key));
  }

  // Runs inside the transaction creating the Run, before its row is written: a failed enqueue rolls the
  // Run back, so a client told 503 has no Run that executes later (a late enqueue finds no Run and does
  // nothing).
  async function enqueueOrUnavailable(run: { id: number }) {
    try {
      await scheduler.enqueueRun(run.id, 0);
    } catch {
      throw new ServiceUnavailableError(
        'The run queue is unavailable; the Run was not created. Retry after the delay in Retry-After.',
        QUEUE_RETRY_AFTER_SECONDS,
      );
    }
  }

  /** Creates and queues a Run (the single code path of every start). */
  async function createAndQueue(
    principal: Principal | null,
    agentId: number,
    opts: StartOptions & {
      scheduleId?: bigint | null;
      scheduledFor?: Date | null;
      serverGroupId?: number | null;
      startedBy?: string;
      skipIfActive?: boolean;
    },
    organizationId: number,
  ): Promise<RunRow> {
    // Everything below is decided under the Agent's lock, from what the same statement read.
    const admit = async (found: StartableAgent | null): Promise<NewRun> => {
      // A caller's start needs write access to the Agent: the first rule, as before any other.
      if (principal) checkAccess(principal, found?.access ?? null, 'write', agentSubject(agentId));
      if (!found) throw new NotFoundError(`Agent ${agentId} was not found.`);
      const { agent, version, credits: available } = found;
      if (agent.isArchived)
        throw new ValidationError(
          `Agent ${agentId} is archived; unarchive it before starting it.`,
          ErrorCodes.AGENT_ARCHIVED,
        );
      if (agent.validationStatus === ValidationStatus.Invalid) {
        const { problems } = statusOf(version?.definition);
        throw new AgentInvalidError(
          `Agent ${agentId} has an invalid definition; fix it before starting it: ${problems.join('; ')}`,
          problems,
        );
      }
      if (!version) throw new UnprocessableError(`Agent ${agentId} has no definition.`, ErrorCodes.AGENT_INVALID);
      const definition = version.definition as AgentDefinition;
      const render = renderModeOf(definition);
      if (render !== 'http' && !(await deps.canRender())) {
        throw new UnprocessableError(
          `Agent ${agentId} renders pages in a browser (render '${render}'), but no worker can: install Chromium on a worker and point CHROMIUM_PATH at it.`,
          ErrorCodes.BROWSER_UNAVAILABLE,
        );
      }
      if (available.lte(0)) {
        throw new UnprocessableError(
          'The organization has no credits left; add credits to start Runs.',
          ErrorCodes.INSUFFICIENT_CREDITS,
        );
      }
      const sent = parseSentParameters(opts.inputParameters);
      // null or <= 0 falls back to the Agent's own pool; the ownership rule is the proxy-pools domain's.
      const proxyPoolId = (await proxyPools.resolve(organizationId, opts.proxyPoolId)) ?? agent.proxyPoolId ?? null;
      const parallelism = opts.parallelism ?? 1;
      return {
        organizationId,
        agentId,
        agentVersion: version.version,
        startedBy: opts.startedBy ?? principal?.email ?? 'system',
        startedByUserId: principal?.userId ?? null,
        scheduleId: opts.scheduleId ?? null,
        scheduledFor: opts.scheduledFor ?? null,
        parallelism,
        parallelMaxConcurrency: opts.parallelMaxConcurrency ?? Math.max(1, parallelism),
        parallelExport: opts.parallelExport ?? 'Combined',
        proxyPoolId,
        serverGroupId: opts.serverGroupId ?? null,
        logLevel: opts.logLevel ?? 'Info',
        logMode: opts.logMode ?? 'Text',
        isExclusive: opts.isExclusive ?? true,
        isWaitOnFailure: opts.isWaitOnFailure ?? false,
        keepRecords: opts.isRunSynchronously ?? false,
        timeoutSeconds: definition.timeoutSeconds ?? null,
        inputParameters: sent.length ? sealSentParameters(config.encryptionKey, sent) : null,
      };
    };
    try {
      const starter = { agentId, organizationId, userId: principal?.userId ?? null };
      return await repo.startRun(starter, clock.now(), admit, {
        skipIfActive: opts.skipIfActive,
        enqueue: enqueueOrUnavailable,
      });
    } catch (err) {
      if (err instanceof ActiveRunExistsError) throw new ConflictError(err.message, ErrorCodes.RUN_ALREADY_ACTIVE);
      throw err;
    }
  }

  return {
    createAndQueue,

    async start(principal: Principal, agentId: number, opts: StartOptions): Promise<StartResult> {
      // The access check is made by the start itself, on what it reads under the Agent's lock.
      const run = await createAndQueue(principal, agentId, opts, principal.organizationId);
      if (!opts.isRunSynchronously) return { kind: 'queued', run: toRunView(run) };
      const timeoutSeconds = Math.min(Math.max(opts.timeout ?? 60, 1), SYNC_START_MAX_WAIT_SECONDS);
      const ended = await waitForEnd(run.id, timeoutSeconds * 1000);
      if (!ended) return { kind: 'queued', run: toRunView((await repo.findRun(run.id)) ?? run) };
      if (ended.status === RunStatus.Success || ended.status === RunStatus.Completed) {
        const records = await inlineRecords(run.id);
        return records
          ? { kind: 'records', run: toRunView(ended), records }
          : { kind: 'tooLarge', run: toRunView(ended) };
      }
      return { kind: 'finished', run: toRunView(ended) };
    },

    /** The Run; with `waitForFinishSeconds`, once it is terminal or that time is up (no connection held meanwhile). */
    async status(principal: Principal, agentId: number, runId: number, waitForFinishSeconds = 0): Promise<RunView> {
      const run = await requireRun(principal, agentId, runId, 'read');
      if (waitForFinishSeconds <= 0 || isTerminal(run.status)) return toRunView(run);
      const ended = await waitForEnd(run.id, waitForFinishSeconds * 1000);
      return toRunView(ended ?? (await repo.findRun(run.id)) ?? run);
    },

    async list(
      principal: Principal,
      agentId: number,
      q: { maxRecords?: number; pageIndex?: number; recordsPerPage?: number },
    ) {
      await access.requireAgent(principal, agentId, 'read');
      const page = requestedPage(q);
      if (page) {
        const [rows, total] = await Promise.all([
          repo.listRuns(agentId, { skip: page.skip, take: page.recordsPerPage }),
          repo.countRuns(agentId),
        ]);
        return { paged: true as const, runs: rows.map(toRunView), totalRecordCount: total };
      }
      const rows = await repo.listRuns(agentId, { skip: 0, take: unpagedLimit(q.maxRecords) });
      return { paged: false as const, runs: rows.map(toRunView) };
    },

    /** Runs across the Agents the caller can read, newest first (filters narrow; paging as in `list`). */
    async listAll(principal: Principal, q: OrgRunsQuery) {
      if (q.agentId !== undefined) await access.requireAgent(principal, q.agentId, 'read');
      if (q.spaceId !== undefined) await access.requireSpace(principal, q.spaceId, 'read');
      const { start: createdFrom, end: createdBefore } = parseOpenQueryRange(q);
      const filter = {
        organizationId: principal.organizationId,
        readableSpaceIds: await access.readableSpaceIds(principal),
        status: q.status,
        agentId: q.agentId,
        agentName: q.agentName,
        spaceId: q.spaceId,
        // An id past 2^53 names no stored Schedule: 0 matches no Run.
        scheduleId: q.scheduleId !== undefined ? (exactBigIntId(q.scheduleId) ?? 0n) : undefined,
        createdFrom,
        createdBefore,
      };
      const page = requestedPage(q);
      if (page) {
        const [rows, total] = await Promise.all([
          repo.listOrgRuns(filter, { skip: page.skip, take: page.recordsPerPage }),
          repo.countOrgRuns(filter),
        ]);
        return { paged: true as const, runs: rows.map(toRunListItem), totalRecordCount: total };
      }
      const rows = await repo.listOrgRuns(filter, { skip: 0, take: unpagedLimit(q.maxRecords) });
      return { paged: false as const, runs: rows.map(toRunListItem) };
    },

    async stop(principal: Principal, agentId: number, runId: number): Promise<RunView> {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (!isActive(run.status)) throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      if (run.status === RunStatus.Stopping) return toRunView(run);
      const now = clock.now();
      const stopping = await repo.transition(runId, { type: 'stop' }, now, { stopRequested: now });
      if (stopping) await signals.publish(runId, 'stop');
      if (!stopping) {
        const current = await repo.findRun(runId);
        if (current && isActive(current.status)) return toRunView(current);
        throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      }
      // Nobody executes a queued or waiting Run yet: it stops here and now.
      if (run.status === RunStatus.Queuing || run.status === RunStatus.Waiting) {
        await scheduler.removeRun(runId, run.retryCount);
        const stopped = await repo.transition(runId, { type: 'stopped' }, now, {
          endTime: now,
          ...failureColumns(stoppedBy('beforeStart')),
        });
        return toRunView(stopped ?? stopping);
      }
      return toRunView(stopping);
    },

    async kill(principal: Principal, agentId: number, runId: number): Promise<RunView> {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (!isActive(run.status)) throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      if (run.status !== RunStatus.Stopping) return this.stop(principal, agentId, runId);
      await repo.requestKill(runId, clock.now());
      await signals.publish(runId, 'kill');
      return toRunView((await repo.findRun(runId)) ?? run);
    },

    async remove(
      principal: Principal,
      agentId: number,
      runId: number,
      method: 'RemoveEntireRun' | 'RemoveAllFiles' | 'RemoveAllFilesAndAgentInput',
    ) {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (isActive(run.status))
        throw new ConflictError(
          `Run ${runId} is still active; stop it before deleting it.`,
          ErrorCodes.RUN_ACTIVE_CANNOT_DELETE,
        );
      if (method === 'RemoveEntireRun') {
        if (!(await repo.deleteRun(runId)))
          throw new ConflictError(`Run ${runId} is still active.`, ErrorCodes.RUN_ACTIVE_CANNOT_DELETE);
      } else {
        await repo.deleteFiles(runId);
        if (method === 'RemoveAllFilesAndAgentInput') await repo.clearInputParameters(runId);
      }
      await storage.delete(runFolderKey(runId));
    },

    ...createRunFiles({ repo, access, storage }),

    /** Starts every Agent of a Space independently (run-all.ts); a per-Agent failure does not affect the others. */
    runAll(principal: Principal, spaceId: number, opts: StartOptions, ctx: RunAllContext) {
      const start = (agentId: number, input: StartOptions) =>
        createAndQueue(principal, agentId, { ...input, isRunSynchronously: false }, principal.organizationId);
      return runAll({ access, repo, proxyPools, start }, principal, spaceId, opts, ctx);
    },
  };
}
export type RunsService = ReturnType<typeof createRunsService>;
