// Webhook jobs: the relay's tick (outbox -> event jobs), an event's fan-out, one delivery attempt; and
// the worker's side of the webhooks domain: its queue, the delivery service and the outbox listener.
import type { Job } from 'bullmq';
import { createWebhookDeliveryService, type WebhookDeliveryService } from '../services/webhooks/delivery.service.js';
import type { WebhooksCore } from '../services/webhooks/wiring.js';
import { createQueue, createWebhookQueue, type QueuePayloads } from '../queues/queues.js';
import type { JobDomain, WorkerContext } from './job-domain.js';
import { startOutboxListener } from './outbox-listener.js';

/** How often the relay looks at the outbox: the bound on commit-to-first-attempt latency it adds. */
export const WEBHOOK_RELAY_INTERVAL_MS = 500;

export const WEBHOOKS_WORKER_OPTIONS = {
  /** Attempts wait on receivers (up to 15 s each), not on the CPU. */
  concurrency: 20,
  // An attempt killed with its worker comes back after the stall check; the delivery row says
  // whether it was recorded, so the rerun sends at most once more (same webhook-id). The lock is
  // renewed every 5 s while the worker lives, so a 15 s attempt keeps it; a dead worker's attempt
  // is taken up again within about 15 s instead of BullMQ's default minute.
  lockDuration: 10_000,
  stalledInterval: 5_000,
  maxStalledCount: 5,
};

export function createWebhooksProcessor(deps: { delivery: WebhookDeliveryService }) {
  return async function process(job: Job<QueuePayloads['webhooks']>): Promise<void> {
    const d = job.data;
    if (d.kind === 'relay') await deps.delivery.relay();
    else if (d.kind === 'event') await deps.delivery.fanOut(d.eventId);
    else await deps.delivery.attempt(d.deliveryId, d.attempt);
  };
}

/** The relay (on a job scheduler and on each outbox notification) and the deliveries. */
export function wireWebhookJobs(ctx: WorkerContext, core: WebhooksCore): JobDomain {
  const queue = createQueue('webhooks', ctx.connection, ctx.prefix);
  const delivery = createWebhookDeliveryService({
    repo: core.repo,
    attempts: core.attempts,
    queue: createWebhookQueue(queue),
    clock: ctx.clock,
  });
  const outboxListener = startOutboxListener({
    databaseUrl: ctx.config.databaseUrl,
    relay: () => delivery.relay(),
    log: ctx.log,
  });
  return {
    queues: [queue],
    workers: [
      { queue: 'webhooks', processor: createWebhooksProcessor({ delivery }), options: WEBHOOKS_WORKER_OPTIONS },
    ],
    async declareSchedulers() {
      await queue.upsertJobScheduler(
        'webhook-relay',
        { every: WEBHOOK_RELAY_INTERVAL_MS },
        {
          name: 'relay',
          data: { kind: 'relay' },
          opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
        },
      );
    },
    stopFeeding: (step) => step('webhook outbox listener', () => outboxListener.close()),
    close: (step) => step('webhook sender', () => core.close()),
  };
}
