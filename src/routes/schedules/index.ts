// Schedules of an Agent (docs/api-contract.md §5) and the upcoming fire times
// (GET /api/v1/analytics/schedules/upcoming). HTTP only: access and rules live in services/schedules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  CreateScheduleBody,
  ScheduleListQuery,
  SchedulePageSchema,
  SchedulePreviewBody,
  SchedulePreviewSchema,
  ScheduleSchema,
  UpcomingQuery,
  UpcomingScheduleSchema,
  UpdateScheduleBody,
} from '../../schemas/schedules.js';
import { AgentParams, ScheduleParams } from '../../schemas/params.js';

const schedulesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const Schedule = Type.Ref(ScheduleSchema);
  const tags = ['Schedules'];

  app.get(
    '/api/v1/agent/:agentId/schedules',
    {
      schema: {
        tags,
        operationId: 'listAgentSchedules',
        summary: "List an Agent's Schedules",
        description:
          "Without pageIndex and recordsPerPage: a plain array of every Schedule. With both: `{ schedules, totalRecordCount }` (recordsPerPage clamped to 1000). Needs read access to the Agent's Space.",
        params: AgentParams,
        querystring: ScheduleListQuery,
        response: {
          200: Type.Union([Type.Array(Schedule), Type.Ref(SchedulePageSchema)]),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req) => {
      const res = await app.schedules.list(principalOf(req), req.params.agentId, req.query);
      return res.paged ? { schedules: res.schedules, totalRecordCount: res.totalRecordCount } : res.schedules;
    },
  );

  app.post(
    '/api/v1/agent/:agentId/schedules',
    {
      schema: {
        tags,
        operationId: 'createAgentSchedule',
        summary: 'Create a Schedule',
        description:
          'CRON (3) needs cronExpression (5 or 6 fields, evaluated in timezone); RunOnce (1) needs startTime at least 1 minute ahead; RunEvery (2) needs runEveryCount >= 1 and runEveryPeriod 1..5, and a given startTime (the first run) must be in the future. ' +
          'Errors: SCHEDULE_INVALID_CRON, SCHEDULE_INVALID_TIMEZONE, SCHEDULE_MISSING_FIELD, SCHEDULE_START_TIME_TOO_SOON, SCHEDULE_START_TIME_IN_PAST, AGENT_ARCHIVED (400).',
        params: AgentParams,
        body: CreateScheduleBody,
        response: { 201: Schedule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await app.schedules.create(principalOf(req), req.params.agentId, req.body)),
  );

  app.get(
    '/api/v1/agent/:agentId/schedules/:scheduleId',
    {
      schema: {
        tags,
        operationId: 'getAgentSchedule',
        summary: 'Get a Schedule',
        description: 'A Schedule of another Agent answers 404.',
        params: ScheduleParams,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.schedules.get(principalOf(req), req.params.agentId, req.params.scheduleId),
  );

  app.put(
    '/api/v1/agent/:agentId/schedules/:scheduleId',
    {
      schema: {
        tags,
        operationId: 'updateAgentSchedule',
        summary: 'Update a Schedule',
        description:
          'Only the documented properties are allowed (names case-insensitive); properties left out keep their value. Accepts application/json, text/json and application/*+json. ' +
          'An archived Agent answers 400 AGENT_ARCHIVED. A `?name` input parameter sent back as `********` keeps its stored secret.',
        params: ScheduleParams,
        body: UpdateScheduleBody,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.schedules.update(principalOf(req), req.params.agentId, req.params.scheduleId, req.body),
  );

  app.delete(
    '/api/v1/agent/:agentId/schedules/:scheduleId',
    {
      schema: {
        tags,
        operationId: 'deleteAgentSchedule',
        summary: 'Delete a Schedule permanently',
        description: 'Runs it started are kept (their scheduleId becomes null).',
        params: ScheduleParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      await app.schedules.remove(principalOf(req), req.params.agentId, req.params.scheduleId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/agent/:agentId/schedules/:scheduleId/enable',
    {
      schema: {
        tags,
        operationId: 'enableAgentSchedule',
        summary: 'Enable a Schedule',
        description:
          'nextRunTime is computed from now. A RunOnce Schedule whose startTime is not a minute ahead any more answers 400 SCHEDULE_START_TIME_TOO_SOON; an archived Agent 400 AGENT_ARCHIVED.',
        params: ScheduleParams,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.schedules.setEnabled(principalOf(req), req.params.agentId, req.params.scheduleId, true),
  );

  app.post(
    '/api/v1/agent/:agentId/schedules/:scheduleId/disable',
    {
      schema: {
        tags,
        operationId: 'disableAgentSchedule',
        summary: 'Disable a Schedule',
        description: 'The Schedule does not run until enabled again; nextRunTime becomes null.',
        params: ScheduleParams,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.schedules.setEnabled(principalOf(req), req.params.agentId, req.params.scheduleId, false),
  );

  app.post(
    '/api/v1/schedules/preview',
    {
      schema: {
        tags,
        operationId: 'previewSchedule',
        summary: 'Describe a Schedule and list its next five fire times, before saving it',
        description:
          'Validates the timing as creating a Schedule would (same 400 errorCodes: SCHEDULE_INVALID_CRON, SCHEDULE_INVALID_TIMEZONE, SCHEDULE_MISSING_FIELD, SCHEDULE_START_TIME_TOO_SOON, SCHEDULE_START_TIME_IN_PAST) and saves nothing. ' +
          'The description is the localSchedule the saved Schedule would show; the fire times start from now.',
        body: SchedulePreviewBody,
        response: { 200: Type.Ref(SchedulePreviewSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (req) => app.schedules.preview(req.body),
  );

  app.get(
    '/api/v1/analytics/schedules/upcoming',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getUpcomingSchedules',
        summary: 'Upcoming Schedule fire times',
        description:
          'One entry per fire time of an enabled Schedule the caller can read, in [startDate, endDate] (default: the next 24 hours), earliest first, at most 1000.',
        querystring: UpcomingQuery,
        response: { 200: Type.Array(Type.Ref(UpcomingScheduleSchema)), ...errorResponses(400, 401, 429) },
      },
    },
    async (req) => app.schedules.upcoming(principalOf(req), req.query),
  );
};
export default schedulesRoutes;
