// Agents: the catalogue (list, search), definitions and their versions, archive
// (docs/api-contract.md §3). HTTP only: access and rules live in services/agents.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import {
  AgentDefinitionDocumentSchema,
  AgentListQuery,
  AgentPageSchema,
  AgentSchema,
  SavedAgentSchema,
  AgentSearchQuery,
  AgentVersionSchema,
  CreateAgentBody,
  DefinitionQuery,
  InputParameterSchema,
  RestoreVersionBody,
  UpdateAgentBody,
} from '../../schemas/agents.js';
import { errorResponses } from '../../schemas/common.js';
import { jsonArrayStream } from '../../lib/json-array-stream.js';
import { AgentParams, AgentVersionParams } from '../../schemas/params.js';

const agentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const AgentRef = Type.Ref(AgentSchema);
  const SavedAgentRef = Type.Ref(SavedAgentSchema);
  const tags = ['Agents'];

  app.get(
    '/api/v1/agent/all',
    {
      schema: {
        tags,
        summary: 'List the Agents the caller can read (archived ones hidden)',
        operationId: 'listAgents',
        description:
          'Without pageIndex and recordsPerPage: a plain array of every matching Agent (legacy). With both: `{ agents, totalRecordCount }`. ' +
          'One of them alone is validated but does not enable pagination. recordsPerPage over 1000 is clamped to 1000. ' +
          'A spaceId filter for a Space of another organization answers 404, for an unreachable Space 403.',
        querystring: AgentListQuery,
        response: {
          200: Type.Union([Type.Array(AgentRef), Type.Ref(AgentPageSchema)]),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const result = await app.agents.list(principalOf(req), req.query);
      if (!(Symbol.asyncIterator in result)) return result;
      // The unpaged array is streamed, each Agent serialized by the same schema as the paged answer's.
      const serializeAgent = reply.compileSerializationSchema(AgentRef);
      return reply.type('application/json; charset=utf-8').send(await jsonArrayStream(result, serializeAgent));
    },
  );

  app.get(
    '/api/v1/agent/search',
    {
      schema: {
        tags,
        summary: 'Search Agents by name or description (case-insensitive contains)',
        operationId: 'searchAgents',
        description:
          'Archived Agents are hidden; only Spaces the caller can read. maxRecords defaults to 50 and is clamped to 1000.',
        querystring: AgentSearchQuery,
        response: { 200: Type.Array(AgentRef), ...errorResponses(400, 401, 429) },
      },
    },
    async (req) => app.agents.search(principalOf(req), req.query.query, req.query.maxRecords),
  );

  app.post(
    '/api/v1/agent',
    {
      schema: {
        tags,
        summary: 'Create an Agent (version 1) in a Space the caller can edit',
        operationId: 'createAgent',
        description:
          'A definition whose structure does not match the AgentDefinition schema answers 400 listing the problems; one with semantic problems ' +
          '(e.g. a required export column no field produces) is saved with validationStatus 2 (Invalid) and listed in `problems`.',
        body: CreateAgentBody,
        response: { 201: SavedAgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => reply.code(201).send(await app.agents.create(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/agent/:agentId',
    {
      schema: {
        tags,
        summary: 'Get an Agent',
        description:
          "An Agent of a Space the caller can read (403 otherwise; 404 for another organization's Agent). Archived Agents are returned too.",
        operationId: 'getAgent',
        params: AgentParams,
        response: { 200: AgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.get(principalOf(req), req.params.agentId),
  );

  app.put(
    '/api/v1/agent/:agentId',
    {
      schema: {
        tags,
        summary: 'Update an Agent; a new definition makes a new (active) version',
        operationId: 'updateAgent',
        description:
          'spaceId moves the Agent and needs editor access to both Spaces. An encrypted parameter sent back with the masked default "********" keeps its stored default. ' +
          'The answer lists the problems of the active definition in `problems` (empty when it is Valid).',
        params: AgentParams,
        body: UpdateAgentBody,
        response: { 200: SavedAgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.update(principalOf(req), req.params.agentId, req.body),
  );

  app.get(
    '/api/v1/agent/:agentId/definition',
    {
      schema: {
        tags,
        summary: "Get an Agent's definition (the active version by default)",
        operationId: 'getAgentDefinition',
        description:
          'Historical versions report validationStatus 1 (Unknown). Defaults of encrypted parameters are masked.',
        params: AgentParams,
        querystring: DefinitionQuery,
        response: { 200: Type.Ref(AgentDefinitionDocumentSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.definition(principalOf(req), req.params.agentId, req.query.version),
  );

  app.get(
    '/api/v1/agent/:agentId/versions',
    {
      schema: {
        tags,
        summary: 'List the versions of an Agent, newest first (the largest is active)',
        description:
          "Every version of the Agent's definition with who saved it, when, its comments and size; the largest version is the active one.",
        operationId: 'listAgentVersions',
        params: AgentParams,
        response: { 200: Type.Array(Type.Ref(AgentVersionSchema)), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.versions(principalOf(req), req.params.agentId),
  );

  app.post(
    '/api/v1/agent/:agentId/version/:version/restore',
    {
      schema: {
        tags,
        summary: 'Restore a version: a NEW version copying its definition becomes active',
        operationId: 'restoreAgentVersion',
        description: '`content` is the comments of the new version (default "Restored from version N").',
        params: AgentVersionParams,
        body: Type.Optional(RestoreVersionBody),
        response: { 200: AgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.restore(principalOf(req), req.params.agentId, req.params.version, req.body?.content),
  );

  app.post(
    '/api/v1/agent/:agentId/archive',
    {
      schema: {
        tags,
        summary: 'Archive an Agent and disable its Schedules',
        operationId: 'archiveAgent',
        description: 'Archiving an archived Agent is allowed and changes nothing but lastActivity.',
        params: AgentParams,
        response: { 200: AgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.archive(principalOf(req), req.params.agentId),
  );

  app.post(
    '/api/v1/agent/:agentId/unarchive',
    {
      schema: {
        tags,
        summary: 'Unarchive an Agent (its Schedules stay disabled)',
        description:
          'The Agent shows in lists and can be started again; Schedules disabled by archiving stay disabled until enabled one by one.',
        operationId: 'unarchiveAgent',
        params: AgentParams,
        response: { 200: AgentRef, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.unarchive(principalOf(req), req.params.agentId),
  );

  app.get(
    '/api/v1/agent/:agentId/input-parameters',
    {
      schema: {
        tags,
        summary: "The parameters of an Agent's active definition (encrypted defaults masked)",
        description:
          'The parameters a start can fill through `inputParameters`, with their defaults (encrypted ones masked as "********") and descriptions.',
        operationId: 'listAgentInputParameters',
        params: AgentParams,
        response: { 200: Type.Array(Type.Ref(InputParameterSchema)), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.agents.inputParameters(principalOf(req), req.params.agentId),
  );
};
export default agentsRoutes;
