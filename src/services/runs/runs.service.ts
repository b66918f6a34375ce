// The API side of Runs: start (async and sync), status, list, stop, kill, delete, files, download
// and run-all. Every start, single or run-all, goes through `start`.
import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock.js';
import { AgentInvalidError, ConflictError, NotFoundError, UnprocessableError, ValidationError, ErrorCodes } from '../../lib/errors.js';
import { StorageNotFoundError, type AgentDefinition, type Storage } from '../../engine/index.js';
import type { AccessService } from '../access/access.service.js';
import { statusOf } from '../agents/agent-definition.js';
import type { Principal } from '../identity/principal.js';
import { parseSentParameters, sealSentParameters } from './input-parameters.js';
import { runRecordsKey, runKeyPrefix } from './run-protocol.js';
import { ActiveRunExistsError, type RunRow, type RunsRepository } from './runs.repository.js';
import { isActive, isTerminal, RunStatus } from './status-machine.js';

export interface StartOptions {
  inputParameters?: string | null;
  parallelism?: number | null;
  parallelMaxConcurrency?: number | null;
  parallelExport?: 'Combined' | 'Separated' | null;
  proxyPoolId?: number | null;
  timeout?: number | null;
  isExclusive?: boolean | null;
  isWaitOnFailure?: boolean | null;
  isRunSynchronously?: boolean | null;
  logLevel?: 'Fatal' | 'Error' | 'Warning' | 'Info' | null;
  logMode?: 'Text' | 'TextAndHtml' | null;
}

export interface RunView {
  id: number;
  configId: number;
  organizationId: number;
  status: number;
  startTime: Date | null;
  endTime: Date | null;
  startedBy: string;
  errorMessage: string | null;
  recordsExtracted: number;
  recordsExported: number;
  parallelism: number;
  parallelSet: number | null;
  logLevel: string;
  logMode: string;
  scheduleId: number | null;
  progress: { pageCount: number; dataCount: number; errorCount: number } | null;
  created: Date;
}

export interface OrgRunsQuery {
  status?: number;
  agentId?: number;
  spaceId?: number;
  scheduleId?: number;
  startDate?: string;
  endDate?: string;
  maxRecords?: number;
  pageIndex?: number;
  recordsPerPage?: number;
}

/**
 * A query date: a date-time, or a date (UTC) that covers its whole day, so `endDate=2026-01-31`
 * includes Runs created on the 31st. Returns an inclusive start or an exclusive end.
 */
export function parseQueryDate(value: string, name: string, edge: 'start' | 'end'): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw new ValidationError(`querystring.${name} must be an ISO 8601 date or date-time; got '${value}'.`);
  if (edge === 'end') return dateOnly ? new Date(d.getTime() + 86_400_000) : new Date(d.getTime() + 1);
  return d;
}

export function toRunView(r: RunRow): RunView {
  return {
    id: r.id,
    configId: r.agentId,
    organizationId: r.organizationId,
    status: r.status,
    startTime: r.startTime,
    endTime: r.endTime,
    startedBy: r.startedBy,
    errorMessage: r.errorMessage,
    recordsExtracted: r.recordsExtracted,
    recordsExported: r.recordsExported,
    parallelism: r.parallelism,
    parallelSet: r.parallelSet,
    logLevel: r.logLevel,
    logMode: r.logMode,
    scheduleId: r.scheduleId === null ? null : Number(r.scheduleId),
    progress: isActive(r.status) ? { pageCount: r.pageCount, dataCount: r.recordsExtracted, errorCount: r.errorCount } : null,
    created: r.created,
  };
}

export interface RunFileView {
  id: number;
  name: string;
  fileType: string;
  fileSize: number;
  created: Date;
}

export type StartResult =
  | { kind: 'queued'; run: RunView }
  | { kind: 'records'; run: RunView; records: unknown[] }
  | { kind: 'finished'; run: RunView };

export interface RunsServiceConfig {
  encryptionKey: Buffer;
}

export interface CreditsReader {
  balance(organizationId: number, at: Date): Promise<number>;
}

