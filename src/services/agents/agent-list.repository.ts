// The list and search reads of Agents. A page of agent/all is one SQL statement: the page's ids
// (and, with a name filter, the count) from the covering (organizationId, isArchived, <column>, id,
// spaceId, status, configType) index of the sort column, then those rows joined to their active
// version for inputParameters; totalRecordCount comes from the "AgentCount" rows kept by triggers,
// an index-only count (status filter) or the matching set itself (name filter). docs/benchmarks-history.md
// shows the plans.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { containsPattern, type AgentListFilter, type AgentSort, type SortColumn } from './agent-query.js';

/** An Agent row with the `parameters` of its active definition. */
export interface AgentRow {
  id: number;
  organizationId: number;
  spaceId: number;
  userId: number;
  name: string;
  description: string;
  documentation: string;
  icon: string;
  image: string | null;
  agentTemplates: string;
  configType: number;
  startUrl: string;
  proxyPoolId: number | null;
  isActive: boolean;
  isArchived: boolean;
  version: number;
  validationStatus: number;
  status: number | null;
  lastActivity: Date;
  created: Date;
  updated: Date;
  parameters: unknown;
}

export interface AgentScope {
  organizationId: number;
  /** Readable Spaces of a member; 'all' for an org admin. */
  spaceIds: number[] | 'all';
}

// Whitelisted, so the ORDER BY column is never taken from the request.
const SORT_SQL: Record<SortColumn, string> = {
  name: 'a."name"',
  lastActivity: 'a."lastActivity"',
  created: 'a."created"',
  updated: 'a."updated"',
  status: 'a."status"',
  configType: 'a."configType"',
};

export const AGENT_COLUMNS = Prisma.sql`
  a."id", a."organizationId", a."spaceId", a."userId", a."name", a."description", a."documentation", a."icon",
  a."image", a."agentTemplates", a."configType", a."startUrl", a."proxyPoolId", a."isActive", a."isArchived",
  a."version", a."validationStatus", a."status", a."lastActivity", a."created", a."updated"`;

/**
 * Agents chosen (filtered, ordered, limited) from "Agent" alone, then joined to their active version.
 * Joining after the LIMIT matters: joined first, Postgres would fetch a definition for every row it
 * skips or sorts (50,000 lookups for page 1000 of 50, all 100,000 for an unindexed sort).
 */
export function selectAgents(where: Prisma.Sql, order: Prisma.Sql, paging: Prisma.Sql = Prisma.empty): Prisma.Sql {
  return Prisma.sql`
    SELECT a.*, v."definition" -> 'parameters' AS "parameters"
    FROM (SELECT ${AGENT_COLUMNS} FROM "Agent" a WHERE ${where} ORDER BY ${order} ${paging}) a
    LEFT JOIN "AgentVersion" v ON v."agentId" = a."id" AND v."version" = a."version"
    ORDER BY ${order}`;
}

/**
 * The rows of the given page: `ids` is a statement yielding "id" (and possibly "total") in page
 * order, whose columns the covering index of the sort column holds, so it is an index-only scan
 * however deep the page; only the page's rows are then read from "Agent" and "AgentVersion", by
 * primary key. The OFFSET 0 keeps those lookups per row: flattened into the outer query, the planner
 * prefers for 1,000 ids a hash join over the whole table and a memoized version join (40 ms slower).
 */
function selectPage(
  ids: Prisma.Sql,
  order: Prisma.Sql,
  opts: { columns?: Prisma.Sql; where?: Prisma.Sql } = {},
): Prisma.Sql {
  return Prisma.sql`
    SELECT a.* ${opts.columns ?? Prisma.empty}
    FROM (${ids}) p
    CROSS JOIN LATERAL (
      SELECT ${AGENT_COLUMNS}, v."definition" -> 'parameters' AS "parameters"
      FROM "Agent" a LEFT JOIN "AgentVersion" v ON v."agentId" = a."id" AND v."version" = a."version"
      WHERE a."id" = p."id" OFFSET 0
    ) a
    ${opts.where ? Prisma.sql`WHERE ${opts.where}` : Prisma.empty}
    ORDER BY ${order}`;
}

/**
 * Case-insensitive contains on "AgentSearchText" (alias t), served by its trigram (GIN) indexes: the Agent's
 * name, or (`description`) its name or description.
 */
function containsSql(text: string, description = false): Prisma.Sql {
  const pattern = containsPattern(text);
  const name = Prisma.sql`t."name" ILIKE ${pattern} ESCAPE '\\'`;
  return description ? Prisma.sql`(${name} OR t."description" ILIKE ${pattern} ESCAPE '\\')` : name;
}

