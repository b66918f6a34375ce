// All Prisma access of the runs domain. Status changes are conditional updates (the row moves only
// from a status the event allows), done in one transaction with the Agent's denormalised status.
import type { Db, Prisma } from '../../db/prisma.js';
import { ACTIVE_STATUSES, nextStatus, statusesAllowing, type RunEvent, type RunStatusValue } from './status-machine.js';

type Tx = Prisma.TransactionClient;

export type RunRow = Awaited<ReturnType<Db['run']['findUniqueOrThrow']>>;

export interface NewRun {
  organizationId: number;
  agentId: number;
  agentVersion: number;
  startedBy: string;
  startedByUserId: number | null;
  scheduleId?: bigint | null;
  scheduledFor?: Date | null;
  parallelism: number;
  parallelMaxConcurrency: number;
  parallelExport: string;
  proxyPoolId: number | null;
  serverGroupId?: number | null;
  logLevel: string;
  logMode: string;
  isExclusive: boolean;
  isWaitOnFailure: boolean;
  timeoutSeconds: number | null;
  inputParameters: string | null;
}

export class ActiveRunExistsError extends Error {}

/** The Runs of an organization a caller may list (GET /api/v1/runs). */
export interface OrgRunsFilter {
  organizationId: number;
  /** The Spaces whose Runs the caller can read ('all' for an admin). */
  readableSpaceIds: number[] | 'all';
  status?: number;
  agentId?: number;
  spaceId?: number;
  scheduleId?: bigint;
  createdFrom?: Date;
  createdBefore?: Date;
}

function orgRunsWhere(f: OrgRunsFilter): Prisma.RunWhereInput {
  const spaceIds = f.readableSpaceIds === 'all' ? undefined : f.readableSpaceIds;
  return {
    organizationId: f.organizationId,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.agentId !== undefined ? { agentId: f.agentId } : {}),
    ...(f.scheduleId !== undefined ? { scheduleId: f.scheduleId } : {}),
    ...(f.createdFrom || f.createdBefore ? { created: { ...(f.createdFrom ? { gte: f.createdFrom } : {}), ...(f.createdBefore ? { lt: f.createdBefore } : {}) } } : {}),
    ...(spaceIds || f.spaceId !== undefined
      ? { agent: { spaceId: { ...(spaceIds ? { in: spaceIds } : {}), ...(f.spaceId !== undefined ? { equals: f.spaceId } : {}) } } }
      : {}),
  };
}

