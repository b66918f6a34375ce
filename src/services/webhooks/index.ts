// Composition of the webhooks domain for the API process (the worker composes its side in
// src/jobs/webhooks.processor.ts). The API sends only the on-request test event.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { recordDeliveryAttempt } from './delivery-metrics.js';
import { createWebhookDeliveryService } from './delivery.service.js';
import { createWebhookSender } from './sender.js';
import { createWebhooksRepository } from './webhooks.repository.js';
import { createWebhooksService, type WebhooksService } from './webhooks.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhooksService;
  }
}

export default fp(
  async function webhooksModule(app: FastifyInstance) {
    const repo = createWebhooksRepository(app.db);
    const sender = createWebhookSender({
      allowPrivateTargets: app.config.engineAllowPrivateTargets,
      timeoutMs: app.config.webhookAttemptTimeoutMs,
    });
    const noQueue = {
      enqueueEvents: () => Promise.reject(new Error('the API does not relay webhook events')),
      enqueueAttempts: () => Promise.reject(new Error('the API does not enqueue webhook deliveries')),
    };
    const delivery = createWebhookDeliveryService({
      repo,
      sender,
      queue: noQueue,
      clock: app.clock,
      encryptionKey: app.config.encryptionKey,
      onAttempt: recordDeliveryAttempt,
    });
    app.decorate(
      'webhooks',
      createWebhooksService({
        repo,
        delivery,
        clock: app.clock,
        encryptionKey: app.config.encryptionKey,
        targets: { allowPrivateTargets: app.config.engineAllowPrivateTargets },
      }),
    );
    app.addHook('onClose', async () => sender.close());
  },
  { name: 'webhooks', dependencies: ['infra'] },
);
