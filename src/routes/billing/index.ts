// Billing: credits balance, ledger, spending and per-Agent costs (docs/api-contract.md §6).
// HTTP only: the rules live in services/billing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import {
  AgentBreakdownQuery,
  AgentCostBreakdownSchema,
  AgentRunsCostQuery,
  AgentRunsCostSchema,
  AgentsCostQuery,
  AgentsCostSchema,
  CreditHistorySchema,
  CreditsBalanceSchema,
  HistoryQuery,
  LowCreditsAlertBody,
  LowCreditsAlertSchema,
  SpendingQuery,
  SpendingSummarySchema,
} from '../../schemas/billing.js';
import { errorResponses } from '../../schemas/common.js';
import { AgentParams } from '../../schemas/params.js';

const RANGE_RULES =
  'startDate and endDate are required ISO 8601 dates or date-times (UTC); a date-only endDate covers that whole day. ' +
  'A bad or reversed date, an unknown usage type or sort column answers 400 VALIDATION_FAILED.';

const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Billing'];

  app.get(
    '/api/v1/billing/credits',
    {
      schema: {
        tags,
        operationId: 'getCreditsBalance',
        summary: "Available credits of the caller's organization",
        description:
          "The sum of the remaining credits of the organization's unexpired grants; 0 when they are exhausted.",
        response: { 200: Type.Ref(CreditsBalanceSchema), ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => app.billing.credits(principalOf(req)),
  );

  const alertDescription =
    'A `credits.low` webhook event is sent once each time a Run’s debit takes the balance from at or above this threshold to below it. ' +
    'Organizations without their own threshold use the service default (CREDITS_LOW_THRESHOLD, 10 unless set); 0 turns the event off. Organization admins only (403 otherwise).';
  app.get(
    '/api/v1/billing/low-credits-alert',
    {
      schema: {
        tags,
        operationId: 'getLowCreditsAlert',
        summary: 'The balance below which credits.low is sent',
        description: alertDescription,
        response: { 200: Type.Ref(LowCreditsAlertSchema), ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => app.billing.lowCreditsAlert(principalOf(req)),
  );

  app.put(
    '/api/v1/billing/low-credits-alert',
    {
      schema: {
        tags,
        operationId: 'setLowCreditsAlert',
        summary: 'Set (or reset with null) the balance below which credits.low is sent',
        description: `${alertDescription} A negative threshold or one with more than 6 decimal places answers 400 VALIDATION_FAILED.`,
        body: LowCreditsAlertBody,
        response: { 200: Type.Ref(LowCreditsAlertSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => app.billing.setLowCreditsAlert(principalOf(req), req.body),
  );

  app.get(
    '/api/v1/billing/history',
    {
      schema: {
        tags,
        operationId: 'getCreditHistory',
        summary: "Credit transactions of the caller's organization, newest first",
        description:
          "Grants, Usage debits (one per grant a Run's cost was taken from), Uncovered usage (cost beyond the available credits) and Expiry of unused credits, " +
          'each with the balance after it. pageIndex is 1-based (default 1); recordsPerPage defaults to 50 and is clamped to 100.',
        querystring: HistoryQuery,
        response: { 200: Type.Ref(CreditHistorySchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => app.billing.history(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/billing/spending',
    {
      schema: {
        tags,
        operationId: 'getSpendingSummary',
        summary: 'Credits spent on usage in a range, and the current balance',
        description:
          'The range defaults to the last 30 days. Dates are ISO 8601 dates or date-times (UTC); a bad or reversed date answers 400 VALIDATION_FAILED.',
        querystring: SpendingQuery,
        response: { 200: Type.Ref(SpendingSummarySchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => app.billing.spending(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/billing/agents',
    {
      schema: {
        tags,
        operationId: 'getAgentsUsage',
        summary: 'Cost per Agent in a date range, for the Agents the caller can read',
        description:
          `${RANGE_RULES} Lists the Agents that cost something (in the selected usage types) in the range; totalRecordCount and totalCost cover every matching Agent. ` +
          'pageIndex is 1-based (default 1); recordsPerPage defaults to 50 and is clamped to 1000; sortColumn name (default) or cost; sortOrder 0 ascending (default) or 1 descending.',
        querystring: AgentsCostQuery,
        response: { 200: Type.Ref(AgentsCostSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req) => app.billing.agents(principalOf(req), req.query),
  );

  app.get(
    '/api/v1/billing/agents/:agentId',
    {
      schema: {
        tags,
        operationId: 'getAgentCostBreakdown',
        summary: "An Agent's cost per usage type and period",
        description: `${RANGE_RULES} timeUnit day (default), week (ISO weeks, labelled by their Monday) or month; at most 1000 periods. An Agent of another organization answers 404, one the caller cannot read 403.`,
        params: AgentParams,
        querystring: AgentBreakdownQuery,
        response: { 200: Type.Ref(AgentCostBreakdownSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.billing.agentBreakdown(principalOf(req), req.params.agentId, req.query),
  );

  app.get(
    '/api/v1/billing/agents/:agentId/runs',
    {
      schema: {
        tags,
        operationId: 'getAgentRunsCost',
        summary: "Cost of each of an Agent's Runs in a date range",
        description:
          `${RANGE_RULES} A Run counts in the range by the time it was metered (when it ended). sortColumn date (default, newest first), cost or duration; ` +
          'pageIndex is 1-based (default 1); recordsPerPage defaults to 50 and is clamped to 1000. An Agent of another organization answers 404, one the caller cannot read 403.',
        params: AgentParams,
        querystring: AgentRunsCostQuery,
        response: { 200: Type.Ref(AgentRunsCostSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.billing.agentRuns(principalOf(req), req.params.agentId, req.query),
  );
};
export default billingRoutes;
