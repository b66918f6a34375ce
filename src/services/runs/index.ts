// Composition of the runs domain for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LocalStorage } from '../../engine/index.js';
import { createGroupQueues, createQueue, createRunScheduler, redisConnection } from '../../jobs/queues.js';
import { createCreditsRepository } from '../billing/credits.repository.js';
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
  const settlement = createSettlement(app.db, { clock: app.clock, log: app.log, config: app.config });
  const repo = createRunsRepository(app.db, { onTerminal: settlement.afterTerminal });
  // Runs of a server group live in that group's queue (stop removes their job there).
  const groupQueues = createGroupQueues(redisConnection(app.config.redisUrl), app.config.redisPrefix);
  const groups = { groupQueue: groupQueues.get, serverGroupOf: async (runId: number) => (await repo.findRun(runId))?.serverGroupId ?? null };
  const lazyScheduler: Pick<ReturnType<typeof createRunScheduler>, 'enqueueRun' | 'removeRun'> = {
    enqueueRun: (runId, attempt, delayMs) => createRunScheduler(runQueue(), groups).enqueueRun(runId, attempt, delayMs),
    removeRun: (runId, attempt) => createRunScheduler(runQueue(), groups).removeRun(runId, attempt),
  };
  app.decorate(
    'runs',
    createRunsService({
      repo,
      access: app.access,
      storage: new LocalStorage(app.config.storageDir),
      clock: app.clock,
      config: app.config,
      credits: createCreditsRepository(app.db),
      scheduler: lazyScheduler,
    }),
  );
  app.addHook('onClose', async () => {
    await queue?.close();
    await groupQueues.close();
  });
});