/** The scope and the filters that "Agent" (alias `a`) and "AgentSearchText" (alias `t`) both hold. */
function scopeSql(scope: AgentScope, filter: AgentListFilter = {}, alias: 'a' | 't' = 'a'): Prisma.Sql[] {
  const col = (name: string) => Prisma.raw(`${alias}."${name}"`);
  const parts = [
    Prisma.sql`${col('organizationId')} = ${scope.organizationId}`,
    Prisma.sql`${col('isArchived')} = false`,
  ];
  if (scope.spaceIds !== 'all') parts.push(Prisma.sql`${col('spaceId')} = ANY(${scope.spaceIds}::int[])`);
  if (filter.spaceId !== undefined) parts.push(Prisma.sql`${col('spaceId')} = ${filter.spaceId}`);
  if (filter.configType !== undefined) parts.push(Prisma.sql`${col('configType')} = ${filter.configType}`);
  return parts;
}

function listWhere(scope: AgentScope, filter: AgentListFilter): Prisma.Sql {
  const parts = scopeSql(scope, filter);
  if (filter.name !== undefined)
    parts.push(Prisma.sql`a."id" IN (SELECT t."agentId" FROM "AgentSearchText" t WHERE ${containsSql(filter.name)})`);
  if (filter.status !== undefined) parts.push(Prisma.sql`a."status" = ${filter.status}`);
  return Prisma.join(parts, ' AND ');
}

function orderBy(sort: AgentSort): Prisma.Sql {
  const dir = sort.descending ? 'DESC' : 'ASC';
  return Prisma.raw(`${SORT_SQL[sort.column]} ${dir}, a."id" ${dir}`);
}

/** totalRecordCount without a name filter, from "AgentCount" (kept by triggers) or, with a status
 * filter, an index-only count over Agent_list_status_idx. */
function countSql(scope: AgentScope, filter: AgentListFilter): Prisma.Sql {
  if (filter.status !== undefined)
    return Prisma.sql`SELECT count(*)::int FROM "Agent" a WHERE ${listWhere(scope, filter)}`;
  const parts = [Prisma.sql`c."organizationId" = ${scope.organizationId}`];
  if (scope.spaceIds !== 'all') parts.push(Prisma.sql`c."spaceId" = ANY(${scope.spaceIds}::int[])`);
  if (filter.spaceId !== undefined) parts.push(Prisma.sql`c."spaceId" = ${filter.spaceId}`);
  if (filter.configType !== undefined) parts.push(Prisma.sql`c."configType" = ${filter.configType}`);
  return Prisma.sql`SELECT COALESCE(sum(c."agents"), 0)::int FROM "AgentCount" c WHERE ${Prisma.join(parts, ' AND ')}`;
}

/**
 * The statements behind one page of agent/all: `page` returns the page's rows, each with the
 * "total" of matching Agents (when the page is empty, `count` gives it). Exported for the EXPLAIN
 * output of bench/agents.ts.
 */
export function agentListStatements(
  scope: AgentScope,
  filter: AgentListFilter,
  sort: AgentSort,
  page: { limit: number; offset: number } | null,
): { page: Prisma.Sql; count: Prisma.Sql } {
  const paging = page ? Prisma.sql`LIMIT ${page.limit} OFFSET ${page.offset}` : Prisma.empty;
  if (filter.name === undefined) {
    const ids = Prisma.sql`SELECT a."id" FROM "Agent" a WHERE ${listWhere(scope, filter)} ORDER BY ${orderBy(sort)} ${paging}`;
    return {
      page: selectPage(ids, orderBy(sort), { columns: Prisma.sql`, (${countSql(scope, filter)}) AS "total"` }),
      count: countSql(scope, filter),
    };
  }
  const { ids, count } = nameFilterStatements(scope, { ...filter, name: filter.name }, sort, paging);
  return { page: selectPage(ids, orderBy(sort), { columns: Prisma.sql`, p."total"` }), count };
}

/**
 * agent/all with a name filter: the matching Agents (m) come once from the trigram index of "AgentSearchText".
 * Sorted by name without a status filter, "AgentSearchText" holds all the page needs: m's first rows. Otherwise
 * the sort column's list index of "Agent" is read in order, keeping the Agents in m (a hashed lookup), until the
 * page is full; with m empty it is not read at all. `IS TRUE` keeps the planner from joining every match to
 * "Agent" and sorting them all instead (twice as slow at 8,000 matches of 100,000, docs/benchmarks-history.md).
 */
