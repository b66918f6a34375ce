// Composition of the spaces domain for the API process: `app.spaces`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createSpacesRepository } from './spaces.repository.js';
import { createSpacesService, type SpacesService } from './spaces.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    spaces: SpacesService;
  }
}

// Registered after the access module, whose service it uses for every decision.
export default fp(
  async function spacesModule(app: FastifyInstance) {
    app.decorate(
      'spaces',
      createSpacesService({ repo: createSpacesRepository(app.db), access: app.access, clock: app.clock }),
    );
  },
  { name: 'spaces', dependencies: ['infra', 'access'] },
);
