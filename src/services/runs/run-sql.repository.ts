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
