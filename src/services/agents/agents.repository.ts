// All Prisma access of the agents domain: Agents, their versions, archiving and the bulk insert of
// the seed; the list and search statements are in agent-list.repository.ts.
import type { Db, DbOrTx } from '../../db/prisma.js';
import type { AccessColumns } from '../access/access.repository.js';
import { Prisma } from '../../generated/prisma/client.js';
import { AGENT_COLUMNS, createAgentListReads, selectAgents, type AgentRow } from './agent-list.repository.js';

export type { AgentRow, AgentScope } from './agent-list.repository.js';
export { agentListStatements } from './agent-list.repository.js';

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

/** A new Agent's columns (its version 1 comes with it). */
export type NewAgent = Pick<
  AgentRow,
  | 'organizationId'
  | 'spaceId'
  | 'userId'
  | 'name'
  | 'description'
  | 'documentation'
  | 'icon'
  | 'image'
  | 'configType'
  | 'proxyPoolId'
  | 'startUrl'
  | 'validationStatus'
> & { at: Date };

/** A version's stored definition and who saved it. */
export interface NewVersion {
  definition: Prisma.InputJsonValue;
  comments: string;
  fileSize: number;
  userId: number;
  userName: string;
}

export function createAgentsRepository(db: Db) {
  return {
    db,

    ...createAgentListReads(db),

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

    createAgent(data: NewAgent, version: NewVersion, tx: DbOrTx) {
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
      version: NewVersion & Pick<AgentRow, 'startUrl' | 'validationStatus'> & { at: Date },
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

    /** Archives the Agent and disables its Schedules in the same transaction (docs/api-contract.md §3.2). */
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

    /** Unarchives; Schedules stay disabled (docs/api-contract.md §3.2). */
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
      for (const table of ['Agent', 'AgentSearchText', 'AgentVersion', 'Run', 'Space'])
        await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table}"`);
    },
  };
}
export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
