// Composition of settlement, shared by the API process and the worker runtime: the steps that run
// exactly once per terminal Run, in this order, inside the transaction that claims it.
import type { Config } from '../../config.js';
import type { Db } from '../../db/prisma.js';
import type { Clock } from '../../lib/clock.js';
import { createBillingSettlementStep } from '../billing/billing.service.js';
import { createCreditsRepository } from '../billing/credits.repository.js';
import { createUsageRepository } from '../billing/usage.repository.js';
import { createAnalyticsRollupStep } from '../analytics/rollup-step.js';
import { createChangesSettlementStep } from '../changes/changes.service.js';
import { createWebhookSettlementStep } from '../webhooks/events.js';
import { createWebhooksRepository } from '../webhooks/webhooks.repository.js';
import { createSettlementRepository } from './settlement.repository.js';
import { createSettlementService, type SettlementLog, type SettlementStep } from './settlement.service.js';

/** The steps of every settlement, in their order (bench/settle.ts measures them one by one). */
export function settlementSteps(db: Db, config: Config): SettlementStep[] {
  return [
    // Analytics rollups first, then usage metering and the credit debit (billing): the rollup rows are
    // locked before the organization's row, in every settlement alike (no two wait for each other).
    createAnalyticsRollupStep(db),
    createBillingSettlementStep({
      credits: createCreditsRepository(db),
      usage: createUsageRepository(db),
      prices: config.billing.prices,
    }),
    // The Run's terminal webhook event (and credits.low) enters the outbox in the same transaction.
    createWebhookSettlementStep(createWebhooksRepository(db), config.billing.creditsLowThreshold),
    // A change-tracking Run's staged records become its Agent's state when it ended Success.
    createChangesSettlementStep(),
  ];
}

export function createSettlement(
  db: Db,
  deps: { clock: Clock; log: SettlementLog; config: Config },
  steps: readonly SettlementStep[] = settlementSteps(db, deps.config),
) {
  return createSettlementService({ repo: createSettlementRepository(db), steps, clock: deps.clock, log: deps.log });
}
export type { SettlementStep } from './settlement.service.js';
