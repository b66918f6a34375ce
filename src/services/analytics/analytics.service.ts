// Analytics: Runs and records summaries of what the caller can read, and Run diagnostics.
import type { AgentDefinition, RunEvidence } from '../../engine/index.js';
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import { utcDayBuckets } from '../../lib/query-dates.js';
import type {
  RecordsSummary,
  RecordsSummaryQuery,
  RunDiagnostics,
  RunsSummary,
  RunsSummaryQuery,
} from '../../schemas/analytics.js';
import type { AccessService } from '../access/access.service.js';
import type { Principal } from '../identity/principal.js';
import type { RunRow } from '../runs/runs.repository.js';
import type { FailureParams, RunFailureCode } from '../runs/run-errors.js';
import { isActive } from '../runs/status-machine.js';
import type { AnalyticsRepository, AnalyticsScope, StatusTotals } from './analytics.repository.js';
import { diagnose, type DiagnosisInput } from './diagnosis-rules.js';
import { parseStatusFilter, resolveRange, RUN_BUCKETS } from './time-range.js';

/** How many earlier successful Runs make the Agent's "recent median" of records. */
export const HISTORY_RUNS = 20;
const FAILED_STATUSES: readonly number[] = RUN_BUCKETS.failedRuns;

type RecordsTotals = Pick<
  RecordsSummary,
  'totalRecordsExtracted' | 'totalRecordsExported' | 'totalErrors' | 'totalPageLoads' | 'runCount'
>;

function recordsTotals(totals: StatusTotals[]): RecordsTotals {
  const sum = (k: 'recordsExtracted' | 'recordsExported' | 'errorCount' | 'pageCount' | 'runs') =>
    totals.reduce((n, t) => n + t[k], 0);
  return {
    totalRecordsExtracted: sum('recordsExtracted'),
    totalRecordsExported: sum('recordsExported'),
    totalErrors: sum('errorCount'),
    totalPageLoads: sum('pageCount'),
    runCount: sum('runs'),
  };
}

