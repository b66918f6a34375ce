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

/** The settled columns of `row` (what a settlement step may read of it). Written out: one object shape. */
export function settledRunOf(row: SettledRun): SettledRun {
  return {
    id: row.id,
    organizationId: row.organizationId,
    agentId: row.agentId,
    created: row.created,
    status: row.status,
    startTime: row.startTime,
    endTime: row.endTime,
    pageCount: row.pageCount,
    recordsExtracted: row.recordsExtracted,
    recordsExported: row.recordsExported,
    errorCount: row.errorCount,
    inputCount: row.inputCount,
    traffic: row.traffic,
    proxyPoolId: row.proxyPoolId,
  };
}
