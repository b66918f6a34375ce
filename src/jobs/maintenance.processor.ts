// Periodic housekeeping: purge refresh tokens a week after they expire; reconcile Runs whose worker
// was lost and Runs whose wait-on-failure is over; settle terminal Runs whose settlement failed;
// record the expiry of credit grants whose expiresAt has passed; sweep orphaned Run files; delete
// Agent Builder sessions nobody touched for BUILDER_SESSION_RETENTION_DAYS; purge webhook deliveries
// finished more than WEBHOOK_DELIVERY_RETENTION_DAYS ago.
import type { Job } from 'bullmq';
import type { Clock } from '../lib/clock.js';
import type { BuilderRepository } from '../services/builder/builder.repository.js';
import type { IdentityRepository } from '../services/identity/identity.repository.js';
import type { SweepOrphanFiles } from '../services/runs/orphan-files.js';
import type { Reconcile } from '../services/runs/reconciler.js';
import type { SettlementService } from '../services/settlement/settlement.service.js';
import type { CreditExpiry } from '../services/billing/billing.service.js';
import type { WebhooksRepository } from '../services/webhooks/webhooks.repository.js';
import type { QueuePayloads } from '../queues/queues.js';

/** Delivery logs are kept at least this long (7 days, so a failure can still be looked into). */
export const WEBHOOK_DELIVERY_RETENTION_DAYS = 7;

export function createMaintenanceProcessor(deps: {
  identity: Pick<IdentityRepository, 'purgeRefreshTokensExpiredBefore'>;
  clock: Clock;
  reconcile: Reconcile;
  /** The periodic reconcile's interval: Runs pending for less than this are left to the next pass. */
  reconcileIntervalMs: number;
  sweepOrphanFiles: SweepOrphanFiles;
  settlement: Pick<SettlementService, 'settlePending'>;
  creditExpiry: CreditExpiry;
  builder: Pick<BuilderRepository, 'purgeUpdatedBefore'>;
  builderRetentionDays: number;
  webhooks: Pick<WebhooksRepository, 'purge'>;
}) {
  return async function processMaintenance(job: Job<QueuePayloads['maintenance']>) {
    switch (job.data.task) {
      case 'purge-expired-tokens': {
        const cutoff = new Date(deps.clock.now().getTime() - 7 * 86_400_000);
        const res = await deps.identity.purgeRefreshTokensExpiredBefore(cutoff);
        return { purged: res.count };
      }
      case 'reconcile-runs':
        return deps.reconcile({ pendingForMs: deps.reconcileIntervalMs });
      case 'settle-runs':
        return deps.settlement.settlePending();
      case 'expire-credits':
        return deps.creditExpiry.expireGrants();
      case 'sweep-orphan-files':
        return deps.sweepOrphanFiles();
      case 'purge-builder-sessions': {
        const cutoff = new Date(deps.clock.now().getTime() - deps.builderRetentionDays * 86_400_000);
        const res = await deps.builder.purgeUpdatedBefore(cutoff);
        return { purged: res.count };
      }
      case 'purge-webhook-deliveries': {
        const cutoff = new Date(deps.clock.now().getTime() - WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400_000);
        return { purged: await deps.webhooks.purge(cutoff) };
      }
    }
  };
}
