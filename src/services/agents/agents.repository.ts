// All Prisma access of the agents domain. A page of agent/all is one SQL statement: the page's ids
// (and, with a name filter, the count) from the covering (organizationId, isArchived, <column>, id,
// spaceId, status, configType) index of the sort column, then those rows joined to their active
// version for inputParameters; totalRecordCount comes from the "AgentCount" rows kept by triggers,
// an index-only count (status filter) or the matching set itself (name filter). docs/benchmarks.md
// shows the plans.
import type { Db, DbOrTx } from '../../db/prisma.js';
import type { AccessColumns } from '../access/access.repository.js';
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

const AGENT_COLUMNS = Prisma.sql`
  a."id", a."organizationId", a."spaceId", a."userId", a."name", a."description", a."documentation", a."icon",
  a."image", a."agentTemplates", a."configType", a."startUrl", a."proxyPoolId", a."isActive", a."isArchived",
  a."version", a."validationStatus", a."status", a."lastActivity", a."created", a."updated"`;

/**
 * Agents chosen (filtered, ordered, limited) from "Agent" alone, then joined to their active version.
 * Joining after the LIMIT matters: joined first, Postgres would fetch a definition for every row it
 * skips or sorts (50,000 lookups for page 1000 of 50, all 100,000 for an unindexed sort).
 */
