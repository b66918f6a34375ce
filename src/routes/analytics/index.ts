// Analytics: Runs and records summaries, Run diagnostics and an Agent's latest failure.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import {
  RecordsSummaryQuery,
  RecordsSummarySchema,
  RunDiagnosticsSchema,
  RunsSummaryQuery,
  RunsSummarySchema,
} from '../../schemas/analytics.js';
import { errorResponses } from '../../schemas/common.js';
import { AgentParams, AgentRunParams } from '../../schemas/params.js';

const analyticsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const Diagnostics = Type.Ref(RunDiagnosticsSchema);

  app.get(
    '/api/v1/analytics/runs/summary',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getRunsSummary',
        summary: 'Summary of Runs in a date range',
        description:
          'Counts the Runs the caller can read whose `created` time is in [startDate, endDate), by bucket: completedRuns = Completed (9) + Success (10), ' +
          'completedWithErrorsRuns = Completed (9), failedRuns = Failure (6) + Failed (7), runningRuns = 1 + 2 + 3 + 5, queuedRuns = 4 + 12, stoppedRuns = 8; ' +
          'totalRuns counts every status. `status` (a RunStatus integer or a bucket name) restricts what is counted. ' +
          'With includeDetails (default true), failedRunDetails lists the newest 100 failed Runs. Unparsable dates or endDate before startDate: 400 VALIDATION_FAILED.',
        querystring: RunsSummaryQuery,
        response: { 200: Type.Ref(RunsSummarySchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.analytics.runsSummary(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/analytics/records/summary',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getRecordsSummary',
        summary: 'Records extracted and exported in a date range',
        description:
          'Totals over the Runs the caller can read whose `created` time is in [startDate, endDate) (the same Runs as the Runs summary): records extracted and exported, ' +
          'errors, page loads and the number of Runs. Optionally for one Agent. Unparsable dates or endDate before startDate: 400 VALIDATION_FAILED.',
        querystring: RecordsSummaryQuery,
        response: { 200: Type.Ref(RecordsSummarySchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.analytics.recordsSummary(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/analytics/agents/:agentId/runs/:runId/diagnostics',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getRunDiagnostics',
        summary: 'Diagnostics of one Run: what went wrong and what to do',
        description:
          "Status, times, statistics, and the possible causes (each with its evidence: response codes, network errors, selectors that matched nothing, the Agent's recent record counts) " +
          'with suggested actions. `evidence` holds what the engine recorded during the Run.',
        params: AgentRunParams,
        response: { 200: Diagnostics, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.analytics.runDiagnostics(principalOf(req), req.params.agentId, req.params.runId),
  );

  app.get(
    '/api/v1/analytics/agents/:agentId/latest-failure',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getLatestFailure',
        summary: "Diagnostics of an Agent's latest failed Run",
        description:
          "The diagnostics of the Agent's latest Run that ended Failure (6) or is Failed (7); 404 when the Agent never failed.",
        params: AgentParams,
        response: { 200: Diagnostics, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.analytics.latestFailure(principalOf(req), req.params.agentId),
  );
};

export default analyticsRoutes;
