// Composition of the runs domain for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LocalStorage } from '../../engine/index.js';
import { createQueue, createRunScheduler, redisConnection } from '../../jobs/queues.js';
import { createCreditsRepository } from '../billing/credits.repository.js';
import { createProxyPoolsRepository } from '../proxy-pools/proxy-pools.repository.js';
import { createProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createSettlement } from '../settlement/index.js';
import { createRunsRepository } from './runs.repository.js';
import { createRunsService, type RunsService } from './runs.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    runs: RunsService;
  }
}

export default fp(async function runsModule(app: FastifyInstance) {
  // The queue connects on first use: an API instance that never starts a Run opens no connection.
  let queue: ReturnType<typeof createQueue<'runs'>> | undefined;
  const runQueue = () => (queue ??= createQueue('runs', redisConnection(app.config.redisUrl), app.config.redisPrefix));
  const lazyScheduler: ReturnType<typeof createRunScheduler> = {
    enqueueRun: (runId, attempt, delayMs) => createRunScheduler(runQueue()).enqueueRun(runId, attempt, delayMs),
    removeRun: (runId, attempt) => createRunScheduler(runQueue()).removeRun(runId, attempt),
  };
  const settlement = createSettlement(app.db, { clock: app.clock, log: app.log, config: app.config });
  app.decorate(
    'runs',
    createRunsService({
      repo: createRunsRepository(app.db, { onTerminal: settlement.afterTerminal }),
      access: app.access,
      storage: new LocalStorage(app.config.storageDir),
      clock: app.clock,
      config: app.config,
      credits: createCreditsRepository(app.db),
      proxyPools: createProxyPoolOwnership(createProxyPoolsRepository(app.db)),
      scheduler: lazyScheduler,
    }),
  );
  app.addHook('onClose', async () => {
    await queue?.close();
  });
});
