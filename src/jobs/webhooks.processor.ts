// Webhook jobs: the relay's tick (outbox -> event jobs), an event's fan-out, one delivery attempt.
import type { Job } from 'bullmq';
import type { WebhookDeliveryService } from '../services/webhooks/delivery.service.js';
import type { QueuePayloads } from '../queues/queues.js';

/** How often the relay looks at the outbox: the bound on commit-to-first-attempt latency it adds. */
export const WEBHOOK_RELAY_INTERVAL_MS = 500;
/** Attempts wait on receivers (up to 15 s each), not on the CPU. */
export const WEBHOOK_WORKER_CONCURRENCY = 20;

export function createWebhooksProcessor(deps: { delivery: WebhookDeliveryService }) {
  return async function process(job: Job<QueuePayloads['webhooks']>): Promise<void> {
    const d = job.data;
    if (d.kind === 'relay') await deps.delivery.relay();
    else if (d.kind === 'event') await deps.delivery.fanOut(d.eventId);
    else await deps.delivery.attempt(d.deliveryId, d.attempt);
  };
}
