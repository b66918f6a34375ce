// Every named model schema, registered once with Fastify so routes can $ref them and the OpenAPI
// description lists them under components.schemas.
import type { TSchema } from '@sinclair/typebox';
import {
  BadRequestErrorSchema,
  LogLevelSchema,
  LogModeSchema,
  ParallelExportSchema,
  ProblemDetailsSchema,
} from './common.js';
import {
  AgentDefinitionDocumentSchema,
  AgentPageSchema,
  AgentSchema,
  AgentVersionSchema,
  InputParameterSchema,
  SavedAgentSchema,
} from './agents.js';
import { AgentDefinitionSchema } from '../engine/definition.js';
import { ErrorCodeSchema } from './errors.js';
import { ProxyPoolSchema } from './proxy-pools.js';
import { RunStatusSchema } from './run-status.js';
import { RunAllResultSchema, RunFileSchema, RunListItemSchema, RunLogTailSchema, RunSchema } from './runs.js';
import { SchedulePageSchema, SchedulePreviewSchema, ScheduleSchema, UpcomingScheduleSchema } from './schedules.js';
import { SpaceAgentSchema, SpaceMemberSchema, SpaceSchema } from './spaces.js';
import { ApiKeySchema, CreatedApiKeySchema, UserSchema } from './users.js';
import { billingModelSchemas } from './billing.js';
import { webhookModelSchemas } from './webhooks.js';
import { webhookEventSchemas } from './webhook-events.js';
import { BuilderEventSchema, BuilderEventsSchema, BuilderSessionSchema } from './agent-builder.js';

export const modelSchemas: TSchema[] = [
  ProblemDetailsSchema,
  BadRequestErrorSchema,
  ErrorCodeSchema,
  LogLevelSchema,
  LogModeSchema,
  ParallelExportSchema,
  UserSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  AgentSchema,
  SavedAgentSchema,
  AgentPageSchema,
  AgentVersionSchema,
  InputParameterSchema,
  AgentDefinitionDocumentSchema,
  AgentDefinitionSchema,
  SpaceSchema,
  SpaceAgentSchema,
  SpaceMemberSchema,
  RunStatusSchema,
  RunSchema,
  RunListItemSchema,
  RunFileSchema,
  RunLogTailSchema,
  RunAllResultSchema,
  ProxyPoolSchema,
  ScheduleSchema,
  SchedulePageSchema,
  UpcomingScheduleSchema,
  SchedulePreviewSchema,
  ...billingModelSchemas,
  BuilderSessionSchema,
  BuilderEventSchema,
  BuilderEventsSchema,
  ...webhookModelSchemas,
  ...webhookEventSchemas,
];

/** Later modules add their models here through this hook, keeping one registration point. */
export function registerModelSchemas(extra: TSchema[]): void {
  for (const s of extra) if (!modelSchemas.includes(s)) modelSchemas.push(s);
}

// Analytics.
import { FailedRunSummarySchema, RecordsSummarySchema, RunDiagnosticsSchema, RunsSummarySchema } from './analytics.js';
import { RunEvidenceSchema } from '../engine/evidence.js';
registerModelSchemas([
  RunEvidenceSchema,
  FailedRunSummarySchema,
  RunsSummarySchema,
  RecordsSummarySchema,
  RunDiagnosticsSchema,
]);
