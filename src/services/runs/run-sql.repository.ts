// SQL shared by the runs domain's repositories: the Run row's type and the Agent's denormalised status.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';

export type RunRow = Awaited<ReturnType<Db['run']['findUniqueOrThrow']>>;

/** The Agent's denormalised status follows the Run moved by the CTE `from`: only its latest Run decides. */
export function touchAgentSql(from: string, at: Date): Prisma.Sql {
  const f = Prisma.raw(from);
  return Prisma.sql`
    UPDATE "Agent" a SET status = ${f}.status, "lastRunId" = ${f}.id, "lastActivity" = ${at.toISOString()}::timestamp, updated = ${new Date().toISOString()}::timestamp
    FROM ${f} WHERE a.id = ${f}."agentId" AND (a."lastRunId" IS NULL OR a."lastRunId" <= ${f}.id)`;
}

/**
 * The columns of an ended Run that its settlement's steps read (SettlementStep.apply gets only these),
 * with their SQL types: a settlement sent in one round trip checks that the Run it ended has these values.
 */
export const SETTLED_RUN_COLUMNS = {
  id: 'int',
  organizationId: 'int',
  agentId: 'int',
  created: 'timestamp',
  status: 'int',
  startTime: 'timestamp',
  endTime: 'timestamp',
  pageCount: 'int',
  recordsExtracted: 'int',
  recordsExported: 'int',
  errorCount: 'int',
  inputCount: 'int',
  traffic: 'bigint',
  proxyPoolId: 'int',
} as const;
export type SettledRun = Pick<RunRow, keyof typeof SETTLED_RUN_COLUMNS>;
const SETTLED_KEYS = Object.keys(SETTLED_RUN_COLUMNS) as Array<keyof SettledRun>;

/** The settled columns of `row` (what a settlement step may read of it). */
export function settledRunOf(row: SettledRun): SettledRun {
  const out = {} as Record<keyof SettledRun, unknown>;
  for (const k of SETTLED_KEYS) out[k] = row[k];
  return out as SettledRun;
}
