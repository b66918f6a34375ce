// The `builder` queue processor: runs one Agent Builder step, aborting its page requests and preview
// extraction as soon as the session is stopped (heard on the sessions channel, not polled).
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { warmPageWorker } from '../engine/index.js';
import { createQueue, type QueuePayloads } from '../queues/queues.js';
import { createBuilderRepository, type BuilderRepository } from '../services/builder/builder.repository.js';
import { createBuilderWorkService, type BuilderWorkService } from '../services/builder/builder-work.service.js';
import {
  createEventsPublisher,
  createEventsSubscriber,
  type EventsSubscriber,
} from '../services/builder/events-bus.js';
import { SessionStatus } from '../services/builder/session-state.js';
import type { WebhooksRepository } from '../services/webhooks/webhooks.repository.js';
import type { JobDomain, WorkerContext } from './job-domain.js';

export function createBuilderProcessor(deps: {
  work: Pick<BuilderWorkService, 'runStep'>;
  subscriber: Pick<EventsSubscriber, 'listen'>;
}) {
  const running = new Map<string, AbortController>();
  const listening = deps.subscriber.listen((signal) => {
    if (signal.status === SessionStatus.Cancelled) running.get(signal.sessionId)?.abort(new Error('session stopped'));
  });
  // Awaited by each job (which then fails and is logged); a worker closed while still subscribing
  // must not end in an unhandled rejection.
  listening.catch(() => {});

  return async function processBuilderStep(job: Job<QueuePayloads['builder']>): Promise<{ status: string }> {
    await listening;
    const { sessionId, step } = job.data;
    const controller = new AbortController();
    running.set(sessionId, controller);
    try {
      return { status: await deps.work.runStep(sessionId, step, controller.signal) };
    } finally {
      if (running.get(sessionId) === controller) running.delete(sessionId);
    }
  };
}

/** The Agent Builder's steps, on their own queue; stops are heard on the sessions channel. */
export function wireBuilderJobs(
  ctx: WorkerContext,
  deps: { outbox: WebhooksRepository },
): JobDomain & { repo: BuilderRepository } {
  const { config, log } = ctx;
  const repo = createBuilderRepository(ctx.db);
  const publisherRedis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  publisherRedis.on('error', (err) => log.warn({ err: { message: err.message } }, 'builder redis error'));
  const subscriber = createEventsSubscriber(config.redisUrl, config.redisPrefix, (err) =>
    log.warn({ err: { message: err.message } }, 'builder subscriber error'),
  );
  // Each draft's preview parses its page on the engine's page thread: started now, so that the first
  // session does not wait seconds for the thread to load its modules.
  warmPageWorker();
  const work = createBuilderWorkService({
    repo,
    publisher: createEventsPublisher(publisherRedis, config.redisPrefix),
    outbox: deps.outbox,
    clock: ctx.clock,
    config,
  });
  return {
    repo,
    queues: [createQueue('builder', ctx.connection, ctx.prefix)],
    workers: [
      {
        queue: 'builder',
        processor: createBuilderProcessor({ work, subscriber }),
        options: { concurrency: config.builder.workerConcurrency },
      },
    ],
    async close(step) {
      await step('builder subscriber', () => subscriber.close());
      await step('builder publisher', () => publisherRedis.quit());
    },
  };
}
