// Webhook subscriptions, deliveries and test results.
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, IdParam, Nullable, NullableDateTime, PagingQuery } from './common.js';

/** Every event a subscription can ask for (docs/webhooks.md describes each payload). */
/** A subscription whose deliveries have all failed for this many days is disabled by the service. */
export const DISABLE_AFTER_FAILING_DAYS = 5;
/** Why the service may disable a subscription, as the API describes it. */
export const AUTO_DISABLE_RULE = `410 Gone, failing for ${DISABLE_AFTER_FAILING_DAYS} days`;

export const WEBHOOK_EVENT_TYPES = [
  'run.created',
  'run.succeeded',
  'run.completed_with_errors',
  'run.failed',
  'run.stopped',
  'run.skipped',
  'schedule.missed',
  'builder.session.ready',
  'credits.low',
  'webhook.test',
] as const;

const EventTypeSchema = Type.Union([Type.Literal('*'), ...WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))], {
  description:
    'An event type, or `*` for every type. Every payload is `{ type, timestamp, data }`: Run events carry the Run as its status route returns it ' +
    '(plus `files` once terminal); the data of schedule.missed, builder.session.ready and credits.low are the ' +
    'WebhookScheduleMissedData, WebhookBuilderSessionReadyData and WebhookCreditsLowData schemas.',
});

const subscriptionFields = {
  url: Type.String({
    format: 'uri',
    maxLength: 2048,
    pattern: '^https?://',
    description: 'Where events are POSTed (http or https).',
  }),
  description: Type.String({ maxLength: 500 }),
  eventTypes: Type.Array(EventTypeSchema, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length + 1, uniqueItems: true }),
  agentId: Nullable(IdParam('agent', 'Only events about Runs of this Agent; null for every Agent.')),
  spaceId: Nullable(IdParam('space', 'Only events about Runs of Agents in this Space; null for every Space.')),
  enabled: Type.Boolean(),
};

const bodyExample = {
  url: 'https://hooks.acme.test/extraction',
  description: 'Runs of the price watcher',
  eventTypes: ['run.succeeded', 'run.failed'],
  agentId: 42,
  spaceId: null,
  enabled: true,
};

export const WebhookBody = Type.Object(
  {
    url: subscriptionFields.url,
    description: Type.Optional(subscriptionFields.description),
    eventTypes: subscriptionFields.eventTypes,
    agentId: Type.Optional(subscriptionFields.agentId),
    spaceId: Type.Optional(subscriptionFields.spaceId),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false, examples: [bodyExample] },
);
export type WebhookBodyInput = Static<typeof WebhookBody>;

const webhookExample = {
  id: 7,
  ...bodyExample,
  disabledReason: null,
  failingSince: null,
  created: '2026-11-25T10:00:00.000Z',
  updated: '2026-11-25T10:00:00.000Z',
};

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    ...subscriptionFields,
    disabledReason: Nullable(
      Type.String({ description: `Why the service disabled the subscription (${AUTO_DISABLE_RULE}).` }),
    ),
    failingSince: NullableDateTime,
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'Webhook', examples: [webhookExample] },
);
export type WebhookModel = Static<typeof WebhookSchema>;

const secretExample = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const WebhookWithSecretSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({ description: 'The signing secret (Standard Webhooks `whsec_` form); shown only now.' }),
  },
  { $id: 'WebhookWithSecret', examples: [{ ...webhookExample, secret: secretExample }] },
);

const DeliveryErrorCode = Nullable(
  Type.String({
    description:
      "Why the attempt failed, machine-readable (docs/errors.md, 'Webhook delivery failure codes'); null when the receiver answered 2xx. Decide on this, not on error.",
    examples: ['RECEIVER_TIMEOUT'],
  }),
);

export const WebhookAttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: DateTime,
  statusCode: Nullable(
    Type.Integer({ description: 'null when no answer came (refused, timed out, connection failed).' }),
  ),
  durationMs: Type.Integer(),
  responseBody: Type.String({ description: 'The first 4 KB of the answer.' }),
  error: Nullable(Type.String()),
  errorCode: DeliveryErrorCode,
});

export const DeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);

const deliveryExample = {
  id: 311,
  eventId: 'evt_1042',
  eventType: 'run.succeeded',
  status: 'succeeded',
  attemptCount: 2,
  attempts: [
    {
      attempt: 1,
      at: '2026-11-25T10:01:00.000Z',
      statusCode: 500,
      durationMs: 41,
      responseBody: 'oops',
      error: null,
      errorCode: 'RECEIVER_HTTP_ERROR',
    },
    {
      attempt: 2,
      at: '2026-11-25T10:01:05.000Z',
      statusCode: 200,
      durationMs: 12,
      responseBody: 'ok',
      error: null,
      errorCode: null,
    },
  ],
  nextAttemptAt: null,
  finalReason: null,
  created: '2026-11-25T10:01:00.000Z',
};

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    eventId: Type.String({ description: 'The webhook-id header of every attempt of this event.' }),
    eventType: Type.String(),
    status: DeliveryStatusSchema,
    attemptCount: Type.Integer(),
    attempts: Type.Array(WebhookAttemptSchema),
    nextAttemptAt: NullableDateTime,
    finalReason: Nullable(Type.String({ description: 'Why the delivery failed, once it has.' })),
    created: DateTime,
  },
  { $id: 'WebhookDelivery', examples: [deliveryExample] },
);
export type WebhookDeliveryModel = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryPageSchema = Type.Object(
  {
    total: Type.Integer(),
    pageIndex: Type.Integer(),
    recordsPerPage: Type.Integer(),
    data: Type.Array(Type.Ref(WebhookDeliverySchema)),
  },
  { $id: 'WebhookDeliveryPage', examples: [{ total: 1, pageIndex: 1, recordsPerPage: 50, data: [deliveryExample] }] },
);

export const WebhookTestResultSchema = Type.Object(
  {
    outcome: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
    deliveryId: Type.Integer(),
    eventId: Type.String(),
    statusCode: Nullable(Type.Integer()),
    durationMs: Type.Integer(),
    responseBody: Type.String(),
    error: Nullable(Type.String()),
    errorCode: DeliveryErrorCode,
  },
  {
    $id: 'WebhookTestResult',
    examples: [
      {
        outcome: 'success',
        deliveryId: 312,
        eventId: 'evt_1043',
        statusCode: 200,
        durationMs: 15,
        responseBody: 'ok',
        error: null,
        errorCode: null,
      },
    ],
  },
);
export type WebhookTestResult = Static<typeof WebhookTestResultSchema>;

export const DeliveriesQuery = Type.Object(PagingQuery, { additionalProperties: false });

export const webhookModelSchemas = [
  WebhookSchema,
  WebhookWithSecretSchema,
  WebhookDeliverySchema,
  WebhookDeliveryPageSchema,
  WebhookTestResultSchema,
];
