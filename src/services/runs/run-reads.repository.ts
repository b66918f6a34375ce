// The Runs' reads, files and maintenance queries (lists, stale and pending Runs, file rows, deletion);
// part of the RunsRepository, whose creation and status changes are in runs.repository.ts.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { ACTIVE_STATUSES, EXECUTING_STATUSES, RunStatus } from './status-machine.js';

/** The Runs of an organization a caller may list (GET /api/v1/runs). */
export interface OrgRunsFilter {
  organizationId: number;
  /** The Spaces whose Runs the caller can read ('all' for an admin). */
  readableSpaceIds: number[] | 'all';
  status?: number;
  agentId?: number;
  /** A case-insensitive part of the Agent's name. */
  agentName?: string;
  spaceId?: number;
  scheduleId?: bigint;
  createdFrom?: Date;
  createdBefore?: Date;
}

/** A file row of a Run as the worker records it. */
export interface NewRunFile {
  name: string;
  fileType: string;
  contentType: string;
  fileSize: number;
  storageKey: string;
}

/**
 * CTEs `gone` and `added` that set a Run's file rows to exactly these keys (rows of the same keys are
 * replaced): PostgreSQL runs them whether or not the statement's main query reads them.
 */
export function replaceFilesSql(runId: number, files: NewRunFile[]): Prisma.Sql {
  const col = <K extends keyof NewRunFile>(k: K) => files.map((f) => f[k]);
  return Prisma.sql`
    gone AS (DELETE FROM "RunFile" WHERE "runId" = ${runId}::int AND "storageKey" = ANY(${col('storageKey')}::text[])),
    added AS (INSERT INTO "RunFile" ("runId", name, "fileType", "contentType", "fileSize", "storageKey", created)
      SELECT ${runId}::int, v.*, ${new Date().toISOString()}::timestamp FROM unnest(${col('name')}::text[], ${col('fileType')}::text[], ${col('contentType')}::text[],
        ${files.map((f) => String(f.fileSize))}::bigint[], ${col('storageKey')}::text[]) AS v)`;
}

function orgRunsWhere(f: OrgRunsFilter): Prisma.RunWhereInput {
  const spaceIds = f.readableSpaceIds === 'all' ? undefined : f.readableSpaceIds;
  return {
    organizationId: f.organizationId,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.agentId !== undefined ? { agentId: f.agentId } : {}),
    ...(f.scheduleId !== undefined ? { scheduleId: f.scheduleId } : {}),
    ...(f.createdFrom || f.createdBefore
      ? {
          created: {
            ...(f.createdFrom ? { gte: f.createdFrom } : {}),
            ...(f.createdBefore ? { lt: f.createdBefore } : {}),
          },
        }
      : {}),
    agent: {
      ...(spaceIds || f.spaceId !== undefined
        ? {
            spaceId: {
              ...(spaceIds ? { in: spaceIds } : {}),
              ...(f.spaceId !== undefined ? { equals: f.spaceId } : {}),
            },
          }
        : {}),
      ...(f.agentName !== undefined ? { name: { contains: f.agentName, mode: 'insensitive' as const } } : {}),
    },
  };
}

export function createRunReads(db: Db) {
  return {
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
      return db.run.findMany({
        where: orgRunsWhere(filter),
        include: { agent: { select: { name: true } } },
        orderBy: { id: 'desc' },
        skip: opts.skip,
        take: opts.take,
      });
    },

    countOrgRuns(filter: OrgRunsFilter) {
      return db.run.count({ where: orgRunsWhere(filter) });
    },

    /** Active Runs whose heartbeat is older than `before` (their worker is presumed lost). */
    findStaleRuns(before: Date) {
      return db.run.findMany({
        where: { status: { in: [...EXECUTING_STATUSES] }, updated: { lt: before } },
        select: { id: true, status: true },
      });
    },

    /** Queuing and Waiting Runs (each should have a job in Redis); with `changedBefore`, only those in that status since before it. */
    findPendingRuns(changedBefore?: Date) {
      return db.run.findMany({
        where: {
          status: { in: [RunStatus.Queuing, RunStatus.Waiting] },
          ...(changedBefore ? { statusChanged: { lt: changedBefore } } : {}),
        },
        select: { id: true, status: true, retryCount: true, waitUntil: true },
      });
    },

    /** Runs left in 7 Failed (the step to 6 or 12 did not happen) since before `before`. */
    findFailedBefore(before: Date) {
      return db.run.findMany({ where: { status: RunStatus.Failed, statusChanged: { lt: before } } });
    },

    requestKill(runId: number, at: Date) {
      return db.run.updateMany({ where: { id: runId, status: RunStatus.Stopping }, data: { killRequested: at } });
    },

    /** Sets a Run's file rows to exactly these keys (repeatable: rows of the same keys are replaced). One statement. */
    async replaceFiles(runId: number, files: NewRunFile[]) {
      await db.$executeRaw`WITH ${replaceFilesSql(runId, files)} SELECT 1`;
    },

    /** Status and recorded file keys of these Runs (those that exist). */
    findRunsWithFileKeys(ids: number[]) {
      return db.run.findMany({
        where: { id: { in: ids } },
        select: { id: true, status: true, files: { select: { storageKey: true } } },
      });
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
        const latest = await tx.run.findFirst({
          where: { agentId: run.agentId },
          orderBy: { id: 'desc' },
          select: { id: true, status: true },
        });
        await tx.agent.update({
          where: { id: run.agentId },
          data: { lastRunId: latest?.id ?? null, status: latest?.status ?? null },
        });
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
        include: { versions: { orderBy: { version: 'desc' }, take: 1 } },
      });
    },

    findAgentVersion(agentId: number, version: number) {
      return db.agentVersion.findUnique({ where: { agentId_version: { agentId, version } } });
    },

    listSpaceAgents(spaceId: number) {
      return db.agent.findMany({
        where: { spaceId, isArchived: false },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        select: { id: true, name: true },
      });
    },
  };
}
