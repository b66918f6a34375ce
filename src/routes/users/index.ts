// Users and their API keys (organization administrators only; a member may list their own keys).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { BadRequestRef, errorResponses } from '../../schemas/common.js';
import {
  ApiKeySchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  CreateUserBody,
  UserSchema,
} from '../../schemas/users.js';
import { requireAdmin } from '../../services/identity/api-keys.service.js';
import { UserKeyParams, UserParams } from '../../schemas/params.js';

const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const adminOnly = { preHandler: async (req: Parameters<typeof principalOf>[0]) => requireAdmin(principalOf(req)) };

  app.post(
    '/api/v1/users',
    {
      ...adminOnly,
      schema: {
        tags: ['Users'],
        summary: "Create a user in the caller's organization",
        description:
          'Organization administrators only. The email must be unique in the service, ignoring case (409 otherwise). With a password the user can also sign in through the OAuth password grant.',
        operationId: 'createUser',
        body: CreateUserBody,
        response: { 201: Type.Ref(UserSchema), ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await app.identity.users.create(principalOf(req).organizationId, req.body)),
  );

  app.get(
    '/api/v1/users',
    {
      ...adminOnly,
      schema: {
        tags: ['Users'],
        summary: "List the users of the caller's organization",
        description: "Organization administrators only: every user of the caller's organization, by id.",
        operationId: 'listUsers',
        response: { 200: Type.Array(Type.Ref(UserSchema)), ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => app.identity.users.list(principalOf(req)),
  );

  app.get(
    '/api/v1/users/:userId',
    {
      ...adminOnly,
      schema: {
        tags: ['Users'],
        summary: 'Get a user',
        description: 'Organization administrators only. A user of another organization answers 404.',
        operationId: 'getUser',
        params: UserParams,
        response: { 200: Type.Ref(UserSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.identity.users.get(principalOf(req), req.params.userId),
  );

  app.post(
    '/api/v1/users/:userId/api-keys',
    {
      ...adminOnly,
      schema: {
        tags: ['Users'],
        summary: 'Create an API key for a user (the key is returned once)',
        description:
          'Organization administrators only. The key is in the answer once; only its SHA-256 digest is stored. Send it as `Authorization: ApiKey <key>`. Default lifetime: API_KEY_DEFAULT_DAYS.',
        operationId: 'createApiKey',
        params: UserParams,
        body: CreateApiKeyBody,
        response: { 201: Type.Ref(CreatedApiKeySchema), 400: BadRequestRef, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await app.identity.apiKeys.create(principalOf(req), req.params.userId, req.body)),
  );

  app.get(
    '/api/v1/users/:userId/api-keys',
    {
      schema: {
        tags: ['Users'],
        summary: "List a user's API keys (never the keys themselves)",
        description:
          "Organization administrators list any user's keys; a member lists only their own (another user's: 403). Lists key ids, descriptions, expiry and revocation; never the keys.",
        operationId: 'listApiKeys',
        params: UserParams,
        response: { 200: Type.Array(Type.Ref(ApiKeySchema)), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.identity.apiKeys.list(principalOf(req), req.params.userId),
  );

  app.delete(
    '/api/v1/users/:userId/api-keys/:keyId',
    {
      ...adminOnly,
      schema: {
        tags: ['Users'],
        summary: 'Revoke an API key (effective on the next request on every instance)',
        description:
          'Organization administrators only. The key stops working on the next request on every API instance. Revoking a revoked key answers 204 again.',
        operationId: 'revokeApiKey',
        params: UserKeyParams,
        response: { 204: Type.Null({ description: 'Revoked.' }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      await app.identity.apiKeys.revoke(principalOf(req), req.params.userId, req.params.keyId);
      return reply.code(204).send(null);
    },
  );
};
export default usersRoutes;
