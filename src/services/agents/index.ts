// Composition of the agents domain for the API process: `app.agents`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createProxyPoolsRepository } from '../proxy-pools/proxy-pools.repository.js';
import { createProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createAgentsRepository } from './agents.repository.js';
import { createAgentsService, type AgentsService } from './agents.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    agents: AgentsService;
  }
}

// Registered after the access module, whose service it uses for every decision.
export default fp(
  async function agentsModule(app: FastifyInstance) {
    app.decorate(
      'agents',
      createAgentsService({
        repo: createAgentsRepository(app.db),
        access: app.access,
        proxyPools: createProxyPoolOwnership(createProxyPoolsRepository(app.db)),
        clock: app.clock,
        config: app.config,
      }),
    );
  },
  { name: 'agents', dependencies: ['infra', 'access'] },
);
