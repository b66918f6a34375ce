// Composition of analytics for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createAnalyticsRepository } from './analytics.repository.js';
import { createAnalyticsService, type AnalyticsService } from './analytics.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    analytics: AnalyticsService;
  }
}

export default fp(
  async function analyticsModule(app: FastifyInstance) {
    app.decorate(
      'analytics',
      createAnalyticsService({ repo: createAnalyticsRepository(app.db), access: app.access, clock: app.clock }),
    );
  },
  { name: 'analytics', dependencies: ['infra', 'access'] },
);
