// Proxy pools (organization administrators manage them; any member may run through one).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { CreateProxyPoolBody, ProxyPoolSchema } from '../../schemas/proxy-pools.js';
import { requireAdmin } from '../../services/identity/api-keys.service.js';
import { ProxyPoolParams } from '../../schemas/params.js';

const proxyPoolsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const Pool = Type.Ref(ProxyPoolSchema);

  app.post(
    '/api/v1/proxy-pools',
    {
      preHandler: async (req) => requireAdmin(principalOf(req)),
      schema: {
        tags: ['Proxy Pools'],
        summary: 'Create a proxy pool (admins only); the proxy URLs are sealed at rest and never returned',
        description:
          'Organization administrators only. The proxy URLs (which may carry credentials) are encrypted at rest and never returned; a start picks one per Run.',
        operationId: 'createProxyPool',
        body: CreateProxyPoolBody,
        response: { 201: Pool, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) => reply.code(201).send(await app.proxyPools.create(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/proxy-pools',
    {
      schema: {
        tags: ['Proxy Pools'],
        summary: "List the organization's proxy pools",
        description: "The organization's proxy pools with their names and proxy counts, never the proxy URLs.",
        operationId: 'listProxyPools',
        response: { 200: Type.Array(Pool), ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => app.proxyPools.list(principalOf(req)),
  );

  app.get(
    '/api/v1/proxy-pools/:proxyPoolId',
    {
      schema: {
        tags: ['Proxy Pools'],
        summary: 'Get a proxy pool',
        description: "A proxy pool of the caller's organization (404 otherwise), without its proxy URLs.",
        operationId: 'getProxyPool',
        params: ProxyPoolParams,
        response: { 200: Pool, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.proxyPools.get(principalOf(req), req.params.proxyPoolId),
  );
};
export default proxyPoolsRoutes;