function nameFilterStatements(
  scope: AgentScope,
  filter: AgentListFilter & { name: string },
  sort: AgentSort,
  paging: Prisma.Sql,
): { ids: Prisma.Sql; count: Prisma.Sql } {
  const matching = Prisma.join([...scopeSql(scope, filter, 't'), containsSql(filter.name)], ' AND ');
  const dir = Prisma.raw(sort.descending ? 'DESC' : 'ASC');
  if (sort.column === 'name' && filter.status === undefined) {
    const m = Prisma.sql`SELECT t."agentId" AS "id", t."name" FROM "AgentSearchText" t WHERE ${matching}`;
    return {
      ids: Prisma.sql`
        WITH m AS MATERIALIZED (${m})
        SELECT m."id", (SELECT count(*) FROM m)::int AS "total" FROM m ORDER BY m."name" ${dir}, m."id" ${dir} ${paging}`,
      count: Prisma.sql`SELECT count(*)::int FROM (${m}) m`,
    };
  }
  const m = Prisma.sql`WITH m AS MATERIALIZED (SELECT t."agentId" AS "id" FROM "AgentSearchText" t WHERE ${matching})`;
  const kept = Prisma.sql`${listWhere(scope, { ...filter, name: undefined })}
    AND (a."id" IN (SELECT "id" FROM m)) IS TRUE AND EXISTS (SELECT FROM m)`;
  const total =
    filter.status === undefined
      ? Prisma.sql`(SELECT count(*) FROM m)::int`
      : Prisma.sql`(SELECT count(*) FROM "Agent" a WHERE ${kept})::int`;
  return {
    ids: Prisma.sql`${m} SELECT a."id", ${total} AS "total" FROM "Agent" a WHERE ${kept} ORDER BY ${orderBy(sort)} ${paging}`,
    count: Prisma.sql`${m} SELECT ${total}`,
  };
}

export function createAgentListReads(db: Db) {
  return {
    /** One page of agent/all and the number of Agents matching the filters over all pages. */
    async listAgentPage(
      scope: AgentScope,
      filter: AgentListFilter,
      sort: AgentSort,
      page: { limit: number; offset: number },
    ): Promise<{ rows: AgentRow[]; total: number }> {
      const statements = agentListStatements(scope, filter, sort, page);
      const rows = await db.$rows<AgentRow & { total: number }>(statements.page);
      if (rows.length > 0) return { rows: rows.map(({ total: _, ...row }) => row), total: rows[0].total };
      // Past the last page (or nothing matches) the page statement has no row to carry the count.
      const counted = await db.$rows<{ n: number }>(Prisma.sql`SELECT (${statements.count}) AS "n"`);
      return { rows: [], total: counted[0]?.n ?? 0 };
    },

    /** The ids of every matching Agent in list order (index-only when no name filter is given). */
    async listAgentIds(scope: AgentScope, filter: AgentListFilter, sort: AgentSort): Promise<number[]> {
      const rows = await db.$rows<{ id: number }>(
        Prisma.sql`SELECT a."id" FROM "Agent" a WHERE ${listWhere(scope, filter)} ORDER BY ${orderBy(sort)}`,
      );
      return rows.map((r) => r.id);
    },

    /** The rows of `ids` in that order, of those still matching the filters (see listAgentIds). */
    async listAgentsById(scope: AgentScope, filter: AgentListFilter, ids: number[]): Promise<AgentRow[]> {
      const order = Prisma.sql`p."n"`;
      return db.$rows<AgentRow>(
        selectPage(Prisma.sql`SELECT x."id", x."n" FROM unnest(${ids}::int[]) WITH ORDINALITY AS x("id", "n")`, order, {
          where: listWhere(scope, filter),
        }),
      );
    },

    /** Name or description contains `text`, case-insensitively; archived Agents hidden. */
    async searchAgents(scope: AgentScope, text: string, limit: number): Promise<AgentRow[]> {
      const where = Prisma.join([...scopeSql(scope, {}, 't'), containsSql(text, true)], ' AND ');
      const ids = Prisma.sql`
        SELECT t."agentId" AS "id" FROM "AgentSearchText" t WHERE ${where} ORDER BY t."name", t."agentId" LIMIT ${limit}`;
      return db.$rows<AgentRow>(selectPage(ids, Prisma.sql`a."name" ASC, a."id" ASC`));
    },
  };
}
