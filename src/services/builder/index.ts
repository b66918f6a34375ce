// Composition of the Agent Builder for the API process: `app.builder`. The queue and the
// subscriber connection open on first use.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createBuilderScheduler, createQueue, redisConnection, withTimeout } from '../../queues/queues.js';
import { createProxyPoolsRepository } from '../proxy-pools/proxy-pools.repository.js';
import { createProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { createBuilderRepository } from './builder.repository.js';
import { createBuilderService, type BuilderService } from './builder.service.js';
import { createEventsPublisher, createEventsSubscriber } from './events-bus.js';

declare module 'fastify' {
  interface FastifyInstance {
    builder: BuilderService;
  }
}

// Registered after the access and agents modules, whose services it uses.
export default fp(
  async function builderModule(app: FastifyInstance) {
    // Like the run queue: it connects on first use, and its connection fails fast (no offline queue,
    // short timeouts), so a request never hangs on Redis; a lost connection is logged, not thrown.
    let queue: ReturnType<typeof createQueue<'builder'>> | undefined;
    const timeoutMs = app.config.runs.queueTimeoutMs;
    const builderQueue = () => {
      if (!queue) {
        queue = createQueue(
          'builder',
          redisConnection(app.config.redisUrl, { producer: { timeoutMs } }),
          app.config.redisPrefix,
        );
        queue.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'builder queue: redis error'));
      }
      return queue;
    };
    const scheduler = () => createBuilderScheduler(builderQueue());
    const subscriber = createEventsSubscriber(app.config.redisUrl, app.config.redisPrefix, (err) =>
      app.log.warn({ err: { message: err.message } }, 'builder subscriber error'),
    );
    app.decorate(
      'builder',
      createBuilderService({
        repo: createBuilderRepository(app.db),
        access: app.access,
        agents: app.agents,
        proxyPools: createProxyPoolOwnership(createProxyPoolsRepository(app.db)),
        queue: {
          enqueueStep: (sessionId, step) => scheduler().enqueueStep(sessionId, step),
          removeStep: (sessionId, step) => scheduler().removeStep(sessionId, step),
        },
        publisher: createEventsPublisher(app.redis, app.config.redisPrefix),
        subscriber,
        clock: app.clock,
        config: app.config,
      }),
    );
    // In-flight long polls answer at once, so closing does not wait for them.
    app.addHook('preClose', async () => subscriber.releaseAll());
    app.addHook('onClose', async () => {
      const q = queue;
      // A queue whose connection is down may never finish closing (see the runs module): then drop it.
      await withTimeout(q?.close() ?? Promise.resolve(), timeoutMs, 'closing the builder queue').catch(
        () => void q?.disconnect().catch(() => {}),
      );
      await subscriber.close();
    });
  },
  { name: 'builder', dependencies: ['infra', 'access', 'agents'] },
);
