// Schedules: the model and the create/update body (docs/api-contract.md §5).
import { Type, type Static } from '@sinclair/typebox';
import {
  DateTime,
  DateTimeInput,
  LogLevelSchema,
  LogModeSchema,
  Nullable,
  NullableDateTime,
  PagingQuery,
  ParallelExportInput,
  ParallelExportSchema,
  QueryDateOf,
  RunLogOptionsInput,
} from './common.js';

export const ScheduleSchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64' }),
    configId: Type.Integer({ description: 'The Agent id.' }),
    name: Nullable(Type.String()),
    schedule: Nullable(
      Type.String({
        description:
          'The stored expression: the cron expression (CRON), the ISO 8601 instant (RunOnce), or an ISO 8601 repeating interval `R/<start>/<period>` (RunEvery).',
      }),
    ),
    localSchedule: Nullable(Type.String({ description: 'A human-readable sentence, with the time zone.' })),
    timezone: Nullable(Type.String({ description: 'IANA time-zone name; null means UTC.' })),
    nextRunTime: Nullable(DateTime),
    startTime: NullableDateTime,
    scheduleType: Type.Integer({ enum: [0, 1, 2, 3], description: '0 None, 1 RunOnce, 2 RunEvery, 3 CRON' }),
    isEnabled: Type.Boolean(),
    runEveryCount: Nullable(Type.Integer()),
    runEveryPeriod: Nullable(Type.Integer({ description: '1 minutes, 2 hours, 3 days, 4 weeks, 5 months' })),
    inputParameters: Nullable(
      Type.String({
        description:
          'JSON object string as stored; the values of `?name` (encrypted) parameters are never returned and show `********`.',
      }),
    ),
    parallelism: Nullable(Type.Integer()),
    parallelMaxConcurrency: Nullable(Type.Integer()),
    parallelExport: Type.Ref(ParallelExportSchema),
    proxyPoolId: Nullable(Type.Integer()),
    serverGroupId: Nullable(Type.Integer()),
    logLevel: Type.Ref(LogLevelSchema),
    logMode: Type.Ref(LogModeSchema),
    isExclusive: Type.Boolean({
      description: 'No concurrent Runs: a fire while the Agent has an active Run records a Skipped (11) Run.',
    }),
    isWaitOnFailure: Type.Boolean(),
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'Schedule', title: 'AgentScheduleApiModel' },
);
export type ScheduleView = Static<typeof ScheduleSchema>;

export const SchedulePageSchema = Type.Object(
  { schedules: Type.Array(Type.Ref(ScheduleSchema)), totalRecordCount: Type.Integer() },
  { $id: 'SchedulePage' },
);

export const UpcomingScheduleSchema = Type.Object(
  {
    scheduleId: Type.Integer({ format: 'int64' }),
    agentId: Type.Integer(),
    agentName: Type.String(),
    scheduleName: Nullable(Type.String()),
    nextRunTime: DateTime,
    timezone: Nullable(Type.String()),
    isEnabled: Type.Boolean(),
  },
  { $id: 'UpcomingSchedule', title: 'UpcomingScheduleApiModel' },
);

const scheduleBodyProperties = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  cronExpression: Type.Optional(
    Nullable(Type.String({ maxLength: 200, description: 'CRON (3): 5 or 6 fields, evaluated in `timezone`.' })),
  ),
  localSchedule: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 500,
        description: 'Accepted for compatibility; the response computes it from the Schedule.',
      }),
    ),
  ),
  timezone: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'IANA time-zone name (default UTC).' }))),
  startTime: Type.Optional(Nullable(DateTimeInput)),
  inputParameters: Type.Optional(
    Nullable(
      Type.String({ description: 'JSON object string; a `?name` key is encrypted at rest and never returned.' }),
    ),
  ),
  scheduleType: Type.Optional(
    Type.Integer({ enum: [0, 1, 2, 3], description: '0 None, 1 RunOnce, 2 RunEvery, 3 CRON' }),
  ),
  isEnabled: Type.Optional(Type.Boolean()),
  runEveryCount: Type.Optional(Nullable(Type.Integer())),
  runEveryPeriod: Type.Optional(
    Nullable(Type.Integer({ description: '1 minutes, 2 hours, 3 days, 4 weeks, 5 months' })),
  ),
  parallelism: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64 }))),
  parallelMaxConcurrency: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 64 }))),
  parallelExport: Type.Optional(Nullable(ParallelExportInput)),
  proxyPoolId: Type.Optional(Nullable(Type.Integer({ description: '0 or less means unset.' }))),
  serverGroupId: Type.Optional(
    Nullable(Type.Integer({ description: 'Runs execute only on workers serving this group; 0 or less means unset.' })),
  ),
  ...RunLogOptionsInput,
  isExclusive: Type.Optional(Nullable(Type.Boolean())),
  isWaitOnFailure: Type.Optional(Nullable(Type.Boolean())),
};

export const CreateScheduleBody = Type.Object(scheduleBodyProperties, {
  additionalProperties: false,
  title: 'CreateScheduleRequest',
  examples: [
    {
      name: 'Nightly',
      scheduleType: 3,
      cronExpression: '0 3 * * *',
      timezone: 'Europe/Paris',
      isEnabled: true,
      parallelism: 1,
    },
    { name: 'Every 2 hours', scheduleType: 2, runEveryCount: 2, runEveryPeriod: 2, timezone: 'America/New_York' },
  ],
});
export type ScheduleBody = Static<typeof CreateScheduleBody>;

export const UpdateScheduleBody = Type.Object(scheduleBodyProperties, {
  additionalProperties: false,
  title: 'UpdateScheduleRequest',
  description: 'Properties left out keep their value; null clears a nullable one.',
  examples: [
    {
      name: 'Weekdays at 06:30',
      scheduleType: 3,
      cronExpression: '30 6 * * 1-5',
      timezone: 'America/New_York',
      isExclusive: true,
    },
  ],
});

export const ScheduleListQuery = Type.Object({ ...PagingQuery });
export const UpcomingQuery = Type.Object({
  startDate: Type.Optional(QueryDateOf('Start of the range; default: now.')),
  endDate: Type.Optional(QueryDateOf('End of the range; default: 24 hours after the start.')),
});

/** The timing of a Schedule, previewed before it is saved (POST /api/v1/schedules/preview). */
export const SchedulePreviewBody = Type.Object(
  {
    scheduleType: Type.Integer({ enum: [1, 2, 3], description: '1 RunOnce, 2 RunEvery, 3 CRON' }),
    cronExpression: scheduleBodyProperties.cronExpression,
    timezone: scheduleBodyProperties.timezone,
    startTime: scheduleBodyProperties.startTime,
    runEveryCount: scheduleBodyProperties.runEveryCount,
    runEveryPeriod: scheduleBodyProperties.runEveryPeriod,
  },
  {
    additionalProperties: false,
    title: 'SchedulePreviewRequest',
    examples: [{ scheduleType: 3, cronExpression: '30 6 * * 1-5', timezone: 'Europe/Paris' }],
  },
);
export type SchedulePreviewInput = Static<typeof SchedulePreviewBody>;

export const SchedulePreviewSchema = Type.Object(
  {
    description: Type.String({ description: 'The human-readable sentence a saved Schedule shows as localSchedule.' }),
    nextFireTimes: Type.Array(DateTime, {
      maxItems: 5,
      description: 'The next five fire times from now (fewer when the Schedule ends: a RunOnce fires once).',
    }),
  },
  { $id: 'SchedulePreview' },
);
