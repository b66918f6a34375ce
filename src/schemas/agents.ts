// Agents, their versions and definitions: API models, bodies and queries (docs/api-contract.md §3 and §7).
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, IdParam, INT32_MAX, Nullable, PagingQuery, ProxyPoolIdInput } from './common.js';

export const CONFIG_TYPE_DESCRIPTION = '1 = Agent, 2 = SharedFile, 3 = Template, 4 = Command';
export const RUN_STATUS_DESCRIPTION =
  '0 Invalid, 1 Running, 2 Exporting, 3 Starting, 4 Queuing, 5 Stopping, 6 Failure, 7 Failed, 8 Stopped, 9 Completed, 10 Success, 11 Skipped, 12 Waiting';
export const VALIDATION_STATUS_DESCRIPTION =
  '1 = Unknown (not computed, e.g. a historical version), 2 = Invalid (semantic problems), 3 = Valid';

const ConfigType = Type.Integer({ enum: [1, 2, 3, 4], description: CONFIG_TYPE_DESCRIPTION });
const ValidationStatus = Type.Integer({ enum: [1, 2, 3], description: VALIDATION_STATUS_DESCRIPTION });
const RunStatus = Type.Integer({ minimum: 0, maximum: 12, description: RUN_STATUS_DESCRIPTION });

export const AgentSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    documentation: Type.String(),
    icon: Type.String(),
    image: Nullable(Type.String({ contentEncoding: 'base64', description: 'Base64-encoded image bytes.' })),
    agentTemplates: Type.String(),
    configType: ConfigType,
    inputParameters: Type.Record(Type.String(), Type.String(), {
      description:
        '`{ name: defaultValue }` of the active definition\'s parameters; encrypted parameters show "********", parameters without a default show "".',
    }),
    isActive: Type.Boolean(),
    isArchived: Type.Boolean({
      description: 'Archived Agents are hidden from agent/all, agent/search and spaces/{id}/agents.',
    }),
    lastActivity: DateTime,
    proxyPoolId: Nullable(Type.Integer()),
    spaceId: Type.Integer(),
    startUrl: Type.String(),
    status: Nullable(
      Type.Integer({
        minimum: 0,
        maximum: 12,
        description: `RunStatus of the latest Run; null if the Agent never ran. ${RUN_STATUS_DESCRIPTION}`,
      }),
    ),
    userId: Type.Integer(),
    validationStatus: ValidationStatus,
    version: Type.Integer({ description: 'The active (largest) version number.' }),
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'Agent', description: 'An Agent (also called config).' },
);
export type AgentModel = Static<typeof AgentSchema>;

export const SavedAgentSchema = Type.Composite(
  [
    AgentSchema,
    Type.Object({
      problems: Type.Array(Type.String(), {
        description:
          'What makes the active definition Invalid (validationStatus 2), each naming where: e.g. "list.fields[0].selector: invalid CSS selector …". Empty when it is Valid. An Invalid Agent cannot be started (422 AGENT_INVALID).',
      }),
    }),
  ],
  { $id: 'SavedAgent', description: 'The Agent as created or updated, with the problems of its active definition.' },
);

export const AgentPageSchema = Type.Object(
  {
    agents: Type.Array(Type.Ref(AgentSchema)),
    totalRecordCount: Type.Integer({ description: 'Agents matching the filters, over all pages.' }),
  },
  { $id: 'AgentPage', description: 'One page of GET /api/v1/agent/all (when pageIndex and recordsPerPage are given).' },
);

export const AgentVersionSchema = Type.Object(
  {
    userName: Type.String(),
    version: Type.Integer(),
    created: DateTime,
    comments: Type.String(),
    fileSize: Type.Integer({ description: 'Bytes of the stored definition (JSON).' }),
  },
  { $id: 'AgentVersion' },
);

export const InputParameterSchema = Type.Object(
  {
    name: Type.String(),
    encrypted: Type.Boolean(),
    defaultValue: Nullable(Type.String({ description: 'Masked as "********" for encrypted parameters.' })),
    description: Nullable(Type.String()),
  },
  { $id: 'InputParameter' },
);

// The definition is documented by the AgentDefinition schema (docs/api-contract.md §7) and validated as
// a whole by the service, so that one 400 lists every structural problem, not only the first.
const DefinitionValue = Type.Object(
  {},
  {
    additionalProperties: true,
    // The OpenAPI description shows the AgentDefinition component here (plugins/external/swagger.ts).
    'x-document-as': 'AgentDefinition',
    description:
      'An Agent definition, as the AgentDefinition schema (components.schemas.AgentDefinition) describes: { startUrl, parameters[], inputs?, timeoutSeconds?, list { selector, fields[] }, next?, follow?, export? }. It is checked in full and every problem is reported in one 400.',
  },
);

