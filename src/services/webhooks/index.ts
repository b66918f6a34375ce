// Composition of the webhooks domain for the API process (the worker adds the relay and the
// deliveries in src/jobs/webhooks.processor.ts). The API sends only the on-request test event.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createWebhooksService, type WebhooksService } from './webhooks.service.js';
import { wireWebhooksCore } from './wiring.js';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhooksService;
  }
}

export default fp(
  async function webhooksModule(app: FastifyInstance) {
    const { repo, attempts, close } = wireWebhooksCore(app.db, { config: app.config, clock: app.clock });
    app.decorate(
      'webhooks',
      createWebhooksService({
        repo,
        attempts,
        clock: app.clock,
        encryptionKey: app.config.encryptionKey,
        targets: { allowPrivateTargets: app.config.engineAllowPrivateTargets },
      }),
    );
    app.addHook('onClose', close);
  },
  { name: 'webhooks', dependencies: ['infra'] },
);
