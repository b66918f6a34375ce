// All Prisma access of analytics: range totals per status (rollups for whole days and hours, the Runs
// themselves for partial hours and for Runs not settled yet, in one statement so one snapshot), failed
// Run details, and what a diagnosis reads. The rollups are kept by `rollUp` (a settlement step) and by
// the triggers of the analytics_rollups migration, all through the SQL function analytics_rollup_run.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { RunStatus } from '../runs/status-machine.js';
import type { DateRange } from '../../lib/query-dates.js';
import { splitRange } from './time-range.js';

export interface AnalyticsScope {
  organizationId: number;
  /** Readable Spaces of a member; 'all' for an org admin. */
  spaceIds: number[] | 'all';
  /** Only this Agent (already checked readable). */
  agentId?: number;
}

export interface StatusTotals {
  status: number;
  runs: number;
  recordsExtracted: number;
  recordsExported: number;
  errorCount: number;
  pageCount: number;
}

/** What the rollups count of a settled Run. */
export interface SettledRunTotals {
  agentId: number;
  created: Date;
  status: number;
  recordsExtracted: number;
  recordsExported: number;
  errorCount: number;
  pageCount: number;
}

export interface FailedRunRow {
  runId: number;
  agentId: number;
  agentName: string;
  startTime: Date | null;
  endTime: Date | null;
  status: number;
  errorMessage: string | null;
  spaceId: number;
  spaceName: string;
}

/** At most this many failed Runs are detailed in a summary, newest first. */
export const FAILED_DETAILS_LIMIT = 100;

const statusCond = (alias: string, statuses?: number[]) =>
  statuses ? Prisma.sql`AND ${Prisma.raw(alias)}."status" = ANY(${statuses}::int[])` : Prisma.empty;

const AGENT_JOIN = Prisma.sql`JOIN "Agent" a ON a."id" = r."agentId"`;

/** Runs of the scope (joins Agent only when a member's Spaces restrict it). */
function runScope(scope: AnalyticsScope) {
  if (scope.agentId !== undefined) return { join: Prisma.empty, where: Prisma.sql`r."agentId" = ${scope.agentId}` };
  if (scope.spaceIds === 'all')
    return { join: Prisma.empty, where: Prisma.sql`r."organizationId" = ${scope.organizationId}` };
  return {
    join: AGENT_JOIN,
    where: Prisma.sql`r."organizationId" = ${scope.organizationId} AND a."spaceId" = ANY(${scope.spaceIds}::int[])`,
  };
}

const ROLLUP_SUMS = Prisma.sql`h."status", SUM(h."runs")::bigint AS runs, SUM(h."recordsExtracted")::bigint AS ex, SUM(h."recordsExported")::bigint AS exp,
    SUM(h."errorCount")::bigint AS err, SUM(h."pageCount")::bigint AS pages`;

/** Rollup rows of the scope in `range`: the Agent's hours, or the Spaces' days or hours. */
function rollupPart(scope: AnalyticsScope, range: DateRange, table: 'hour' | 'day') {
  const column = Prisma.raw(table === 'day' ? 'h."day"' : 'h."hour"');
  const inRange = Prisma.sql`${column} >= ${range.start} AND ${column} < ${range.end}`;
  if (scope.agentId !== undefined) {
    return Prisma.sql`SELECT ${ROLLUP_SUMS} FROM "AgentRunHour" h WHERE h."agentId" = ${scope.agentId} AND ${inRange} GROUP BY h."status"`;
  }
  const where =
    scope.spaceIds === 'all'
      ? Prisma.sql`h."organizationId" = ${scope.organizationId}`
      : Prisma.sql`h."spaceId" = ANY(${scope.spaceIds}::int[])`;
  const from = Prisma.raw(table === 'day' ? '"SpaceRunDay"' : '"SpaceRunHour"');
  return Prisma.sql`SELECT ${ROLLUP_SUMS} FROM ${from} h WHERE ${where} AND ${inRange} GROUP BY h."status"`;
}

function livePart(scope: AnalyticsScope, range: DateRange, onlyUnsettled: boolean) {
  const { join, where } = runScope(scope);
  return Prisma.sql`SELECT r."status", COUNT(*)::bigint AS runs, SUM(r."recordsExtracted")::bigint AS ex, SUM(r."recordsExported")::bigint AS exp,
      SUM(r."errorCount")::bigint AS err, SUM(r."pageCount")::bigint AS pages
    FROM "Run" r ${join}
    WHERE ${where} AND r."created" >= ${range.start} AND r."created" < ${range.end}
      ${onlyUnsettled ? Prisma.sql`AND r."settledAt" IS NULL` : Prisma.empty}
    GROUP BY r."status"`;
}

