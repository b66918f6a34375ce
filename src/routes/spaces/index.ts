// Spaces: listing, lookup by name, their Agents, creation and membership (docs/api-contract.md §2.3).
// HTTP only: access and rules live in services/spaces.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  AddMemberBody,
  CreateSpaceBody,
  SpaceAgentSchema,
  SpaceMemberSchema,
  SpaceSchema,
  SpaceSearchQuery,
} from '../../schemas/spaces.js';
import { SpaceParams } from '../../schemas/params.js';

const spacesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const SpaceRef = Type.Ref(SpaceSchema);
  const tags = ['Spaces'];

  app.get(
    '/api/v1/spaces',
    {
      schema: {
        tags,
        summary: 'List the Spaces the caller can read',
        description:
          "The Spaces the caller can read, by name: all of the organization's for an administrator; default-access Spaces and those the caller is a member of otherwise.",
        operationId: 'listSpaces',
        response: { 200: Type.Array(SpaceRef), ...errorResponses(401, 429) },
      },
    },
    async (req) => app.spaces.list(principalOf(req)),
  );

  app.get(
    '/api/v1/spaces/search',
    {
      schema: {
        tags,
        summary: 'Find one Space by name',
        operationId: 'findSpace',
        description:
          'Among the Spaces the caller can read: the exact case-insensitive match, otherwise the first (by name) whose name contains the text.',
        querystring: SpaceSearchQuery,
        response: { 200: SpaceRef, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => app.spaces.search(principalOf(req), req.query.name),
  );

  app.post(
    '/api/v1/spaces',
    {
      schema: {
        tags,
        summary: 'Create a Space (organization administrators only)',
        operationId: 'createSpace',
        description: 'Space names are unique in an organization, ignoring case (409 otherwise).',
        body: CreateSpaceBody,
        response: { 201: SpaceRef, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) => reply.code(201).send(await app.spaces.create(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/spaces/:spaceId',
    {
      schema: {
        tags,
        summary: 'Get a Space',
        description: "A Space the caller can read (403 otherwise; 404 for another organization's Space).",
        operationId: 'getSpace',
        params: SpaceParams,
        response: { 200: SpaceRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.spaces.get(principalOf(req), req.params.spaceId),
  );

  app.get(
    '/api/v1/spaces/:spaceId/agents',
    {
      schema: {
        tags,
        summary: 'List the Agents of a Space (archived ones hidden), by name',
        description: 'The Agents of a Space the caller can read, by name, without archived ones.',
        operationId: 'listSpaceAgents',
        params: SpaceParams,
        response: { 200: Type.Array(Type.Ref(SpaceAgentSchema)), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.spaces.agents(principalOf(req), req.params.spaceId),
  );

  app.post(
    '/api/v1/spaces/:spaceId/members',
    {
      schema: {
        tags,
        summary: 'Add a member to a Space or change their role (organization administrators only)',
        description:
          'Organization administrators only. Adds a user of the organization to the Space as `reader` or `editor`, or changes the role of a member.',
        operationId: 'addSpaceMember',
        params: SpaceParams,
        body: AddMemberBody,
        response: { 200: Type.Ref(SpaceMemberSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.spaces.addMember(principalOf(req), req.params.spaceId, req.body),
  );
};
export default spacesRoutes;
