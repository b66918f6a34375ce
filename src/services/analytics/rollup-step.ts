// The settlement step of analytics (registered after billing's in src/services/settlement/index.ts):
// adds each settled Run to the hourly rollups the summaries read.
import type { Db } from '../../db/prisma.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import { createAnalyticsRepository } from './analytics.repository.js';

export function createAnalyticsRollupStep(db: Db): SettlementStep {
  const repo = createAnalyticsRepository(db);
  // Done by the statement that claims the Run: no round trip of its own, and before the organization's
  // debit lock is taken (the rollup's rows are its Agent's and Space's hour), so that lock is held shorter.
  return {
    name: 'analytics-rollup',
    atClaim: (claimed) => ({ write: repo.rollUpSql(claimed) }),
    apply: () => {},
  };
}