export function createAnalyticsRepository(db: Db) {
  return {
    /**
     * Totals per status of the Runs of `scope` in `range` (see time-range.ts). Whole days and hours come
     * from the rollups (settled Runs) plus the unsettled Runs of them; partial hours from the Runs.
     */
    async totalsByStatus(scope: AnalyticsScope, range: DateRange, statuses?: number[]): Promise<StatusTotals[]> {
      const { covered, days, hours, edges } = splitRange(range);
      const parts: Prisma.Sql[] = [];
      // An Agent's days are few enough to read from its hours.
      if (days) parts.push(rollupPart(scope, days, scope.agentId !== undefined ? 'hour' : 'day'));
      for (const h of hours) parts.push(rollupPart(scope, h, 'hour'));
      if (covered) parts.push(livePart(scope, covered, true));
      for (const edge of edges) parts.push(livePart(scope, edge, false));
      if (parts.length === 0) return [];
      // Parallel workers cost more to start than these small aggregates take (worse on a busy machine).
      const [, rows] = await db.$transaction([
        db.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
        db.$queryRaw<
          Array<{
            status: number;
            runs: bigint;
            ex: bigint | null;
            exp: bigint | null;
            err: bigint | null;
            pages: bigint | null;
          }>
        >`
          SELECT p."status", SUM(p.runs)::bigint AS runs, SUM(p.ex)::bigint AS ex, SUM(p.exp)::bigint AS exp, SUM(p.err)::bigint AS err, SUM(p.pages)::bigint AS pages
          FROM (${Prisma.join(parts, ' UNION ALL ')}) p
          -- Filtered here, not in the parts: a status condition on the unsettled Runs can make the
          -- planner combine the status index (every Run of that status) with the settledAt one.
          WHERE TRUE ${statusCond('p', statuses)}
          GROUP BY p."status"`,
      ]);
      return rows
        .map((r) => ({
          status: r.status,
          runs: Number(r.runs),
          recordsExtracted: Number(r.ex ?? 0),
          recordsExported: Number(r.exp ?? 0),
          errorCount: Number(r.err ?? 0),
          pageCount: Number(r.pages ?? 0),
        }))
        .filter((r) => r.runs !== 0);
    },

    /** The newest failed Runs of the scope in the range (at most FAILED_DETAILS_LIMIT). */
    failedRuns(scope: AnalyticsScope, range: DateRange, statuses: number[]): Promise<FailedRunRow[]> {
      const { where } = runScope(scope);
      return db.$queryRaw<FailedRunRow[]>`
        SELECT r."id" AS "runId", r."agentId", a."name" AS "agentName", r."startTime", r."endTime", r."status", r."errorMessage",
               a."spaceId", s."name" AS "spaceName"
        FROM "Run" r ${AGENT_JOIN} JOIN "Space" s ON s."id" = a."spaceId"
        WHERE ${where} AND r."created" >= ${range.start} AND r."created" < ${range.end} AND r."status" = ANY(${statuses}::int[])
        ORDER BY r."created" DESC, r."id" DESC
        LIMIT ${FAILED_DETAILS_LIMIT}`;
    },

    findRun(agentId: number, runId: number) {
      return db.run.findFirst({ where: { id: runId, agentId } });
    },

    /** The Agent's latest Run in one of `statuses`. */
    findLatestRun(agentId: number, statuses: number[]) {
      return db.run.findFirst({ where: { agentId, status: { in: statuses } }, orderBy: { id: 'desc' } });
    },

    findDefinition(agentId: number, version: number) {
      return db.agentVersion.findUnique({
        where: { agentId_version: { agentId, version } },
        select: { definition: true },
      });
    },

    /** Records extracted by the Agent's latest `limit` Runs before `beforeRunId` that ended Success or Completed. */
    async recentRecordCounts(agentId: number, beforeRunId: number, limit: number): Promise<number[]> {
      const rows = await db.run.findMany({
        where: { agentId, id: { lt: beforeRunId }, status: { in: [RunStatus.Completed, RunStatus.Success] } },
        orderBy: { id: 'desc' },
        take: limit,
        select: { recordsExtracted: true },
      });
      return rows.map((r) => r.recordsExtracted);
    },

    /** Settlement step: adds a settled Run to the hourly rollups of its Agent and Space. */
    rollUpSql(run: SettledRunTotals): Prisma.Sql {
      return Prisma.sql`SELECT analytics_rollup_run(${run.agentId}::int, ${run.created.toISOString()}::timestamp, ${run.status}::int,
        ${run.recordsExtracted}::bigint, ${run.recordsExported}::bigint, ${run.errorCount}::bigint, ${run.pageCount}::bigint, 1)`;
    },
  };
}
export type AnalyticsRepository = ReturnType<typeof createAnalyticsRepository>;
