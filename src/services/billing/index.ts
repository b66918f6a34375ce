// Composition of the billing domain for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createBillingService, type BillingService } from './billing.service.js';
import { createCreditsRepository } from './credits.repository.js';
import { createUsageRepository } from './usage.repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    billing: BillingService;
  }
}

export default fp(
  async function billingModule(app: FastifyInstance) {
    app.decorate(
      'billing',
      createBillingService({
        credits: createCreditsRepository(app.db),
        usage: createUsageRepository(app.db),
        access: app.access,
        clock: app.clock,
        prices: app.config.billing.prices,
        lowCreditsDefault: app.config.billing.creditsLowThreshold,
      }),
    );
  },
  { name: 'billing', dependencies: ['infra', 'access'] },
);
