// The `data` of the webhook events: a Run's end (run.succeeded, run.failed, ...), schedule.missed,
// builder.session.ready and credits.low. Listed under components.schemas so the OpenAPI description
// documents every payload; docs/webhooks.md says when each is sent.
import { Type, type Static } from '@sinclair/typebox';
import { BuilderSessionSchema } from './agent-builder.js';
import { DateTime, Nullable } from './common.js';
import { RunFileSchema, RunSchema } from './runs.js';
import { ScheduleSchema } from './schedules.js';

export const RunEndedDataSchema = Type.Intersect(
  [
    Type.Ref(RunSchema),
    Type.Object({
      errorCode: Nullable(
        Type.String({
          description:
            "Why the Run failed or ended early, machine-readable (docs/errors.md, 'Run failure codes'); null for a Run that ended normally. Decide on this, not on errorMessage, whose wording may change. New codes may be added.",
        }),
      ),
      files: Type.Optional(Type.Array(Type.Ref(RunFileSchema))),
      filesTruncated: Type.Optional(Type.Literal(true)),
      filesUrl: Type.Optional(Type.String({ description: 'Where the full files list is, when it was cut.' })),
    }),
  ],
  {
    $id: 'WebhookRunEndedData',
    description:
      'data of `run.succeeded`, `run.completed_with_errors`, `run.failed`, `run.stopped` and `run.skipped`: the Run as GET .../status returns it, ' +
      'its failure code, and its files (a list that would take the payload past 20 KB is cut, with `filesTruncated` and `filesUrl`).',
  },
);

export const ScheduleMissedDataSchema = Type.Intersect(
  [
    Type.Ref(ScheduleSchema),
    Type.Object({
      missed: Type.Object({
        firstMissedAt: DateTime,
        count: Type.Integer({
          minimum: 1,
          description: 'Fire times missed after `firstMissedAt`, which were not run (counted up to 1000).',
        }),
        capped: Type.Boolean({ description: 'true when counting stopped at 1000: at least that many were missed.' }),
        runId: Nullable(
          Type.Integer({
            description:
              'The Run created now for `firstMissedAt` (the one catch-up run); null when none was (archived Agent, already fired).',
          }),
        ),
        detectedAt: DateTime,
      }),
    }),
  ],
  {
    $id: 'WebhookScheduleMissedData',
    description:
      'data of `schedule.missed`: the Schedule as GET .../schedules/{scheduleId} returns it (after the catch-up), and what was missed.',
  },
);
export type ScheduleMissedData = Static<typeof ScheduleMissedDataSchema>;

export const BuilderSessionReadyDataSchema = Type.Intersect(
  [
    Type.Ref(BuilderSessionSchema),
    Type.Object({
      previewTruncated: Type.Optional(Type.Literal(true)),
      draftTruncated: Type.Optional(Type.Literal(true)),
      sessionUrl: Type.Optional(Type.String({ description: 'Where the full session is, when something was cut.' })),
    }),
  ],
  {
    $id: 'WebhookBuilderSessionReadyData',
    description:
      'data of `builder.session.ready`: the session as GET /api/v1/agent-builder/{sessionId} returns it; a preview (then a draft) ' +
      'that would take the payload past 20 KB is left out (null) with `previewTruncated`/`draftTruncated` and `sessionUrl`.',
  },
);
export type BuilderSessionReadyData = Static<typeof BuilderSessionReadyDataSchema>;

export const CreditsLowDataSchema = Type.Object(
  {
    organizationId: Type.Integer(),
    threshold: Type.Number({ description: 'The threshold crossed (the organization’s own, or the default).' }),
    balance: Type.Number({ description: 'The available credits after the debit.' }),
    previousBalance: Type.Number({ description: 'The available credits before it (at or above the threshold).' }),
    runId: Type.Integer({ description: 'The Run whose cost was debited.' }),
  },
  {
    $id: 'WebhookCreditsLowData',
    description:
      'data of `credits.low`: sent once per crossing, when a Run’s debit takes the balance from at or above the threshold to below it.',
  },
);

export const webhookEventSchemas = [
  RunEndedDataSchema,
  ScheduleMissedDataSchema,
  BuilderSessionReadyDataSchema,
  CreditsLowDataSchema,
];
