// Spaces, their Agents and members: API models, bodies and queries (docs/api-contract.md §2.3).
import { Type, type Static } from '@sinclair/typebox';
import { CONFIG_TYPE_DESCRIPTION, RUN_STATUS_DESCRIPTION, VALIDATION_STATUS_DESCRIPTION } from './agents.js';
import { DateTime, IdParam, Nullable } from './common.js';

export const SpaceSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    organizationId: Type.Integer(),
    created: DateTime,
    updated: DateTime,
    isDefaultAccess: Type.Boolean({ description: 'Readable and writable by every member of the organization.' }),
  },
  { $id: 'Space' },
);

export const SpaceAgentSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    configType: Type.Integer({ enum: [1, 2, 3, 4], description: CONFIG_TYPE_DESCRIPTION }),
    status: Nullable(
      Type.Integer({
        minimum: 0,
        maximum: 12,
        description: `RunStatus of the latest Run; null if never ran. ${RUN_STATUS_DESCRIPTION}`,
      }),
    ),
    validationStatus: Type.Integer({ enum: [1, 2, 3], description: VALIDATION_STATUS_DESCRIPTION }),
    lastActivity: DateTime,
  },
  { $id: 'SpaceAgent', description: 'An Agent as listed in its Space.' },
);

export const SpaceMemberSchema = Type.Object(
  {
    spaceId: Type.Integer(),
    userId: Type.Integer(),
    role: Type.Union([Type.Literal('reader'), Type.Literal('editor')]),
  },
  { $id: 'SpaceMember' },
);

export const SpaceSearchQuery = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Exact case-insensitive match first, otherwise the first Space (by name) whose name contains it.',
  }),
});

export const CreateSpaceBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    isDefaultAccess: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Marketing', description: 'Competitor prices', isDefaultAccess: false }],
  },
);
export type CreateSpaceInput = Static<typeof CreateSpaceBody>;

export const AddMemberBody = Type.Object(
  {
    userId: IdParam('user'),
    role: Type.Union([Type.Literal('reader'), Type.Literal('editor')]),
  },
  { additionalProperties: false, examples: [{ userId: 2, role: 'editor' }] },
);
export type AddMemberInput = Static<typeof AddMemberBody>;