export const AgentDefinitionDocumentSchema = Type.Object(
  {
    agentId: Type.Integer(),
    version: Type.Integer(),
    validationStatus: ValidationStatus,
    problems: Type.Array(Type.String(), {
      description: 'Validation problems of the active version; empty for historical versions.',
    }),
    definition: Type.Unsafe<Record<string, unknown>>({
      ...DefinitionValue,
      description: 'The stored definition; default values of encrypted parameters are masked as "********".',
    }),
  },
  { $id: 'AgentDefinitionDocument' },
);

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Text = (maxLength: number) => Type.String({ maxLength });
const Image = Nullable(
  Type.String({
    maxLength: 700_000,
    pattern: '^[A-Za-z0-9+/]*={0,2}$',
    contentEncoding: 'base64',
    description: 'Base64-encoded image bytes.',
  }),
);

/** The README's first Agent: the example of the create and update bodies. */
const BOOKS_DEFINITION = {
  startUrl: 'https://books.toscrape.com/',
  list: {
    selector: 'article.product_pod',
    fields: [
      { name: 'title', selector: 'h3 a', attribute: 'title' },
      { name: 'price', selector: '.price_color' },
    ],
  },
  next: { selector: 'li.next a', maxPages: 3 },
  export: { format: 'csv' },
};

export const CreateAgentBody = Type.Object(
  {
    name: Name,
    spaceId: IdParam('space'),
    description: Type.Optional(Text(4000)),
    documentation: Type.Optional(Text(100_000)),
    icon: Type.Optional(Text(2000)),
    image: Type.Optional(Image),
    configType: Type.Optional(ConfigType),
    proxyPoolId: Type.Optional(ProxyPoolIdInput('A value of 0 or less is treated as unset.')),
    definition: DefinitionValue,
    comments: Type.Optional(Text(4000)),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Books',
        spaceId: 1,
        description: 'Book titles and prices',
        definition: BOOKS_DEFINITION,
        comments: 'First version',
      },
    ],
  },
);
export type CreateAgentInput = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Text(4000)),
    documentation: Type.Optional(Text(100_000)),
    icon: Type.Optional(Text(2000)),
    image: Type.Optional(Image),
    proxyPoolId: Type.Optional(ProxyPoolIdInput('null or a value of 0 or less clears it.')),
    spaceId: Type.Optional(IdParam('space', 'Moves the Agent; needs editor access to both Spaces.')),
    definition: Type.Optional(DefinitionValue),
    comments: Type.Optional(Text(4000)),
  },
  {
    additionalProperties: false,
    examples: [
      {
        description: 'Book titles and prices, ten pages',
        definition: { ...BOOKS_DEFINITION, next: { selector: 'li.next a', maxPages: 10 } },
        comments: 'Ten pages',
      },
      {
        description: 'A list built by script',
        definition: { ...BOOKS_DEFINITION, render: 'browser', waitFor: 'article.product_pod', scroll: 5 },
        comments: 'Rendered in Chromium',
      },
    ],
    minProperties: 1,
  },
);
export type UpdateAgentInput = Static<typeof UpdateAgentBody>;

export const RestoreVersionBody = Type.Object(
  { content: Type.Optional(Type.String({ maxLength: 4000, description: 'Comments of the new version.' })) },
  { additionalProperties: false, examples: [{ content: 'Back to the first version' }] },
);

export const DefinitionQuery = Type.Object({
  version: Type.Optional(IdParam('version', 'Version to read; default the active (largest) one.')),
});

export const AgentSearchQuery = Type.Object({
  query: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Case-insensitive contains match on name or description.',
  }),
  maxRecords: Type.Optional(
    Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'Default 50; values over 1000 are clamped to 1000.' }),
  ),
});

export const AgentListQuery = Type.Object({
  ...PagingQuery,
  sortColumn: Type.Optional(
    Type.String({
      description:
        'name (default), lastActivity, created, updated, status or configType; case-insensitive. Ties are broken by id.',
    }),
  ),
  sortOrder: Type.Optional(Type.Integer({ enum: [0, 1], description: '0 ascending (default), 1 descending.' })),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive contains match on the name.' })),
  status: Type.Optional(RunStatus),
  spaceId: Type.Optional(IdParam('space')),
  configType: Type.Optional(
    Type.String({
      description: `${CONFIG_TYPE_DESCRIPTION}; the names Agent, SharedFile (or Shared), Template and Command are accepted too, case-insensitively.`,
    }),
  ),
});
export type AgentListQueryInput = Static<typeof AgentListQuery>;
