// @cloud-extraction/client: the Node client of the Cloud Extraction Service API.
export { CloudExtractionClient } from './client.js';
export type { ClientOptions, CallOptions } from './http.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  UnprocessableEntityError,
} from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './webhook-verify.js';
export { RunStatus, TERMINAL_STATUSES, isTerminalStatus } from './types.js';
export type * from './types.js';
export type { AgentsClient, AgentClient, AgentListQuery, StartOptions } from './agents.js';
export type { RunClient, AgentRunsClient, WaitOptions } from './runs.js';
export type { PageQuery } from './pagination.js';
export type { SchedulesClient, SpacesClient, BillingClient, AnalyticsClient, WebhooksClient } from './resources.js';
export type { BuilderClient, BuilderSessionClient } from './builder.js';
export type { components, operations, paths } from './openapi.js';
