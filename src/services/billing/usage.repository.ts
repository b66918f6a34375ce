// Usage records, the per-Agent daily cost rollup (UsageDaily) and the billing reports over them.
import { Prisma as P } from '../../generated/prisma/client.js';
import type { Db } from '../../db/prisma.js';
import { Decimal, USAGE_COST_COLUMN, USAGE_TYPES, type UsageLine, type UsageType } from './metering.js';
import { startOfUtcWeek, type RangePart } from '../../lib/rollup-periods.js';
import { FAILED_PAGE_HTML_PREFIX } from '../../engine/run-log.js';

// Files that are not exports: the Run's log and the HTML of failed pages kept with it. Every other
// file counts, snapshots of pages (Html, Png) included.
const failedPageHtml = (f: { name: string; fileType: string }) =>
  f.fileType === 'Html' && f.name.startsWith(FAILED_PAGE_HTML_PREFIX);
const isExportFile = (f: { name: string; fileType: string }) => f.fileType !== 'Log' && !failedPageHtml(f);
const FAILED_PAGE_LIKE = `${FAILED_PAGE_HTML_PREFIX.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface AgentCostRow {
  agentId: number;
  agentName: string;
  spaceId: number;
  cost: Decimal;
}

export interface AgentsReportQuery {
  organizationId: number;
  /** null: every Space of the organization. */
  spaceIds: number[] | null;
  name: string | null;
  usageTypes: UsageType[];
  /** The range, split by splitForRollups. */
  parts: RangePart[];
  sort: { column: 'name' | 'cost'; descending: boolean };
  page: { offset: number; limit: number };
}

// Days travel as text so that no session time zone shifts them.
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createUsageRepository(db: Db) {
  return {
    /** Bytes of a Run's export files (everything but its log and kept HTML). */
    /** The same as an SQL value (bigint) for the Run whose id is `runId`, read along with another statement. */
    /** What exportBytesSql reads once the Run's files are these (and only these). */
    exportBytesOf(files: ReadonlyArray<{ name: string; fileType: string; fileSize: number }>): bigint {
      return files.reduce((n, f) => (isExportFile(f) ? n + BigInt(f.fileSize) : n), 0n);
    },

    exportBytesSql(runId: P.Sql): P.Sql {
      return P.sql`(SELECT COALESCE(SUM("fileSize"), 0)::bigint FROM "RunFile"
        WHERE "runId" = ${runId} AND "fileType" <> 'Log'
          AND NOT ("fileType" = 'Html' AND name LIKE ${FAILED_PAGE_LIKE}))`;
    },

    /**
     * The statement that writes a Run's usage records and adds their costs to the Agent's week, day and hour
     * (one round trip inside the settlement transaction). The unique key (runId, usageType) refuses
     * a second metering of the same Run. With `then` (CreditsRepository.debitSql), the statement also
     * debits the Run's cost: the settlement takes the organization's lock in the statement before it,
     * so this statement's snapshot sees every debit committed before it.
     */
    recordSql(
      run: { id: number; organizationId: number; agentId: number },
      lines: UsageLine[],
      at: Date,
      then?: { with: P.Sql; main: P.Sql },
    ): P.Sql {
      const rows = lines.map(
        (l) =>
          P.sql`(${run.organizationId}, ${run.agentId}, ${run.id}, ${l.usageType}, ${l.quantity.toString()}::numeric, ${l.unitPrice.toString()}::numeric, ${l.cost.toString()}::numeric, ${at})`,
      );
      const costOf = (t: UsageType) => (lines.find((l) => l.usageType === t)?.cost ?? new Decimal(0)).toString();
      const [st, eg, ai, pd, ec] = USAGE_TYPES.map(costOf);
      const total = lines.reduce((sum, l) => sum.plus(l.cost), new Decimal(0)).toString();
      const costs = P.sql`${run.organizationId}, ${st}::numeric, ${eg}::numeric, ${ai}::numeric, ${pd}::numeric, ${ec}::numeric, ${total}::numeric`;
      const add = (table: string) =>
        P.raw(`
          "serverTimeCost" = "${table}"."serverTimeCost" + EXCLUDED."serverTimeCost",
          "exportGbCost" = "${table}"."exportGbCost" + EXCLUDED."exportGbCost",
          "agentInputsCost" = "${table}"."agentInputsCost" + EXCLUDED."agentInputsCost",
          "proxyDataCost" = "${table}"."proxyDataCost" + EXCLUDED."proxyDataCost",
          "exportCpmCost" = "${table}"."exportCpmCost" + EXCLUDED."exportCpmCost",
          "totalCost" = "${table}"."totalCost" + EXCLUDED."totalCost"`);
      return P.sql`
        WITH records AS (
          INSERT INTO "UsageRecord" ("organizationId", "agentId", "runId", "usageType", quantity, "unitPrice", cost, created)
          VALUES ${P.join(rows)}
        ),
        daily AS (
          INSERT INTO "UsageDaily" ("agentId", "day", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
          VALUES (${run.agentId}, ${utcDay(at)}::date, ${costs})
          ON CONFLICT ("agentId", "day") DO UPDATE SET ${add('UsageDaily')}
        ),
        weekly AS (
          INSERT INTO "UsageWeekly" ("agentId", "week", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
          VALUES (${run.agentId}, ${utcDay(startOfUtcWeek(at))}::date, ${costs})
          ON CONFLICT ("agentId", "week") DO UPDATE SET ${add('UsageWeekly')}
        ),
        hourly AS (
          INSERT INTO "UsageHourly" ("agentId", "hour", "organizationId", "serverTimeCost", "exportGbCost", "agentInputsCost", "proxyDataCost", "exportCpmCost", "totalCost")
          VALUES (${run.agentId}, date_trunc('hour', ${at}::timestamp(3)), ${costs})
          ON CONFLICT ("agentId", "hour") DO UPDATE SET ${add('UsageHourly')}
        )${then ? P.sql`, ${then.with} ${then.main}` : P.sql` SELECT 1`}`;
    },

    /**
     * Cost per Agent in a range (whole weeks, days and hours from the rollups, partial edge hours from
     * the usage records) for the Agents that cost something in it, filtered, sorted and paged in the
     * database, with the count and total of every matching Agent.
     */
    async agentsReport(q: AgentsReportQuery): Promise<{ rows: AgentCostRow[]; total: number; totalCost: Decimal }> {
      // One column per row for all types (the rollups keep the total), else the chosen types' columns.
      const rollupCost = P.raw(
        q.usageTypes.length === USAGE_TYPES.length
          ? '"totalCost"'
          : q.usageTypes.map((t) => `"${USAGE_COST_COLUMN[t]}"`).join(' + '),
      );
      const o = q.organizationId;
      const parts = q.parts.map((p) => {
        switch (p.source) {
          case 'week':
            return P.sql`SELECT "agentId", ${rollupCost} AS cost FROM "UsageWeekly" WHERE "organizationId" = ${o} AND "week" >= ${utcDay(p.start)}::date AND "week" < ${utcDay(p.end)}::date`;
          case 'day':
            return P.sql`SELECT "agentId", ${rollupCost} AS cost FROM "UsageDaily" WHERE "organizationId" = ${o} AND "day" >= ${utcDay(p.start)}::date AND "day" < ${utcDay(p.end)}::date`;
          case 'hour':
            return P.sql`SELECT "agentId", ${rollupCost} AS cost FROM "UsageHourly" WHERE "organizationId" = ${o} AND "hour" >= ${p.start}::timestamp(3) AND "hour" < ${p.end}::timestamp(3)`;
          case 'record':
            return P.sql`SELECT "agentId", cost FROM "UsageRecord" WHERE "organizationId" = ${o} AND created >= ${p.start}::timestamp(3) AND created < ${p.end}::timestamp(3) AND "usageType" IN (${P.join(q.usageTypes)})`;
        }
      });
      // The Agent filters narrow the rollup rows before they are summed (a member's Spaces, a name).
      const filters: P.Sql[] = [];
      if (q.spaceIds) filters.push(q.spaceIds.length > 0 ? P.sql`"spaceId" IN (${P.join(q.spaceIds)})` : P.sql`FALSE`);
      if (q.name) filters.push(P.sql`name ILIKE ${likePattern(q.name)}`);
      const only =
        filters.length > 0
          ? P.sql`WHERE u."agentId" IN (SELECT id FROM "Agent" WHERE "organizationId" = ${o} AND ${P.join(filters, ' AND ')})`
          : P.empty;
      const matching = P.sql`
        WITH c AS (
          SELECT u."agentId", SUM(u.cost) AS cost FROM (${P.join(parts, ' UNION ALL ')}) u
          ${only}
          GROUP BY u."agentId" HAVING SUM(u.cost) > 0
        ),
        m AS (
          SELECT a.id AS "agentId", a.name AS "agentName", a."spaceId" AS "spaceId", c.cost AS cost
          FROM c JOIN "Agent" a ON a.id = c."agentId"
        )`;
      const dir = P.raw(q.sort.descending ? 'DESC' : 'ASC');
      const order =
        q.sort.column === 'cost'
          ? P.sql`m.cost ${dir}, m."agentId" ${dir}`
          : P.sql`m."agentName" ${dir}, m."agentId" ${dir}`;
      // Window aggregates are computed before LIMIT: every row carries the totals of all matches.
      // The hot read of the billing report (up to 1000 rows): on the pool, without Prisma's per-row cost.
      const rows = await db.$rows<AgentCostRow & { total: bigint; totalCost: Decimal }>(P.sql`
        ${matching}
        SELECT m.*, COUNT(*) OVER () AS total, SUM(m.cost) OVER () AS "totalCost"
        FROM m ORDER BY ${order} LIMIT ${q.page.limit} OFFSET ${q.page.offset}`);
      if (rows.length > 0) {
        return {
          rows: rows.map(({ total: _t, totalCost: _c, ...r }) => r),
          total: Number(rows[0].total),
          totalCost: new Decimal(rows[0].totalCost),
        };
      }
      // A page past the end: the totals still count.
      const [t] = await db.$rows<{ total: bigint; totalCost: Decimal | null }>(
        P.sql`${matching} SELECT COUNT(*) AS total, SUM(m.cost) AS "totalCost" FROM m`,
      );
      return { rows: [], total: Number(t.total), totalCost: new Decimal(t.totalCost ?? 0) };
    },

    /** An Agent's cost per UTC day and usage type in [from, to). */
    costByDay(agentId: number, from: Date, to: Date, usageTypes: UsageType[]) {
      return db.$queryRaw<Array<{ day: Date; usageType: UsageType; cost: Decimal }>>`
        SELECT date_trunc('day', created) AS day, "usageType", SUM(cost) AS cost FROM "UsageRecord"
        WHERE "agentId" = ${agentId} AND created >= ${from} AND created < ${to} AND "usageType" IN (${P.join(usageTypes)})
        GROUP BY 1, 2`;
    },

    /** An Agent's Runs with usage in [from, to): cost per Run, sorted and paged, with the totals of all. */
    async runsReport(q: {
      agentId: number;
      from: Date;
      to: Date;
      usageTypes: UsageType[];
      sort: { column: 'date' | 'cost' | 'duration'; descending: boolean };
      page: { offset: number; limit: number };
    }) {
      const matching = P.sql`
        WITH r AS (
          SELECT u."runId", SUM(u.cost) AS cost, MIN(u.created) AS date FROM "UsageRecord" u
          WHERE u."agentId" = ${q.agentId} AND u.created >= ${q.from} AND u.created < ${q.to} AND u."usageType" IN (${P.join(q.usageTypes)}) AND u."runId" IS NOT NULL
          GROUP BY u."runId"
        ),
        m AS (
          SELECT r."runId", r.cost, r.date, run."startTime", run."endTime",
                 COALESCE(EXTRACT(EPOCH FROM run."endTime" - run."startTime"), 0) AS duration
          FROM r JOIN "Run" run ON run.id = r."runId"
        )`;
      const dir = P.raw(q.sort.descending ? 'DESC' : 'ASC');
      const column = P.raw({ date: 'm.date', cost: 'm.cost', duration: 'm.duration' }[q.sort.column]);
      type Row = { runId: number; cost: Decimal; date: Date; startTime: Date | null; endTime: Date | null };
      const rows = await db.$queryRaw<Array<Row & { total: bigint; totalCost: Decimal }>>`
        ${matching}
        SELECT m."runId", m.cost, m.date, m."startTime", m."endTime", COUNT(*) OVER () AS total, SUM(m.cost) OVER () AS "totalCost"
        FROM m ORDER BY ${column} ${dir}, m."runId" ${dir} LIMIT ${q.page.limit} OFFSET ${q.page.offset}`;
      if (rows.length > 0) {
        return {
          rows: rows.map(({ total: _t, totalCost: _c, ...r }) => r),
          total: Number(rows[0].total),
          totalCost: new Decimal(rows[0].totalCost),
        };
      }
      const [t] = await db.$queryRaw<
        Array<{ total: bigint; totalCost: Decimal | null }>
      >`${matching} SELECT COUNT(*) AS total, SUM(m.cost) AS "totalCost" FROM m`;
      return { rows: [] as Row[], total: Number(t.total), totalCost: new Decimal(t.totalCost ?? 0) };
    },
  };
}
export type UsageRepository = ReturnType<typeof createUsageRepository>;