export function createRunsRepository(db: Db) {
  async function touchAgent(tx: Tx, run: { id: number; agentId: number; status: number }, at: Date) {
    // Only the Agent's latest Run decides its status.
    await tx.agent.updateMany({
      where: { id: run.agentId, OR: [{ lastRunId: null }, { lastRunId: { lte: run.id } }] },
      data: { status: run.status, lastRunId: run.id, lastActivity: at },
    });
  }

  return {
    /**
     * Inserts a Run in status Queuing (or Skipped). The Agent row is locked first, so two concurrent
     * starts of the same Agent are serialized and at most one exclusive Run is ever active.
     */
    async createRun(input: NewRun, at: Date, opts: { skipIfActive?: boolean } = {}): Promise<RunRow> {
      return db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM "Agent" WHERE id = ${input.agentId} FOR UPDATE`;
        const active = await tx.run.findFirst({
          where: { agentId: input.agentId, status: { in: [...ACTIVE_STATUSES] } },
          select: { id: true, isExclusive: true },
        });
        let status: RunStatusValue = 4;
        if (active && (input.isExclusive || active.isExclusive)) {
          if (!opts.skipIfActive) throw new ActiveRunExistsError(`Agent ${input.agentId} already has an active Run (${active.id}).`);
          status = 11;
        }
        const run = await tx.run.create({
          data: {
            ...input,
            status,
            statusChanged: at,
            endTime: status === 11 ? at : null,
            errorMessage: status === 11 ? `Skipped: Run ${active!.id} of this exclusive Agent was still active.` : null,
          },
        });
        await touchAgent(tx, run, at);
        return run;
      });
    },

    /** Applies `event` if the Run's current status allows it; null when it does not (raced). */
    async transition(runId: number, event: RunEvent, at: Date, patch: Prisma.RunUncheckedUpdateManyInput = {}): Promise<RunRow | null> {
      const allowed = statusesAllowing(event);
      if (allowed.length === 0) return null;
      const to = nextStatus(allowed[0], event);
      return db.$transaction(async (tx) => {
        const res = await tx.run.updateMany({
          where: { id: runId, status: { in: allowed } },
          data: { ...patch, status: to, statusChanged: at },
        });
        if (res.count !== 1) return null;
        const run = await tx.run.findUniqueOrThrow({ where: { id: runId } });
        await touchAgent(tx, run, at);
        return run;
      });
    },

    updateProgress(runId: number, data: { pageCount: number; recordsExtracted: number; errorCount: number; inputCount: number; traffic: bigint }, at: Date) {
      // `updated` doubles as the heartbeat the reconciler reads.
      return db.run.updateMany({ where: { id: runId, status: { in: [1, 2, 3, 5] } }, data: { ...data, updated: at } });
    },

    heartbeat(runId: number, at: Date) {
      return db.run.updateMany({ where: { id: runId }, data: { updated: at } });
    },

    findRun(id: number) {
      return db.run.findUnique({ where: { id } });
    },

    listRuns(agentId: number, opts: { skip: number; take: number }) {
      return db.run.findMany({ where: { agentId }, orderBy: { id: 'desc' }, skip: opts.skip, take: opts.take });
    },

    countRuns(agentId: number) {
      return db.run.count({ where: { agentId } });
    },

    /** Runs across the organization's Agents, newest first. */
    listOrgRuns(filter: OrgRunsFilter, opts: { skip: number; take: number }) {
      return db.run.findMany({ where: orgRunsWhere(filter), orderBy: { id: 'desc' }, skip: opts.skip, take: opts.take });
    },

    countOrgRuns(filter: OrgRunsFilter) {
      return db.run.count({ where: orgRunsWhere(filter) });
    },

    /** Active Runs whose heartbeat is older than `before` (their worker is presumed lost). */
    findStaleRuns(before: Date) {
      return db.run.findMany({ where: { status: { in: [1, 2, 3, 5] }, updated: { lt: before } }, select: { id: true, status: true } });
    },

    /** Queuing Runs older than `before` that may have lost their job. */
    findQueuedBefore(before: Date) {
      return db.run.findMany({ where: { status: 4, statusChanged: { lt: before } }, select: { id: true, retryCount: true } });
    },

    /** Waiting Runs whose wait is over. */
    findWaitOver(at: Date) {
      return db.run.findMany({ where: { status: 12, waitUntil: { lte: at } }, select: { id: true, retryCount: true } });
    },

    requestKill(runId: number, at: Date) {
      return db.run.updateMany({ where: { id: runId, status: 5 }, data: { killRequested: at } });
    },

    addFiles(runId: number, files: Array<{ name: string; fileType: string; contentType: string; fileSize: number; storageKey: string }>) {
      return db.runFile.createMany({ data: files.map((f) => ({ ...f, runId, fileSize: BigInt(f.fileSize) })) });
    },

    listFiles(runId: number) {
      return db.runFile.findMany({ where: { runId }, orderBy: { id: 'asc' } });
    },

    findFile(runId: number, fileId: number) {
      return db.runFile.findFirst({ where: { id: fileId, runId } });
    },

    deleteFiles(runId: number) {
      return db.runFile.deleteMany({ where: { runId } });
    },

    /** Deletes a Run that is not active (false if it is); the Agent's status falls back to its previous Run. */
    async deleteRun(runId: number): Promise<boolean> {
      return db.$transaction(async (tx) => {
        const run = await tx.run.findUnique({ where: { id: runId }, select: { agentId: true } });
        if (!run) return true;
        await tx.$queryRaw`SELECT id FROM "Agent" WHERE id = ${run.agentId} FOR UPDATE`;
        const res = await tx.run.deleteMany({ where: { id: runId, status: { notIn: [...ACTIVE_STATUSES] } } });
        if (res.count !== 1) return false;
        const latest = await tx.run.findFirst({ where: { agentId: run.agentId }, orderBy: { id: 'desc' }, select: { id: true, status: true } });
        await tx.agent.update({ where: { id: run.agentId }, data: { lastRunId: latest?.id ?? null, status: latest?.status ?? null } });
        return true;
      });
    },

    clearInputParameters(runId: number) {
      return db.run.updateMany({ where: { id: runId }, data: { inputParameters: null } });
    },

    findProxyPool(id: number) {
      return db.proxyPool.findUnique({ where: { id } });
    },

    findAgentWithDefinition(agentId: number) {
      return db.agent.findUnique({
        where: { id: agentId },
        include: { versions: { orderBy: { version: 'desc' }, take: 1 }, space: true },
      });
    },

    findAgentVersion(agentId: number, version: number) {
      return db.agentVersion.findUnique({ where: { agentId_version: { agentId, version } } });
    },

    listSpaceAgents(spaceId: number) {
      return db.agent.findMany({ where: { spaceId, isArchived: false }, orderBy: [{ name: 'asc' }, { id: 'asc' }], select: { id: true, name: true } });
    },
  };
}
export type RunsRepository = ReturnType<typeof createRunsRepository>;
