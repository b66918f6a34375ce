// Composition of the proxy-pools domain.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createProxyPoolsRepository } from './proxy-pools.repository.js';
import { createProxyPoolsService, type ProxyPoolsService } from './proxy-pools.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    proxyPools: ProxyPoolsService;
  }
}

export default fp(
  async function proxyPoolsModule(app: FastifyInstance) {
    app.decorate(
      'proxyPools',
      createProxyPoolsService({ repo: createProxyPoolsRepository(app.db), config: app.config }),
    );
  },
  { name: 'proxy-pools', dependencies: ['infra'] },
);
