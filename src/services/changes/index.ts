// Composition of change tracking for the API process: `app.changes` (the reset of an Agent's state).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createChangesRepository } from './changes.repository.js';
import { createChangesService, type ChangesService } from './changes.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    changes: ChangesService;
  }
}

// Registered after the access module, whose service it uses for every decision.
export default fp(
  async function changesModule(app: FastifyInstance) {
    app.decorate('changes', createChangesService({ repo: createChangesRepository(app.db), access: app.access }));
  },
  { name: 'changes', dependencies: ['infra', 'access'] },
);
