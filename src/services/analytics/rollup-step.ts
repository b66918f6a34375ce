// The settlement step of analytics (registered before billing's in src/services/settlement/index.ts):
// adds each settled Run to the hourly rollups the summaries read.
import type { Db } from '../../db/prisma.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import { createAnalyticsRepository } from './analytics.repository.js';

export function createAnalyticsRollupStep(db: Db): SettlementStep {
  const repo = createAnalyticsRepository(db);
  // In the settlement's last round trip, before the organization's debit lock (Run, Agent, rollups, then
  // the organization: every settlement takes them in this order). A Space's rollup rows are shared by all
  // of its Runs: written at the claim, they were held while the worker read the claim's answer and sent
  // the rest, and the Space's other Runs ending then waited for them.
  return {
    name: 'analytics-rollup',
    apply: (run) => ({ statement: repo.rollUpSql(run) }),
  };
}
