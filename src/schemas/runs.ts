import { Type, type Static } from '@sinclair/typebox';
import {
  DateTime,
  IdParam,
  Int64IdParam,
  INT32_MAX,
  Nullable,
  NullableDateTime,
  PagingQuery,
  ParallelExportInput,
  ProxyPoolIdInput,
  QueryDateOf,
  RunLogOptionsInput,
} from './common.js';
import { RunStatusSchema } from './run-status.js';

export const RunSchema = Type.Object(
  {
    id: Type.Integer(),
    configId: Type.Integer({ description: 'The Agent id.' }),
    organizationId: Type.Integer(),
    status: Type.Ref(RunStatusSchema),
    startTime: NullableDateTime,
    endTime: NullableDateTime,
    startedBy: Type.String(),
    errorMessage: Nullable(Type.String()),
    recordsExtracted: Type.Integer(),
    recordsExported: Type.Integer(),
    parallelism: Type.Integer(),
    parallelSet: Nullable(Type.Integer()),
    logLevel: Type.String(),
    logMode: Type.String(),
    scheduleId: Nullable(
      Type.Integer({ description: 'The Schedule that started the Run; null when started by hand.' }),
    ),
    progress: Nullable(
      Type.Object(
        { pageCount: Type.Integer(), dataCount: Type.Integer(), errorCount: Type.Integer() },
        { description: 'While the Run is active.' },
      ),
    ),
    created: DateTime,
  },
  { $id: 'Run' },
);
export type RunModel = Static<typeof RunSchema>;

/** Longest long-poll of a Run read (`waitForFinish`), in seconds. */
export const RUN_WAIT_FOR_FINISH_MAX_SECONDS = 60;

/** GET .../run/{runId}/status: optionally wait for the Run to end before answering. */
export const RunStatusQuery = Type.Object({
  waitForFinish: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: RUN_WAIT_FOR_FINISH_MAX_SECONDS,
      description:
        'Seconds (0 to 60) to wait for the Run to reach a terminal status before answering; the answer is the Run as it is then, terminal or not. Default 0: answer at once.',
    }),
  ),
});

/** A Run in the organization-wide list: the Run and its Agent's name, so a list needs no second read. */
export const RunListItemSchema = Type.Object(
  { ...RunSchema.properties, agentName: Type.String({ description: 'The name of the Agent (configId).' }) },
  { $id: 'RunListItem' },
);
export type RunListItemModel = Static<typeof RunListItemSchema>;

export const RunLogTailQuery = Type.Object({
  lines: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'How many of the last lines (default 1000, at most 1000).',
    }),
  ),
});

export const RunLogTailSchema = Type.Object(
  {
    runId: Type.Integer(),
    status: Type.Integer({ description: 'The RunStatus when the log was read.' }),
    active: Type.Boolean({ description: 'The Run is still active: its log may grow; read it again to follow it.' }),
    lines: Type.Array(Type.String(), { description: 'The last complete lines, oldest first.' }),
    totalLines: Type.Integer({ description: 'Complete lines in the whole log so far.' }),
  },
  {
    $id: 'RunLogTail',
    examples: [
      {
        runId: 42,
        status: 1,
        active: true,
        lines: ['2026-01-31T12:00:00.000Z [Info] Run 42 started: 1 input(s), parallelism 1, concurrency 4'],
        totalLines: 1,
      },
    ],
  },
);

export const RunFileSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    fileType: Type.Union([
      Type.Literal('Csv'),
      Type.Literal('Json'),
      Type.Literal('Ndjson'),
      Type.Literal('Log'),
      Type.Literal('Html'),
      Type.Literal('Png'),
    ]),
    fileSize: Type.Integer(),
    created: DateTime,
  },
  { $id: 'RunFile' },
);
export type RunFileModel = Static<typeof RunFileSchema>;

export const StartRunBody = Type.Object(
  {
    inputParameters: Type.Optional(
      Nullable(
        Type.String({
          description: 'JSON object string of parameter values; a `?name` key is encrypted at rest and hidden in logs.',
        }),
      ),
    ),
    parallelism: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64, default: 1 }))),
    parallelMaxConcurrency: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64 }))),
    parallelExport: Type.Optional(Nullable(ParallelExportInput)),
    proxyPoolId: Type.Optional(ProxyPoolIdInput()),
    timeout: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: INT32_MAX,
          description: 'Synchronous start: seconds to wait (default 60, at most 300).',
        }),
      ),
    ),
    isExclusive: Type.Optional(Nullable(Type.Boolean({ default: true }))),
    isWaitOnFailure: Type.Optional(Nullable(Type.Boolean({ default: false }))),
    isRunSynchronously: Type.Optional(Nullable(Type.Boolean({ default: false }))),
    ...RunLogOptionsInput,
  },
  {
    additionalProperties: false,
    examples: [{ isExclusive: true, isWaitOnFailure: false, logLevel: 'Info', logMode: 'Text' }],
    title: 'StartRunRequest',
  },
);
export type StartRunInput = Static<typeof StartRunBody>;

export const RunAllBody = Type.Object(
  {
    inputParameters: Type.Optional(Nullable(Type.String())),
    parallelism: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64, default: 1 }))),
    isExclusive: Type.Optional(Nullable(Type.Boolean())),
    proxyPoolId: Type.Optional(ProxyPoolIdInput()),
    ...RunLogOptionsInput,
  },
  { additionalProperties: false, examples: [{ isExclusive: true, logLevel: 'Info' }], title: 'RunAllRequest' },
);
export type RunAllInput = Static<typeof RunAllBody>;

export const RunAllResultSchema = Type.Object(
  {
    spaceId: Type.Integer(),
    spaceName: Type.String(),
    totalAgents: Type.Integer(),
    agentsStarted: Type.Integer(),
    agentsFailed: Type.Integer(),
    results: Type.Array(
      Type.Object({
        agentId: Type.Integer(),
        agentName: Type.String(),
        success: Type.Boolean(),
        runId: Nullable(Type.Integer()),
        errorCode: Nullable(
          Type.String({
            description:
              'Why this Agent did not start, as a single start would answer it (see docs/errors.md); null on success.',
          }),
        ),
        errorMessage: Nullable(Type.String()),
      }),
    ),
  },
  { $id: 'RunAllResult' },
);
export type RunAllResult = Static<typeof RunAllResultSchema>;

const MaxRunsQuery = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: INT32_MAX,
    description: 'Without paging: at most this many Runs (default 50; over 1000 is clamped to 1000).',
  }),
);

export const RunListQuery = Type.Object({
  maxRecords: MaxRunsQuery,
  ...PagingQuery,
});

/** GET /api/v1/runs: Runs across the caller's Agents. */
export const OrgRunsQuerySchema = Type.Object({
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 12, description: 'Only Runs in this RunStatus.' })),
  agentId: Type.Optional(IdParam('agent', 'Only Runs of this Agent.')),
  agentName: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Only Runs of Agents whose name contains it (case-insensitive).',
    }),
  ),
  spaceId: Type.Optional(IdParam('space', 'Only Runs of Agents in this Space.')),
  scheduleId: Type.Optional(Int64IdParam('schedule', 'Only Runs this Schedule started.')),
  startDate: Type.Optional(QueryDateOf('Only Runs created at or after it.')),
  endDate: Type.Optional(QueryDateOf('Only Runs created before its end.')),
  maxRecords: MaxRunsQuery,
  ...PagingQuery,
});
export type OrgRunsQueryInput = Static<typeof OrgRunsQuerySchema>;
