// Periodic housekeeping: purge refresh tokens a week after they expire; reconcile Runs whose worker
// was lost and Runs whose wait-on-failure is over; settle terminal Runs whose settlement failed;
// record the expiry of credit grants whose expiresAt has passed; sweep orphaned Run files; delete
// Agent Builder sessions nobody touched for BUILDER_SESSION_RETENTION_DAYS; purge webhook deliveries
// finished more than WEBHOOK_DELIVERY_RETENTION_DAYS ago.
import type { Job } from 'bullmq';
import type { Clock } from '../lib/clock.js';
import { createCreditExpiry, type CreditExpiry } from '../services/billing/billing.service.js';
import type { CreditsRepository } from '../services/billing/credits.repository.js';
import type { BuilderRepository } from '../services/builder/builder.repository.js';
import { createIdentityRepository, type IdentityRepository } from '../services/identity/identity.repository.js';
import { createOrphanFileSweep, type SweepOrphanFiles } from '../services/runs/orphan-files.js';
import type { Reconcile } from '../services/runs/reconciler.js';
import type { RunsRepository } from '../services/runs/runs.repository.js';
import type { SettlementService } from '../services/settlement/settlement.service.js';
import type { WebhooksRepository } from '../services/webhooks/webhooks.repository.js';
import type { Storage } from '../storage/index.js';
import { createQueue, type QueuePayloads } from '../queues/queues.js';
import type { JobDomain, WorkerContext } from './job-domain.js';

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

const HOUR_MS = 3_600_000;

/** Every maintenance task on its job scheduler, one task at a time. */
export function wireMaintenanceJobs(
  ctx: WorkerContext,
  deps: {
    reconcile: Reconcile;
    settlement: Pick<SettlementService, 'settlePending'>;
    runs: RunsRepository;
    storage: Storage;
    credits: CreditsRepository;
    builder: BuilderRepository;
    webhooks: WebhooksRepository;
  },
): JobDomain {
  const { config, clock } = ctx;
  const queue = createQueue('maintenance', ctx.connection, ctx.prefix);
  const reconcileIntervalMs = config.runs.reconcileIntervalSeconds * 1000;
  // Every maintenance task and how often it runs (a task missing here fails to compile).
  const every: Record<QueuePayloads['maintenance']['task'], number> = {
    'purge-expired-tokens': HOUR_MS,
    'settle-runs': reconcileIntervalMs,
    'sweep-orphan-files': HOUR_MS,
    'reconcile-runs': reconcileIntervalMs,
    'expire-credits': config.billing.expiryIntervalSeconds * 1000,
    'purge-builder-sessions': HOUR_MS,
    'purge-webhook-deliveries': HOUR_MS,
  };
  const processor = createMaintenanceProcessor({
    identity: createIdentityRepository(ctx.db),
    clock,
    reconcile: deps.reconcile,
    reconcileIntervalMs,
    settlement: deps.settlement,
    sweepOrphanFiles: createOrphanFileSweep({ repo: deps.runs, storage: deps.storage }),
    creditExpiry: createCreditExpiry({ credits: deps.credits, clock }),
    builder: deps.builder,
    builderRetentionDays: config.builder.retentionDays,
    webhooks: deps.webhooks,
  });
  return {
    queues: [queue],
    workers: [{ queue: 'maintenance', processor, options: { concurrency: 1 } }],
    async declareSchedulers() {
      for (const [task, ms] of Object.entries(every) as Array<[keyof typeof every, number]>) {
        await queue.upsertJobScheduler(task, { every: ms }, { name: task, data: { task } });
      }
    },
  };
}
