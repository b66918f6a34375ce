// Composition of the schedules domain for the API process: `app.schedules`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createProxyPoolsRepository } from '../proxy-pools/proxy-pools.repository.js';
import { createProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createSchedulesRepository } from './schedules.repository.js';
import { createSchedulesService, type SchedulesService } from './schedules.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    schedules: SchedulesService;
  }
}

export default fp(
  async function schedulesModule(app: FastifyInstance) {
    app.decorate(
      'schedules',
      createSchedulesService({
        repo: createSchedulesRepository(app.db),
        access: app.access,
        proxyPools: createProxyPoolOwnership(createProxyPoolsRepository(app.db)),
        clock: app.clock,
        config: app.config,
      }),
    );
  },
  { name: 'schedules', dependencies: ['infra', 'access'] },
);