function selectAgents(where: Prisma.Sql, order: Prisma.Sql, paging: Prisma.Sql = Prisma.empty): Prisma.Sql {
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

/** Case-insensitive contains, served by the trigram (GIN) indexes on Agent name and description. */
function containsSql(column: Prisma.Sql, text: string): Prisma.Sql {
  return Prisma.sql`${column} ILIKE ${containsPattern(text)} ESCAPE '\\'`;
}

function scopeSql(scope: AgentScope): Prisma.Sql[] {
  const parts = [Prisma.sql`a."organizationId" = ${scope.organizationId}`, Prisma.sql`a."isArchived" = false`];
  if (scope.spaceIds !== 'all') parts.push(Prisma.sql`a."spaceId" = ANY(${scope.spaceIds}::int[])`);
  return parts;
}

function listWhere(scope: AgentScope, filter: AgentListFilter): Prisma.Sql {
  const parts = scopeSql(scope);
  if (filter.spaceId !== undefined) parts.push(Prisma.sql`a."spaceId" = ${filter.spaceId}`);
  if (filter.name !== undefined) parts.push(containsSql(Prisma.sql`a."name"`, filter.name));
  if (filter.status !== undefined) parts.push(Prisma.sql`a."status" = ${filter.status}`);
  if (filter.configType !== undefined) parts.push(Prisma.sql`a."configType" = ${filter.configType}`);
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
  const where = listWhere(scope, filter);
  const paging = page ? Prisma.sql`LIMIT ${page.limit} OFFSET ${page.offset}` : Prisma.empty;
  if (filter.name === undefined) {
    const ids = Prisma.sql`SELECT a."id" FROM "Agent" a WHERE ${where} ORDER BY ${orderBy(sort)} ${paging}`;
    return {
      page: selectPage(ids, orderBy(sort), { columns: Prisma.sql`, (${countSql(scope, filter)}) AS "total"` }),
      count: countSql(scope, filter),
    };
  }
  // A contains filter: the matching set comes once from the trigram index (a sort-column index
  // scan filtering on the name can read most of the index before it finds a page: names cluster),
  // and both the count and the page are taken from it.
  const ids = Prisma.sql`
    WITH m AS MATERIALIZED (SELECT a."id", ${Prisma.raw(SORT_SQL[sort.column])} AS "sortKey" FROM "Agent" a WHERE ${where})
    SELECT m."id", (SELECT count(*) FROM m)::int AS "total" FROM m
    ORDER BY m."sortKey" ${Prisma.raw(sort.descending ? 'DESC' : 'ASC')}, m."id" ${Prisma.raw(sort.descending ? 'DESC' : 'ASC')} ${paging}`;
  return {
    page: selectPage(ids, orderBy(sort), { columns: Prisma.sql`, p."total"` }),
    count: Prisma.sql`SELECT count(*)::int FROM "Agent" a WHERE ${where}`,
  };
}

export interface BulkAgent {
  organizationId: number;
  spaceId: number;
  userId: number;
  userName: string;
  name: string;
  description: string;
  configType: number;
  startUrl: string;
  validationStatus: number;
  /** A status means one finished Run with that status is written too. */
  status: number | null;
  lastActivity: Date;
  created: Date;
  updated: Date;
  definition: unknown;
  comments: string;
  fileSize: number;
}

export function createAgentsRepository(db: Db) {
  return {
    db,

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
      const where = Prisma.join(
        [
          ...scopeSql(scope),
          Prisma.sql`(${containsSql(Prisma.sql`a."name"`, text)} OR ${containsSql(Prisma.sql`a."description"`, text)})`,
        ],
        ' AND ',
      );
      return db.$rows<AgentRow>(selectAgents(where, Prisma.sql`a."name" ASC, a."id" ASC`, Prisma.sql`LIMIT ${limit}`));
    },

    async findAgentRow(agentId: number, tx: DbOrTx = db): Promise<AgentRow | null> {
      const rows = await tx.$queryRaw<AgentRow[]>(selectAgents(Prisma.sql`a."id" = ${agentId}`, Prisma.sql`a."id"`));
      return rows[0] ?? null;
    },

    /** The Agent row with what decides the user's access to it (see access.repository), in one statement. */
    async findAgentRowWithAccess(agentId: number, userId: number): Promise<(AgentRow & AccessColumns) | null> {
      const rows = await db.$rows<AgentRow & AccessColumns>(
        Prisma.sql`
        SELECT a.*, v."definition" -> 'parameters' AS "parameters", s."isDefaultAccess", m."role" AS "membershipRole"
        FROM (SELECT ${AGENT_COLUMNS} FROM "Agent" a WHERE a."id" = ${agentId}) a
        JOIN "Space" s ON s."id" = a."spaceId"
        LEFT JOIN "SpaceMembership" m ON m."spaceId" = a."spaceId" AND m."userId" = ${userId}
        LEFT JOIN "AgentVersion" v ON v."agentId" = a."id" AND v."version" = a."version"`,
        { prepared: 'agent-row-with-access' },
      );
      return rows[0] ?? null;
    },

    findVersion(agentId: number, version: number, tx: DbOrTx = db) {
      return tx.agentVersion.findUnique({ where: { agentId_version: { agentId, version } } });
    },

    listVersions(agentId: number, tx: DbOrTx = db) {
      return tx.agentVersion.findMany({
        where: { agentId },
        orderBy: { version: 'desc' },
        select: { userName: true, version: true, created: true, comments: true, fileSize: true },
      });
    },

    createAgent(
      data: {
        organizationId: number;
        spaceId: number;
        userId: number;
        name: string;
        description: string;
        documentation: string;
        icon: string;
        image: string | null;
        configType: number;
        proxyPoolId: number | null;
        startUrl: string;
        validationStatus: number;
        at: Date;
      },
      version: {
        definition: Prisma.InputJsonValue;
        comments: string;
        fileSize: number;
        userId: number;
        userName: string;
      },
      tx: DbOrTx,
    ) {
      const { at, ...fields } = data;
      return tx.agent.create({
        data: {
          ...fields,
          version: 1,
          lastActivity: at,
          created: at,
          updated: at,
          versions: { create: { ...version, version: 1, created: at } },
        },
        select: { id: true },
      });
    },

    /**
     * Appends a version and makes it active. Incrementing Agent.version first locks the Agent row
     * until the transaction ends, so concurrent saves get consecutive numbers instead of a clash.
     */
    async addVersion(
      agentId: number,
      version: {
        definition: Prisma.InputJsonValue;
        comments: string;
        fileSize: number;
        userId: number;
        userName: string;
        startUrl: string;
        validationStatus: number;
        at: Date;
      },
      tx: DbOrTx,
    ): Promise<number> {
      const agent = await tx.agent.update({
        where: { id: agentId },
        data: {
          version: { increment: 1 },
          startUrl: version.startUrl,
          validationStatus: version.validationStatus,
          lastActivity: version.at,
          updated: version.at,
        },
        select: { version: true },
      });
      await tx.agentVersion.create({
        data: {
          agentId,
          version: agent.version,
          definition: version.definition,
          comments: version.comments,
          fileSize: version.fileSize,
          userId: version.userId,
          userName: version.userName,
          created: version.at,
        },
      });
      return agent.version;
    },

    updateAgent(
      agentId: number,
      data: Partial<{
        name: string;
        description: string;
        documentation: string;
        icon: string;
        image: string | null;
        proxyPoolId: number | null;
        spaceId: number;
      }>,
      at: Date,
      tx: DbOrTx = db,
    ) {
      return tx.agent.update({
        where: { id: agentId },
        data: { ...data, lastActivity: at, updated: at },
        select: { id: true },
      });
    },

    /** Archives the Agent and disables its Schedules in the same transaction (design.md section 3). */
    async archive(agentId: number, at: Date, tx: DbOrTx) {
      // A second archive keeps the first archive time.
      await tx.agent.updateMany({
        where: { id: agentId, isArchived: false },
        data: { isArchived: true, archivedAt: at },
      });
      await tx.agent.update({ where: { id: agentId }, data: { lastActivity: at, updated: at } });
      await tx.schedule.updateMany({
        where: { agentId, isEnabled: true },
        data: { isEnabled: false, nextRunTime: null, updated: at },
      });
    },

    /** Unarchives; Schedules stay disabled (service-spec "Agent archive"). */
    unarchive(agentId: number, at: Date, tx: DbOrTx = db) {
      return tx.agent.update({
        where: { id: agentId },
        data: { isArchived: false, archivedAt: null, lastActivity: at, updated: at },
        select: { id: true },
      });
    },

    transaction<T>(
      fn: (tx: Prisma.TransactionClient) => Promise<T>,
      opts?: { timeout?: number; maxWait?: number },
    ): Promise<T> {
      return db.$transaction(fn, opts);
    },

    /**
     * Bulk insert for the seed: Agents with their version-1 definitions, and one finished Run for
     * those given a status. One INSERT ... SELECT FROM unnest(...) per table instead of createMany,
     * which costs about 2.5 s per 5000 Agents in Prisma 7 against about 0.3 s this way.
     */
    async bulkCreateAgents(rows: BulkAgent[], tx: DbOrTx): Promise<number[]> {
      if (rows.length === 0) return [];
      // Ids drawn first, so each row's id is known without relying on the order of RETURNING.
      const drawn = await tx.$queryRaw<Array<{ id: number }>>`
        SELECT nextval(pg_get_serial_sequence('"Agent"', 'id'))::int AS "id" FROM generate_series(1, ${rows.length})`;
      const ids = drawn.map((r) => r.id);
      const col = <K extends keyof BulkAgent>(k: K) => rows.map((r) => r[k]);
      // Timestamps travel as ISO text; casting to timestamp (without zone) keeps them UTC as Prisma does.
      const iso = (k: 'lastActivity' | 'created' | 'updated') => rows.map((r) => r[k].toISOString());
      await tx.$executeRaw`
        INSERT INTO "Agent" ("id", "organizationId", "spaceId", "userId", "name", "description", "configType", "startUrl",
                             "validationStatus", "status", "version", "lastActivity", "created", "updated")
        SELECT x."id", x."organizationId", x."spaceId", x."userId", x."name", x."description", x."configType", x."startUrl",
               x."validationStatus", x."status", 1, x."lastActivity", x."created", x."updated"
        FROM unnest(${ids}::int[], ${col('organizationId')}::int[], ${col('spaceId')}::int[], ${col('userId')}::int[],
                    ${col('name')}::text[], ${col('description')}::text[], ${col('configType')}::int[], ${col('startUrl')}::text[],
                    ${col('validationStatus')}::int[], ${col('status')}::int[], ${iso('lastActivity')}::timestamp[],
                    ${iso('created')}::timestamp[], ${iso('updated')}::timestamp[])
          AS x("id", "organizationId", "spaceId", "userId", "name", "description", "configType", "startUrl",
               "validationStatus", "status", "lastActivity", "created", "updated")`;
      await tx.$executeRaw`
        INSERT INTO "AgentVersion" ("agentId", "version", "definition", "comments", "fileSize", "userId", "userName", "created")
        SELECT x."agentId", 1, x."definition", x."comments", x."fileSize", x."userId", x."userName", x."created"
        FROM unnest(${ids}::int[], ${rows.map((r) => JSON.stringify(r.definition))}::jsonb[], ${rows.map((r) => r.comments)}::text[],
                    ${rows.map((r) => r.fileSize)}::int[], ${col('userId')}::int[], ${rows.map((r) => r.userName)}::text[], ${iso('created')}::timestamp[])
          AS x("agentId", "definition", "comments", "fileSize", "userId", "userName", "created")`;
      const ran = rows.flatMap((r, i) => (r.status === null ? [] : [{ id: ids[i], row: r }]));
      if (ran.length > 0) {
        const at = ran.map((x) => x.row.lastActivity.toISOString());
        const end = ran.map((x) => new Date(x.row.lastActivity.getTime() + 60_000).toISOString());
        await tx.$executeRaw`
          INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", "status", "startTime", "endTime", "statusChanged", "startedBy", "created", "updated")
          SELECT x."organizationId", x."agentId", 1, x."status", x."at", x."end", x."end", x."startedBy", x."at", x."end"
          FROM unnest(${ran.map((x) => x.row.organizationId)}::int[], ${ran.map((x) => x.id)}::int[], ${ran.map((x) => x.row.status)}::int[],
                      ${at}::timestamp[], ${end}::timestamp[], ${ran.map((x) => x.row.userName)}::text[])
            AS x("organizationId", "agentId", "status", "at", "end", "startedBy")`;
        // Agent.status is the latest Run's status; lastRunId points at that Run.
        await tx.$executeRaw`
          UPDATE "Agent" a SET "lastRunId" = r."id" FROM "Run" r
          WHERE r."agentId" = a."id" AND a."id" = ANY(${ran.map((x) => x.id)}::int[])`;
      }
      return ids;
    },

    /** Fresh planner statistics and visibility map after a bulk load (index-only counts rely on it). */
    async vacuumAnalyze(): Promise<void> {
      for (const table of ['Agent', 'AgentVersion', 'Run', 'Space'])
        await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table}"`);
    },
  };
}
export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