export function createRunsService(deps: {
  repo: RunsRepository;
  access: AccessService;
  storage: Storage;
  clock: Clock;
  config: RunsServiceConfig;
  credits: CreditsReader;
  scheduler: { enqueueRun(runId: number, attempt: number, delayMs?: number): Promise<void>; removeRun(runId: number, attempt: number): Promise<void> };
  /** Waits between polls of a synchronous start (ms). */
  syncPollMs?: number;
}) {
  const { repo, access, storage, clock, config, credits, scheduler } = deps;
  const syncPollMs = deps.syncPollMs ?? 200;

  async function requireRun(principal: Principal, agentId: number, runId: number, need: 'read' | 'write') {
    await access.requireAgent(principal, agentId, need);
    const run = await repo.findRun(runId);
    if (!run || run.agentId !== agentId) throw new NotFoundError(`Run ${runId} of agent ${agentId} was not found.`);
    return run;
  }

  async function readRecords(runId: number): Promise<unknown[]> {
    let stream: Readable;
    try {
      stream = await storage.get(runRecordsKey(runId));
    } catch (err) {
      if (err instanceof StorageNotFoundError) return [];
      throw err;
    }
    let text = '';
    for await (const chunk of stream) text += chunk.toString();
    return text
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l));
  }

  /** Creates and queues a Run (the single code path of every start). */
  async function createAndQueue(
    principal: Principal | null,
    agentId: number,
    opts: StartOptions & { scheduleId?: bigint | null; scheduledFor?: Date | null; serverGroupId?: number | null; startedBy?: string; skipIfActive?: boolean },
    organizationId: number,
  ): Promise<RunRow> {
    const agent = await repo.findAgentWithDefinition(agentId);
    if (!agent) throw new NotFoundError(`Agent ${agentId} was not found.`);
    if (agent.isArchived) throw new ValidationError(`Agent ${agentId} is archived; unarchive it before starting it.`, ErrorCodes.AGENT_ARCHIVED);
    if (agent.validationStatus === 2) {
      const { problems } = statusOf(agent.versions[0]?.definition);
      throw new AgentInvalidError(`Agent ${agentId} has an invalid definition; fix it before starting it: ${problems.join('; ')}`, problems);
    }
    const version = agent.versions[0];
    if (!version) throw new UnprocessableError(`Agent ${agentId} has no definition.`, ErrorCodes.AGENT_INVALID);
    const definition = version.definition as unknown as AgentDefinition;
    if ((await credits.balance(organizationId, clock.now())) <= 0) {
      throw new UnprocessableError('The organization has no credits left; add credits to start Runs.', ErrorCodes.INSUFFICIENT_CREDITS);
    }
    const sent = parseSentParameters(opts.inputParameters);
    const proxyPoolId = opts.proxyPoolId && opts.proxyPoolId > 0 ? opts.proxyPoolId : (agent.proxyPoolId ?? null);
    if (proxyPoolId) {
      const pool = await repo.findProxyPool(proxyPoolId);
      if (!pool || pool.organizationId !== organizationId) throw new ValidationError(`Proxy pool ${proxyPoolId} does not exist.`);
    }
    const parallelism = opts.parallelism ?? 1;
    try {
      const run = await repo.createRun(
        {
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
          timeoutSeconds: definition.timeoutSeconds ?? null,
          inputParameters: sent.length ? sealSentParameters(config.encryptionKey, sent) : null,
        },
        clock.now(),
        { skipIfActive: opts.skipIfActive },
      );
      if (run.status === RunStatus.Queuing) await scheduler.enqueueRun(run.id, 0);
      return run;
    } catch (err) {
      if (err instanceof ActiveRunExistsError) throw new ConflictError(err.message, ErrorCodes.RUN_ALREADY_ACTIVE);
      throw err;
    }
  }

  async function waitForEnd(runId: number, timeoutMs: number): Promise<RunRow | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await repo.findRun(runId);
      if (run && isTerminal(run.status)) return run;
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, Math.min(syncPollMs, Math.max(0, deadline - Date.now()))));
    }
  }

  return {
    createAndQueue,

    async start(principal: Principal, agentId: number, opts: StartOptions): Promise<StartResult> {
      await access.requireAgent(principal, agentId, 'write');
      const run = await createAndQueue(principal, agentId, opts, principal.organizationId);
      if (!opts.isRunSynchronously) return { kind: 'queued', run: toRunView(run) };
      const timeoutSeconds = Math.min(Math.max(opts.timeout ?? 60, 1), 300);
      const ended = await waitForEnd(run.id, timeoutSeconds * 1000);
      if (!ended) return { kind: 'queued', run: toRunView((await repo.findRun(run.id)) ?? run) };
      if (ended.status === RunStatus.Success || ended.status === RunStatus.Completed) {
        return { kind: 'records', run: toRunView(ended), records: await readRecords(run.id) };
      }
      return { kind: 'finished', run: toRunView(ended) };
    },

    async status(principal: Principal, agentId: number, runId: number): Promise<RunView> {
      return toRunView(await requireRun(principal, agentId, runId, 'read'));
    },

    async list(principal: Principal, agentId: number, q: { maxRecords?: number; pageIndex?: number; recordsPerPage?: number }) {
      await access.requireAgent(principal, agentId, 'read');
      if (q.pageIndex !== undefined && q.recordsPerPage !== undefined) {
        if (q.pageIndex < 1 || q.recordsPerPage < 1) throw new ValidationError('pageIndex and recordsPerPage must be at least 1.');
        const take = Math.min(q.recordsPerPage, 1000);
        const [rows, total] = await Promise.all([repo.listRuns(agentId, { skip: (q.pageIndex - 1) * take, take }), repo.countRuns(agentId)]);
        return { paged: true as const, runs: rows.map(toRunView), totalRecordCount: total };
      }
      if (q.maxRecords !== undefined && q.maxRecords < 1) throw new ValidationError('maxRecords must be at least 1.');
      const rows = await repo.listRuns(agentId, { skip: 0, take: Math.min(q.maxRecords ?? 50, 1000) });
      return { paged: false as const, runs: rows.map(toRunView) };
    },

    /** Runs across the Agents the caller can read, newest first (filters narrow; paging as in `list`). */
    async listAll(principal: Principal, q: OrgRunsQuery) {
      if (q.agentId !== undefined) await access.requireAgent(principal, q.agentId, 'read');
      if (q.spaceId !== undefined) await access.requireSpace(principal, q.spaceId, 'read');
      const createdFrom = q.startDate !== undefined ? parseQueryDate(q.startDate, 'startDate', 'start') : undefined;
      const createdBefore = q.endDate !== undefined ? parseQueryDate(q.endDate, 'endDate', 'end') : undefined;
      if (createdFrom && createdBefore && createdFrom >= createdBefore) throw new ValidationError('startDate must be before endDate.');
      const filter = {
        organizationId: principal.organizationId,
        readableSpaceIds: await access.readableSpaceIds(principal),
        status: q.status,
        agentId: q.agentId,
        spaceId: q.spaceId,
        scheduleId: q.scheduleId !== undefined ? BigInt(q.scheduleId) : undefined,
        createdFrom,
        createdBefore,
      };
      if (q.pageIndex !== undefined && q.recordsPerPage !== undefined) {
        if (q.pageIndex < 1 || q.recordsPerPage < 1) throw new ValidationError('pageIndex and recordsPerPage must be at least 1.');
        const take = Math.min(q.recordsPerPage, 1000);
        const [rows, total] = await Promise.all([repo.listOrgRuns(filter, { skip: (q.pageIndex - 1) * take, take }), repo.countOrgRuns(filter)]);
        return { paged: true as const, runs: rows.map(toRunView), totalRecordCount: total };
      }
      const rows = await repo.listOrgRuns(filter, { skip: 0, take: Math.min(q.maxRecords ?? 50, 1000) });
      return { paged: false as const, runs: rows.map(toRunView) };
    },

    async stop(principal: Principal, agentId: number, runId: number): Promise<RunView> {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (!isActive(run.status)) throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      if (run.status === RunStatus.Stopping) return toRunView(run);
      const now = clock.now();
      const stopping = await repo.transition(runId, { type: 'stop' }, now, { stopRequested: now });
      if (!stopping) {
        const current = await repo.findRun(runId);
        if (current && isActive(current.status)) return toRunView(current);
        throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      }
      // Nobody executes a queued or waiting Run yet: it stops here and now.
      if (run.status === RunStatus.Queuing || run.status === RunStatus.Waiting) {
        await scheduler.removeRun(runId, run.retryCount);
        const stopped = await repo.transition(runId, { type: 'stopped' }, now, { endTime: now, errorMessage: 'Stopped by user before it started.' });
        return toRunView(stopped ?? stopping);
      }
      return toRunView(stopping);
    },

    async kill(principal: Principal, agentId: number, runId: number): Promise<RunView> {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (!isActive(run.status)) throw new ConflictError(`Run ${runId} is not active.`, ErrorCodes.RUN_NOT_ACTIVE);
      if (run.status !== RunStatus.Stopping) return this.stop(principal, agentId, runId);
      await repo.requestKill(runId, clock.now());
      return toRunView((await repo.findRun(runId)) ?? run);
    },

    async remove(principal: Principal, agentId: number, runId: number, method: 'RemoveEntireRun' | 'RemoveAllFiles' | 'RemoveAllFilesAndAgentInput') {
      const run = await requireRun(principal, agentId, runId, 'write');
      if (isActive(run.status)) throw new ConflictError(`Run ${runId} is still active; stop it before deleting it.`, ErrorCodes.RUN_ACTIVE_CANNOT_DELETE);
      if (method === 'RemoveEntireRun') {
        if (!(await repo.deleteRun(runId))) throw new ConflictError(`Run ${runId} is still active.`, ErrorCodes.RUN_ACTIVE_CANNOT_DELETE);
      } else {
        await repo.deleteFiles(runId);
        if (method === 'RemoveAllFilesAndAgentInput') await repo.clearInputParameters(runId);
      }
      await storage.delete(runKeyPrefix(runId));
    },

    async files(principal: Principal, agentId: number, runId: number): Promise<RunFileView[]> {
      await requireRun(principal, agentId, runId, 'read');
      return (await repo.listFiles(runId)).map((f) => ({ id: f.id, name: f.name, fileType: f.fileType, fileSize: Number(f.fileSize), created: f.created }));
    },

    async download(principal: Principal, agentId: number, runId: number, fileId: number) {
      await requireRun(principal, agentId, runId, 'read');
      const file = await repo.findFile(runId, fileId);
      if (!file) throw new NotFoundError(`File ${fileId} of run ${runId} was not found.`);
      try {
        return { name: file.name, contentType: file.contentType, size: Number(file.fileSize), stream: await storage.get(file.storageKey) };
      } catch (err) {
        if (err instanceof StorageNotFoundError) throw new NotFoundError(`File ${fileId} of run ${runId} is no longer stored.`);
        throw err;
      }
    },

    /** Starts every Agent of a Space independently; a per-Agent failure does not affect the others. */
    async runAll(principal: Principal, spaceId: number, opts: StartOptions) {
      const space = await access.requireSpace(principal, spaceId, 'write');
      // Validate shared input once so a malformed body fails the request, not every Agent.
      parseSentParameters(opts.inputParameters);
      const agents = await repo.listSpaceAgents(spaceId);
      const results: Array<{ agentId: number; agentName: string; success: boolean; runId: number | null; errorMessage: string | null }> = [];
      for (const a of agents) {
        try {
          const run = await createAndQueue(principal, a.id, { ...opts, isRunSynchronously: false }, principal.organizationId);
          results.push({ agentId: a.id, agentName: a.name, success: true, runId: run.id, errorMessage: null });
        } catch (err) {
          results.push({ agentId: a.id, agentName: a.name, success: false, runId: null, errorMessage: (err as Error).message });
        }
      }
      const started = results.filter((r) => r.success).length;
      return { spaceId: space.id, spaceName: space.name, totalAgents: agents.length, agentsStarted: started, agentsFailed: agents.length - started, results };
    },
  };
}
export type RunsService = ReturnType<typeof createRunsService>;
