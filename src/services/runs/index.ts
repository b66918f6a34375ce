// Composition of the runs domain for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LocalStorage } from '../../engine/index.js';
import { createQueue, createRunScheduler, redisConnection } from '../../jobs/queues.js';
import { createRunSignals } from '../../jobs/run-signals.js';
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
  // Its connection fails fast (no offline queue, short timeouts): a start never hangs on Redis.
  let queue: ReturnType<typeof createQueue<'runs'>> | undefined;
  const timeoutMs = app.config.runs.queueTimeoutMs;
  const runQueue = () => {
    if (!queue) {
      queue = createQueue('runs', redisConnection(app.config.redisUrl, { producer: { timeoutMs } }), app.config.redisPrefix);
      queue.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'run queue: redis error'));
    }
    return queue;
  };
  const scheduler = () => createRunScheduler(runQueue(), { timeoutMs });
  const lazyScheduler = {
    enqueueRun: (runId: number, attempt: number, delayMs?: number) => scheduler().enqueueRun(runId, attempt, delayMs),
    removeRun: (runId: number, attempt: number) => scheduler().removeRun(runId, attempt),
  };
  const settlement = createSettlement(app.db, { clock: app.clock, log: app.log, config: app.config });
  // Stop and kill reach the worker, and a Run's end the waiting request, over Redis pub/sub.
  const signals = createRunSignals(app.config.redisUrl, app.config.redisPrefix, { timeoutMs, log: app.log });
  app.decorate(
    'runs',
    createRunsService({
      repo: createRunsRepository(app.db, {
        onTerminal: async (run) => {
          await settlement.afterTerminal(run);
          await signals.publish(run.id, 'ended');
        },
      }),
      access: app.access,
      storage: new LocalStorage(app.config.storageDir),
      clock: app.clock,
      config: app.config,
      credits: createCreditsRepository(app.db),
      scheduler: lazyScheduler,
      signals,
    }),
  );
  app.addHook('onClose', async () => {
    // QUIT fails on a connection that is down (no offline queue): then just drop it.
    await queue?.close().catch(() => queue?.disconnect());
    await signals.close();
  });
});
