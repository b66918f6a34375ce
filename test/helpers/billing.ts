// Helpers for billing tests: Runs ended through the service's own settlement (billing step included)
// at a chosen time, without a worker.
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/prisma.js';
import type { Clock } from '../../src/lib/clock.js';
import { createRunsRepository } from '../../src/services/runs/runs.repository.js';
import { createSettlement } from '../../src/services/settlement/index.js';
import { manualRunInput } from './run-input.js';

/** Only Agent Inputs cost anything (1 credit each): a Run's cost is its inputCount. */
export const INPUTS_ONLY_PRICES = {
  PRICE_SERVER_TIME_HOUR: '0',
  PRICE_EXPORT_GB: '0',
  PRICE_AGENT_INPUT: '1',
  PRICE_PROXY_DATA_GB: '0',
  PRICE_EXPORT_CPM: '0',
};

/** A queued Run created directly in the database (as a start would). */
export function queuedRun(db: Db, organizationId: number, agentId: number, at: Date) {
  return createRunsRepository(db).createRun(manualRunInput(organizationId, agentId), at);
}

/**
 * Stops a queued Run with `patch` (its statistics) and lets the settlement hook meter and debit it
 * at `clock.now()`. Returns the settlement warnings (none when it succeeded).
 */
export async function endRun(
  db: Db,
  env: Record<string, string>,
  clock: Clock,
  runId: number,
  patch: { inputCount: number; startTime?: Date; endTime?: Date },
  prices = INPUTS_ONLY_PRICES,
) {
  const warnings: string[] = [];
  const settlement = createSettlement(db, {
    clock,
    log: { warn: (o, msg) => warnings.push(`${msg} ${JSON.stringify(o)}`) },
    config: loadConfig({ ...env, ...prices }),
  });
  const repo = createRunsRepository(db, { settle: settlement.afterTerminal, settleMoving: settlement.settleMoving });
  await repo.transition(runId, { type: 'stop' }, clock.now());
  await repo.transition(runId, { type: 'stopped' }, clock.now(), { endTime: clock.now(), ...patch });
  return warnings;
}
