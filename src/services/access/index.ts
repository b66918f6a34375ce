// Composition of the access-control module used by every resource route.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createAccessRepository } from './access.repository.js';
import { createAccessService, type AccessService } from './access.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    access: AccessService;
  }
}

export default fp(
  async function accessModule(app: FastifyInstance) {
    app.decorate('access', createAccessService({ repo: createAccessRepository(app.db) }));
  },
  { name: 'access', dependencies: ['infra'] },
);
