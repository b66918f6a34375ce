// Agent Builder (docs/api-contract.md §8): sessions, their events, and the bodies of start, message and finish.
import { Type, type Static } from '@sinclair/typebox';
import { AgentDefinitionSchema } from '../engine/definition.js';
import { DateTime, IdParam, Nullable } from './common.js';

export const SessionStatusSchema = Type.Union(
  [
    Type.Literal('processing'),
    Type.Literal('ready'),
    Type.Literal('completed'),
    Type.Literal('error'),
    Type.Literal('cancelled'),
  ],
  {
    description:
      'processing -> ready (a draft exists) -> completed (finished into an Agent); error; cancelled (stopped).',
  },
);

const PreviewRecord = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()]));

export const BuilderSessionSchema = Type.Object(
  {
    sessionId: Type.String(),
    status: SessionStatusSchema,
    prompt: Type.String(),
    url: Nullable(Type.String()),
    spaceId: Nullable(Type.Integer()),
    mode: Type.String(),
    draft: Type.Union([Type.Ref(AgentDefinitionSchema), Type.Null()], {
      description: 'The proposed Agent definition, once one exists.',
    }),
    preview: Type.Union([Type.Array(PreviewRecord), Type.Null()], {
      description: 'The first records the draft extracts from the page.',
    }),
    agentId: Nullable(Type.Integer({ description: 'The Agent made by finish.' })),
    error: Nullable(Type.String({ description: 'Why the session ended in error, and what to do about it.' })),
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'AgentBuilderSession' },
);

export const BuilderEventSchema = Type.Object(
  {
    index: Type.Integer({ description: '1-based, consecutive within the session.' }),
    type: Type.String({
      description:
        'started, fetched, rendered (the page was read in the browser), candidates, llm, draft, preview, ready, message, error, cancelled, completed.',
    }),
    message: Type.String(),
    data: Type.Unknown({ description: 'Details of the event (candidates, the draft, preview records...), or null.' }),
    created: DateTime,
  },
  { $id: 'AgentBuilderEvent' },
);

export const BuilderEventsSchema = Type.Object(
  { status: SessionStatusSchema, events: Type.Array(Type.Ref(BuilderEventSchema)) },
  { $id: 'AgentBuilderEvents' },
);

export const StartSessionBody = Type.Object(
  {
    prompt: Type.String({
      minLength: 10,
      maxLength: 5000,
      description: 'What to extract, in plain words; may hold the page URL.',
    }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'The list page to read; default: the first http(s) URL in the prompt.',
      }),
    ),
    spaceId: Type.Optional(IdParam('space', 'Space of the Agent that finish creates (editor access needed).')),
    mode: Type.Optional(Type.Union([Type.Literal('prompt')], { description: "Only 'prompt'." })),
    proxyPoolId: Type.Optional(
      IdParam('proxy pool', 'Self-hosted extension: fetch through this proxy pool; the finished Agent uses it too.'),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { prompt: 'Get the title, price and link of every product', url: 'https://shop.example.com/catalog', spaceId: 1 },
    ],
  },
);
export type StartSessionInput = Static<typeof StartSessionBody>;

export const MessageBody = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: 5000, pattern: '\\S' }) },
  { additionalProperties: false, examples: [{ message: 'also take the rating' }] },
);

export const FinishBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Default: taken from the prompt.' }),
    ),
    spaceId: Type.Optional(IdParam('space', "Default: the session's Space.")),
  },
  { additionalProperties: false, examples: [{ name: 'Catalog products', spaceId: 1 }] },
);
export type FinishInput = Static<typeof FinishBody>;

export const EventsQuery = Type.Object({
  lastEventIndex: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Events after this index; default 0 (all).' }),
  ),
});

export const StartSessionResult = Type.Object({ success: Type.Literal(true), sessionId: Type.String() });
