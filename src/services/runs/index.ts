// Composition of the runs domain for the API process.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import fp from 'fastify-plugin';
import { createStorage } from '../../storage/index.js';
import { createQueue, redisConnection, withTimeout } from '../../queues/queues.js';
import { createRunSignals } from '../../queues/run-signals.js';
import { anyWorkerCanRender } from '../../queues/worker-capabilities.js';
import { createProxyPoolsRepository } from '../proxy-pools/proxy-pools.repository.js';
import { createProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createRunsService, type RunsService } from './runs.service.js';
import { wireRunsCore } from './wiring.js';

declare module 'fastify' {
  interface FastifyInstance {
    runs: RunsService;
  }
}

export default fp(
  async function runsModule(app: FastifyInstance) {
    // The queue connects on first use: an API instance that never starts a Run opens no connection.
    // Its connection fails fast (no offline queue, short timeouts): a start never hangs on Redis.
    let queue: ReturnType<typeof createQueue<'runs'>> | undefined;
    const timeoutMs = app.config.runs.queueTimeoutMs;
    const producer = () => redisConnection(app.config.redisUrl, { producer: { timeoutMs } });
    const runQueue = () => {
      if (!queue) {
        queue = createQueue('runs', producer(), app.config.redisPrefix);
        queue.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'run queue: redis error'));
      }
      return queue;
    };
    // Stop and kill reach the worker, and a Run's end the waiting request, over Redis pub/sub.
    const signals = createRunSignals(app.config.redisUrl, app.config.redisPrefix, { timeoutMs, log: app.log });
    const { repo, groupQueues, scheduler } = wireRunsCore(app.db, {
      clock: app.clock,
      log: app.log,
      config: app.config,
      signals,
      runQueue,
      connection: producer(),
      timeoutMs,
    });
    const lazyScheduler = {
      // Runs started through the API have no server group (only Schedules set one).
      enqueueRun: (runId: number, attempt: number, delayMs?: number) =>
        scheduler().enqueueRun(runId, attempt, delayMs, null),
      removeRun: (runId: number, attempt: number) => scheduler().removeRun(runId, attempt),
    };
    app.decorate(
      'runs',
      createRunsService({
        repo,
        access: app.access,
        storage: createStorage(app.config.storage),
        clock: app.clock,
        config: app.config,
        proxyPools: createProxyPoolOwnership(createProxyPoolsRepository(app.db)),
        scheduler: lazyScheduler,
        signals,
        // The queue's client is an ioredis connection (bullmq types it narrowly).
        canRender: async () =>
          anyWorkerCanRender((await runQueue().client) as unknown as Pick<Redis, 'exists'>, app.config.redisPrefix),
      }),
    );
    app.addHook('onClose', async () => {
      // QUIT fails on a connection that is down (no offline queue), and a queue whose connection is
      // still recovering from an outage may never finish closing: then just drop it.
      const q = queue;
      // (Disconnecting is not awaited either: it waits for the same connection.)
      await withTimeout(q?.close() ?? Promise.resolve(), timeoutMs, 'closing the run queue').catch(
        () => void q?.disconnect().catch(() => {}),
      );
      await withTimeout(groupQueues.close(), timeoutMs, 'closing the server group queues').catch(() => {});
      await signals.close();
    });
  },
  { name: 'runs', dependencies: ['infra', 'access'] },
);
