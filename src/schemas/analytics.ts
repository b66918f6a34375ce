// Analytics: Runs and records summaries over a date range, and per-Run diagnostics.
import { Type, type Static } from '@sinclair/typebox';
import { RunEvidenceSchema } from '../engine/evidence.js';
import { QUERY_DATE_RULE } from '../lib/query-dates.js';
import { DateTime, GroupByDayQuery, IdParam, Nullable, NullableDateTime, QueryDate } from './common.js';

const RANGE_RULE =
  'A Run falls in the range when its `created` time (when it was started) is at or after startDate and before endDate. ' +
  'endDate defaults to now, startDate to one day before the end. Dates: ' +
  QUERY_DATE_RULE;

const RangeQuery = {
  startDate: Type.Optional(QueryDate),
  endDate: Type.Optional(QueryDate),
};

export const RunsSummaryQuery = Type.Object({
  ...RangeQuery,
  status: Type.Optional(
    Type.String({
      description:
        'A RunStatus integer (0-12), or a bucket name (case-insensitive): Completed, CompletedWithErrors, Failed, Running, Queued, Stopped.',
    }),
  ),
  includeDetails: Type.Optional(
    Type.Boolean({ default: true, description: 'Include failedRunDetails (default true).' }),
  ),
  agentId: Type.Optional(IdParam('agent', "Only this Agent's Runs.")),
});
export type RunsSummaryQuery = Static<typeof RunsSummaryQuery>;

export const RecordsSummaryQuery = Type.Object({
  ...RangeQuery,
  agentId: Type.Optional(IdParam('agent', "Only this Agent's Runs.")),
  groupBy: GroupByDayQuery,
});
export type RecordsSummaryQuery = Static<typeof RecordsSummaryQuery>;

export const FailedRunSummarySchema = Type.Object(
  {
    runId: Type.Integer(),
    agentId: Type.Integer(),
    agentName: Type.String(),
    startTime: NullableDateTime,
    endTime: NullableDateTime,
    status: Type.Integer({ description: 'RunStatus (6 Failure or 7 Failed).' }),
    errorMessage: Nullable(Type.String()),
    spaceId: Type.Integer(),
    spaceName: Type.String(),
  },
  { $id: 'FailedRunSummary' },
);

export const RunsSummarySchema = Type.Object(
  {
    startDate: DateTime,
    endDate: DateTime,
    totalRuns: Type.Integer({ description: 'Every Run in the range (matching the status filter).' }),
    completedRuns: Type.Integer({ description: 'Completed (9) + Success (10).' }),
    failedRuns: Type.Integer({ description: 'Failure (6) + Failed (7).' }),
    completedWithErrorsRuns: Type.Integer({ description: 'Completed (9).' }),
    runningRuns: Type.Integer({ description: 'Running (1) + Exporting (2) + Starting (3) + Stopping (5).' }),
    queuedRuns: Type.Integer({ description: 'Queuing (4) + Waiting (12).' }),
    stoppedRuns: Type.Integer({ description: 'Stopped (8).' }),
    failedRunDetails: Type.Optional(
      Type.Array(Type.Ref(FailedRunSummarySchema), {
        description: 'With includeDetails (default): the newest 100 failed Runs of the range, newest first.',
      }),
    ),
  },
  { $id: 'RunsSummary', description: RANGE_RULE },
);
export type RunsSummary = Static<typeof RunsSummarySchema>;

const RecordsTotals = {
  totalRecordsExtracted: Type.Integer(),
  totalRecordsExported: Type.Integer(),
  totalErrors: Type.Integer(),
  totalPageLoads: Type.Integer(),
  runCount: Type.Integer(),
};

export const RecordsSummarySchema = Type.Object(
  {
    startDate: DateTime,
    endDate: DateTime,
    ...RecordsTotals,
    agentId: Type.Optional(Type.Integer({ description: 'The Agent filter, when given.' })),
    days: Type.Optional(
      Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...RecordsTotals }), {
        description: 'With groupBy=day: the same totals per UTC day of the range, oldest first.',
      }),
    ),
  },
  { $id: 'RecordsSummary', description: RANGE_RULE },
);
export type RecordsSummary = Static<typeof RecordsSummarySchema>;

export const RunDiagnosticsSchema = Type.Object(
  {
    runId: Type.Integer(),
    agentId: Type.Integer(),
    agentName: Type.String(),
    status: Type.Integer({ minimum: 0, maximum: 12, description: 'RunStatus.' }),
    errorMessage: Nullable(Type.String()),
    errorCode: Nullable(
      Type.String({
        description:
          "Why the Run failed or ended early, machine-readable (docs/errors.md, 'Run failure codes'); null for a Run that ended normally. Decide on this, not on errorMessage, whose wording may change. New codes may be added.",
        examples: ['START_PAGE_HTTP_ERROR'],
      }),
    ),
    startTime: NullableDateTime,
    endTime: NullableDateTime,
    runtimeSeconds: Nullable(Type.Number({ description: 'endTime - startTime (until now while the Run is active).' })),
    stats: Type.Object({
      dataCount: Type.Integer(),
      inputCount: Type.Integer(),
      errorCount: Type.Integer(),
      pageCount: Type.Integer(),
      exportCount: Type.Integer(),
      traffic: Type.Number({ description: 'Bytes received.' }),
    }),
    possibleCauses: Type.Array(Type.String(), { description: 'What went wrong, each with its evidence.' }),
    suggestedActions: Type.Array(Type.String(), { description: 'What to do about it in this product.' }),
    findings: Type.Array(
      Type.Object({ rule: Type.String(), cause: Type.String(), actions: Type.Array(Type.String()) }),
      { description: 'The same causes and actions grouped by the diagnosis rule that produced them.' },
    ),
    evidence: Nullable(Type.Ref(RunEvidenceSchema)),
  },
  { $id: 'RunDiagnostics' },
);
export type RunDiagnostics = Static<typeof RunDiagnosticsSchema>;
