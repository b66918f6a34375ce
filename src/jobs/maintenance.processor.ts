// Periodic housekeeping: purge refresh tokens a week after they expire; reconcile Runs whose worker
// was lost and Runs whose wait-on-failure is over; delete Agent Builder sessions nobody touched for
// BUILDER_SESSION_RETENTION_DAYS.
import type { Job } from 'bullmq';
import type { Clock } from '../lib/clock.js';
import type { BuilderRepository } from '../services/builder/builder.repository.js';
import type { IdentityRepository } from '../services/identity/identity.repository.js';
import type { RunExecutionService } from '../services/runs/execution.service.js';
import type { QueuePayloads } from './queues.js';

export function createMaintenanceProcessor(deps: {
  identity: Pick<IdentityRepository, 'purgeRefreshTokensExpiredBefore'>;
  clock: Clock;
  execution: Pick<RunExecutionService, 'reconcile'>;
  builder: Pick<BuilderRepository, 'purgeUpdatedBefore'>;
  builderRetentionDays: number;
}) {
  return async function processMaintenance(job: Job<QueuePayloads['maintenance']>) {
    switch (job.data.task) {
      case 'purge-expired-tokens': {
        const cutoff = new Date(deps.clock.now().getTime() - 7 * 86_400_000);
        const res = await deps.identity.purgeRefreshTokensExpiredBefore(cutoff);
        return { purged: res.count };
      }
      case 'reconcile-runs':
        return deps.execution.reconcile();
      case 'purge-builder-sessions': {
        const cutoff = new Date(deps.clock.now().getTime() - deps.builderRetentionDays * 86_400_000);
        const res = await deps.builder.purgeUpdatedBefore(cutoff);
        return { purged: res.count };
      }
    }
  };
}
