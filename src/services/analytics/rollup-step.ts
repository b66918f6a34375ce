// The settlement step of analytics (registered after billing's in src/services/settlement/index.ts):
// adds each settled Run to the hourly rollups the summaries read.
import type { Db } from '../../db/prisma.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import { createAnalyticsRepository } from './analytics.repository.js';

export function createAnalyticsRollupStep(db: Db): SettlementStep {
  const repo = createAnalyticsRepository(db);
  return { name: 'analytics-rollup', apply: (tx, run) => repo.rollUp(tx, run) };
}