export function createAnalyticsService(deps: {
  repo: AnalyticsRepository;
  access: Pick<AccessService, 'requireAgent' | 'readableSpaceIds'>;
  clock: Clock;
}) {
  const { repo, access, clock } = deps;

  async function scopeOf(principal: Principal, agentId: number | undefined): Promise<AnalyticsScope> {
    if (agentId !== undefined) {
      await access.requireAgent(principal, agentId, 'read');
      return { organizationId: principal.organizationId, spaceIds: 'all', agentId };
    }
    return { organizationId: principal.organizationId, spaceIds: await access.readableSpaceIds(principal) };
  }

  async function diagnostics(agent: { id: number; name: string }, run: RunRow): Promise<RunDiagnostics> {
    const [version, recent] = await Promise.all([
      repo.findDefinition(run.agentId, run.agentVersion),
      repo.recentRecordCounts(run.agentId, run.id, HISTORY_RUNS),
    ]);
    const def = version?.definition as AgentDefinition | undefined;
    const stats = {
      dataCount: run.recordsExtracted,
      inputCount: run.inputCount,
      errorCount: run.errorCount,
      pageCount: run.pageCount,
      exportCount: run.exportCount,
      traffic: Number(run.traffic),
    };
    const evidence = (run.evidence as RunEvidence | null) ?? null;
    const input: DiagnosisInput = {
      agentId: agent.id,
      runId: run.id,
      status: run.status,
      errorMessage: run.errorMessage,
      errorCode: run.errorCode as RunFailureCode | null,
      errorParams: run.errorParams as FailureParams | null,
      stats,
      evidence,
      run: {
        proxyPoolId: run.proxyPoolId,
        parallelMaxConcurrency: run.parallelMaxConcurrency,
        timeoutSeconds: run.timeoutSeconds,
      },
      definition: def
        ? {
            startUrl: def.startUrl,
            listSelector: def.list?.selector ?? '',
            nextSelector: def.next?.selector ?? null,
            fields: [...(def.list?.fields ?? []), ...(def.follow?.fields ?? [])],
            timeoutSeconds: def.timeoutSeconds ?? null,
          }
        : null,
      recentRecordCounts: recent,
    };
    const { possibleCauses, suggestedActions, findings } = diagnose(input);
    const until = run.endTime ?? (isActive(run.status) ? clock.now() : null);
    return {
      runId: run.id,
      agentId: agent.id,
      agentName: agent.name,
      status: run.status,
      errorMessage: run.errorMessage,
      errorCode: run.errorCode,
      startTime: run.startTime,
      endTime: run.endTime,
      runtimeSeconds: run.startTime && until ? Math.max(0, (until.getTime() - run.startTime.getTime()) / 1000) : null,
      stats,
      possibleCauses,
      suggestedActions,
      findings,
      evidence,
    };
  }

  return {
    async runsSummary(principal: Principal, q: RunsSummaryQuery): Promise<RunsSummary> {
      const range = resolveRange(q, clock.now());
      const statuses = parseStatusFilter(q.status);
      const scope = await scopeOf(principal, q.agentId);
      const failed = FAILED_STATUSES.filter((s) => !statuses || statuses.includes(s));
      const withDetails = q.includeDetails !== false;
      const [totals, details] = await Promise.all([
        repo.totalsByStatus(scope, range, statuses),
        withDetails && failed.length > 0 ? repo.failedRuns(scope, range, failed) : [],
      ]);
      const runsIn = (bucket: readonly number[]) =>
        totals.filter((t) => bucket.includes(t.status)).reduce((n, t) => n + t.runs, 0);
      const summary: RunsSummary = {
        startDate: range.start,
        endDate: range.end,
        totalRuns: totals.reduce((n, t) => n + t.runs, 0),
        completedRuns: runsIn(RUN_BUCKETS.completedRuns),
        failedRuns: runsIn(RUN_BUCKETS.failedRuns),
        completedWithErrorsRuns: runsIn(RUN_BUCKETS.completedWithErrorsRuns),
        runningRuns: runsIn(RUN_BUCKETS.runningRuns),
        queuedRuns: runsIn(RUN_BUCKETS.queuedRuns),
        stoppedRuns: runsIn(RUN_BUCKETS.stoppedRuns),
      };
      if (withDetails) summary.failedRunDetails = details;
      return summary;
    },

    async recordsSummary(principal: Principal, q: RecordsSummaryQuery): Promise<RecordsSummary> {
      const range = resolveRange(q, clock.now());
      const scope = await scopeOf(principal, q.agentId);
      const summary = {
        startDate: range.start,
        endDate: range.end,
        ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
      };
      if (q.groupBy !== 'day') return { ...summary, ...recordsTotals(await repo.totalsByStatus(scope, range)) };
      // Each day is summed like a range of its own (rollups for its whole hours); the total adds them up.
      const days = await Promise.all(
        utcDayBuckets(range).map(async (d) => ({
          date: d.date,
          ...recordsTotals(await repo.totalsByStatus(scope, d)),
        })),
      );
      const total = (k: keyof RecordsTotals) => days.reduce((n, d) => n + d[k], 0);
      return {
        ...summary,
        totalRecordsExtracted: total('totalRecordsExtracted'),
        totalRecordsExported: total('totalRecordsExported'),
        totalErrors: total('totalErrors'),
        totalPageLoads: total('totalPageLoads'),
        runCount: total('runCount'),
        days,
      };
    },

    async runDiagnostics(principal: Principal, agentId: number, runId: number): Promise<RunDiagnostics> {
      const agent = await access.requireAgent(principal, agentId, 'read');
      const run = await repo.findRun(agentId, runId);
      if (!run) throw new NotFoundError(`Run ${runId} of agent ${agentId} was not found.`);
      return diagnostics(agent, run);
    },

    /** Diagnostics of the Agent's latest Failure (6) or Failed (7) Run. */
    async latestFailure(principal: Principal, agentId: number): Promise<RunDiagnostics> {
      const agent = await access.requireAgent(principal, agentId, 'read');
      const run = await repo.findLatestRun(agentId, [...FAILED_STATUSES]);
      if (!run) throw new NotFoundError(`Agent ${agentId} has no failed Run.`);
      return diagnostics(agent, run);
    },
  };
}
export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
