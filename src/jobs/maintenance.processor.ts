// Periodic housekeeping: purge refresh tokens a week after they expire; reconcile Runs whose worker
// was lost and Runs whose wait-on-failure is over.
import type { Job } from 'bullmq';
import type { Db } from '../db/prisma.js';
import type { Clock } from '../lib/clock.js';
import type { RunExecutionService } from '../services/runs/execution.service.js';
import type { QueuePayloads } from './queues.js';

export function createMaintenanceProcessor(deps: { db: Db; clock: Clock; execution: Pick<RunExecutionService, 'reconcile'> }) {
  return async function processMaintenance(job: Job<QueuePayloads['maintenance']>) {
    switch (job.data.task) {
      case 'purge-expired-tokens': {
        const cutoff = new Date(deps.clock.now().getTime() - 7 * 86_400_000);
        const res = await deps.db.refreshToken.deleteMany({ where: { expiresAt: { lt: cutoff } } });
        return { purged: res.count };
      }
      case 'reconcile-runs':
        return deps.execution.reconcile();
    }
  };
}
