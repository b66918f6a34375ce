// Spaces: listing, lookup by name, their Agents, creation and membership (service-spec "Spaces";
// design.md section 9). HTTP only: access and rules live in services/spaces.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  AddMemberBody,
  CreateSpaceBody,
  SpaceAgentSchema,
  SpaceMemberSchema,
  SpaceParams,
  SpaceSchema,
  SpaceSearchQuery,
} from '../../schemas/spaces.js';

const spacesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const SpaceRef = Type.Ref(SpaceSchema);
  const tags = ['Spaces'];

  app.get('/api/v1/spaces', {
    schema: {
      tags,
      summary: 'List the Spaces the caller can read',
      response: { 200: Type.Array(SpaceRef), ...errorResponses(401, 429) },
    },
  }, async (req) => app.spaces.list(principalOf(req)));

  app.get('/api/v1/spaces/search', {
    schema: {
      tags,
      summary: 'Find one Space by name',
      description: 'Among the Spaces the caller can read: the exact case-insensitive match, otherwise the first (by name) whose name contains the text.',
      querystring: SpaceSearchQuery,
      response: { 200: SpaceRef, ...errorResponses(400, 401, 404, 429) },
    },
  }, async (req) => app.spaces.search(principalOf(req), req.query.name));

  app.post('/api/v1/spaces', {
    schema: {
      tags,
      summary: 'Create a Space (organization administrators only)',
      description: 'Space names are unique in an organization, ignoring case (409 otherwise).',
      body: CreateSpaceBody,
      response: { 201: SpaceRef, ...errorResponses(400, 401, 403, 409, 429) },
    },
  }, async (req, reply) => reply.code(201).send(await app.spaces.create(principalOf(req), req.body)));

  app.get('/api/v1/spaces/:spaceId', {
    schema: {
      tags,
      summary: 'Get a Space',
      params: SpaceParams,
      response: { 200: SpaceRef, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (req) => app.spaces.get(principalOf(req), req.params.spaceId));

  app.get('/api/v1/spaces/:spaceId/agents', {
    schema: {
      tags,
      summary: 'List the Agents of a Space (archived ones hidden), by name',
      params: SpaceParams,
      response: { 200: Type.Array(Type.Ref(SpaceAgentSchema)), ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (req) => app.spaces.agents(principalOf(req), req.params.spaceId));

  app.post('/api/v1/spaces/:spaceId/members', {
    schema: {
      tags,
      summary: "Add a member to a Space or change their role (organization administrators only)",
      params: SpaceParams,
      body: AddMemberBody,
      response: { 200: Type.Ref(SpaceMemberSchema), ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (req) => app.spaces.addMember(principalOf(req), req.params.spaceId, req.body));
};
export default spacesRoutes;
