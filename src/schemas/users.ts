import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, NullableDateTime } from './common.js';

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    organizationId: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
    isActive: Type.Boolean(),
    created: DateTime,
    updated: DateTime,
  },
  { $id: 'User' },
);

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('member')])),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'jane@acme.test', name: 'Jane Doe', role: 'member', password: 'a-long-passphrase' }],
  },
);

export const ApiKeySchema = Type.Object(
  {
    id: Type.Integer(),
    userId: Type.Integer(),
    prefix: Type.String({ description: 'The first characters of the key, for recognising it in listings.' }),
    description: Type.String(),
    expiresAt: DateTime,
    revokedAt: NullableDateTime,
    lastUsedAt: NullableDateTime,
    created: DateTime,
  },
  { $id: 'ApiKey' },
);

export const CreatedApiKeySchema = Type.Composite(
  [
    ApiKeySchema,
    Type.Object({ key: Type.String({ description: 'The API key. Shown once; only its digest is stored.' }) }),
  ],
  { $id: 'CreatedApiKey' },
);

export const CreateApiKeyBody = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 500 })),
    expiresAt: Type.Optional(Type.Union([DateTimeInput, Type.Null()], { description: 'Default: one year from now.' })),
  },
  { additionalProperties: false, examples: [{ description: 'CI pipeline', expiresAt: '2030-01-01T00:00:00Z' }] },
);
