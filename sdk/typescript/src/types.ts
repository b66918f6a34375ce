// Names for the API's types, all taken from the generated OpenAPI types (src/openapi.ts).
import type { components, operations } from './openapi.js';

type Schemas = components['schemas'];
export type Agent = Schemas['Agent'];
export type SavedAgent = Schemas['SavedAgent'];
export type AgentVersion = Schemas['AgentVersion'];
export type AgentDefinition = Schemas['AgentDefinition'];
export type Run = Schemas['Run'];
export type RunFile = Schemas['RunFile'];
export type RunLogTail = Schemas['RunLogTail'];
export type RunDiagnostics = Schemas['RunDiagnostics'];
export type Schedule = Schemas['Schedule'];
export type Space = Schemas['Space'];
export type Webhook = Schemas['Webhook'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type AgentBuilderSession = Schemas['AgentBuilderSession'];
export type AgentBuilderEvent = Schemas['AgentBuilderEvent'];
export type ErrorCode = Schemas['ErrorCode'];

/** The query parameters of an operation. */
export type QueryOf<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
/** The JSON body of an operation. */
export type BodyOf<K extends keyof operations> = operations[K]['requestBody'] extends
  { content: { 'application/json': infer B } } | undefined
  ? B
  : never;

/** RunStatus values (the Run's `status`). */
export const RunStatus = {
  Invalid: 0,
  Running: 1,
  Exporting: 2,
  Starting: 3,
  Queuing: 4,
  Stopping: 5,
  Failure: 6,
  Failed: 7,
  Stopped: 8,
  Completed: 9,
  Success: 10,
  Skipped: 11,
  Waiting: 12,
} as const;

/** The statuses a Run ends in: Failure, Stopped, Completed, Success, Skipped. */
export const TERMINAL_STATUSES: readonly number[] = [
  RunStatus.Failure,
  RunStatus.Stopped,
  RunStatus.Completed,
  RunStatus.Success,
  RunStatus.Skipped,
];

/** Whether a Run in this status has ended. */
export const isTerminalStatus = (status: number): boolean => TERMINAL_STATUSES.includes(status);

/** One page of a list. */
export interface Page<T> {
  items: T[];
  totalRecordCount: number;
  pageIndex: number;
  recordsPerPage: number;
}
