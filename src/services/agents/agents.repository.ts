// All Prisma access of the agents domain. Lists are one SQL statement each (plus one count) that
// join the active version for inputParameters, so a page of Agents never costs a query per Agent;
// their WHERE/ORDER BY follow the (organizationId, isArchived, <column>) indexes of Agent.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { containsPattern, type AgentListFilter, type AgentSort, type SortColumn } from './agent-query.js';

type Tx = Prisma.TransactionClient | Db;

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

const SELECT_AGENT = Prisma.sql`
  SELECT a."id", a."organizationId", a."spaceId", a."userId", a."name", a."description", a."documentation",
         a."icon", a."image", a."agentTemplates", a."configType", a."startUrl", a."proxyPoolId", a."isActive",
         a."isArchived", a."version", a."validationStatus", a."status", a."lastActivity", a."created", a."updated",
         v."definition" -> 'parameters' AS "parameters"
  FROM "Agent" a
  LEFT JOIN "AgentVersion" v ON v."agentId" = a."id" AND v."version" = a."version"`;

function scopeSql(scope: AgentScope): Prisma.Sql[] {
  const parts = [Prisma.sql`a."organizationId" = ${scope.organizationId}`, Prisma.sql`a."isArchived" = false`];
  if (scope.spaceIds !== 'all') parts.push(Prisma.sql`a."spaceId" = ANY(${scope.spaceIds}::int[])`);
  return parts;
}

function listWhere(scope: AgentScope, filter: AgentListFilter): Prisma.Sql {
  const parts = scopeSql(scope);
  if (filter.spaceId !== undefined) parts.push(Prisma.sql`a."spaceId" = ${filter.spaceId}`);
  if (filter.name !== undefined) parts.push(Prisma.sql`a."name" ILIKE ${containsPattern(filter.name)} ESCAPE '\\'`);
  if (filter.status !== undefined) parts.push(Prisma.sql`a."status" = ${filter.status}`);
  if (filter.configType !== undefined) parts.push(Prisma.sql`a."configType" = ${filter.configType}`);
  return Prisma.join(parts, ' AND ');
}

function orderBy(sort: AgentSort): Prisma.Sql {
  const dir = sort.descending ? 'DESC' : 'ASC';
  return Prisma.raw(`${SORT_SQL[sort.column]} ${dir}, a."id" ${dir}`);
}

export function createAgentsRepository(db: Db) {
  return {
    db,

    async listAgents(scope: AgentScope, filter: AgentListFilter, sort: AgentSort, page: { limit: number; offset: number } | null): Promise<AgentRow[]> {
      const paging = page ? Prisma.sql`LIMIT ${page.limit} OFFSET ${page.offset}` : Prisma.empty;
      return db.$queryRaw<AgentRow[]>`${SELECT_AGENT} WHERE ${listWhere(scope, filter)} ORDER BY ${orderBy(sort)} ${paging}`;
    },

    async countAgents(scope: AgentScope, filter: AgentListFilter): Promise<number> {
      const rows = await db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS "n" FROM "Agent" a WHERE ${listWhere(scope, filter)}`;
      return rows[0]?.n ?? 0;
    },

    /** Name or description contains `text`, case-insensitively; archived Agents hidden. */
    async searchAgents(scope: AgentScope, text: string, limit: number): Promise<AgentRow[]> {
      const pattern = containsPattern(text);
      const where = Prisma.join(
        [...scopeSql(scope), Prisma.sql`(a."name" ILIKE ${pattern} ESCAPE '\\' OR a."description" ILIKE ${pattern} ESCAPE '\\')`],
        ' AND ',
      );
      return db.$queryRaw<AgentRow[]>`${SELECT_AGENT} WHERE ${where} ORDER BY a."name" ASC, a."id" ASC LIMIT ${limit}`;
    },

    async findAgentRow(agentId: number, tx: Tx = db): Promise<AgentRow | null> {
      const rows = await tx.$queryRaw<AgentRow[]>`${SELECT_AGENT} WHERE a."id" = ${agentId}`;
      return rows[0] ?? null;
    },

    findProxyPool(id: number, tx: Tx = db) {
      return tx.proxyPool.findUnique({ where: { id }, select: { id: true, organizationId: true } });
    },

    findVersion(agentId: number, version: number, tx: Tx = db) {
      return tx.agentVersion.findUnique({ where: { agentId_version: { agentId, version } } });
    },

    listVersions(agentId: number, tx: Tx = db) {
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
      version: { definition: Prisma.InputJsonValue; comments: string; fileSize: number; userId: number; userName: string },
      tx: Tx,
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
      tx: Tx,
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
      tx: Tx = db,
    ) {
      return tx.agent.update({ where: { id: agentId }, data: { ...data, lastActivity: at, updated: at }, select: { id: true } });
    },

    /** Archives the Agent and disables its Schedules in the same transaction (design.md section 3). */
    async archive(agentId: number, at: Date, tx: Tx) {
      // A second archive keeps the first archive time.
      await tx.agent.updateMany({ where: { id: agentId, isArchived: false }, data: { isArchived: true, archivedAt: at } });
      await tx.agent.update({ where: { id: agentId }, data: { lastActivity: at, updated: at } });
      await tx.schedule.updateMany({ where: { agentId, isEnabled: true }, data: { isEnabled: false, updated: at } });
    },

    /** Unarchives; Schedules stay disabled (service-spec "Agent archive"). */
    unarchive(agentId: number, at: Date, tx: Tx = db) {
      return tx.agent.update({
        where: { id: agentId },
        data: { isArchived: false, archivedAt: null, lastActivity: at, updated: at },
        select: { id: true },
      });
    },

    transaction<T>(fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
      return db.$transaction(fn);
    },
  };
}
export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
