// All Prisma access of the spaces domain: Spaces, their memberships and the Agents they list.
import type { Db, DbOrTx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { containsPattern } from '../agents/agent-query.js';

export interface SpaceRow {
  id: number;
  organizationId: number;
  name: string;
  description: string;
  isDefaultAccess: boolean;
  created: Date;
  updated: Date;
}

const SPACE_FIELDS = {
  id: true,
  organizationId: true,
  name: true,
  description: true,
  isDefaultAccess: true,
  created: true,
  updated: true,
} as const;

export function createSpacesRepository(db: Db) {
  return {
    /** Spaces of an organization, all of them or those with the given ids, by name. */
    listSpaces(organizationId: number, ids: number[] | 'all', tx: DbOrTx = db): Promise<SpaceRow[]> {
      return tx.space.findMany({
        where: { organizationId, ...(ids !== 'all' && { id: { in: ids } }) },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        select: SPACE_FIELDS,
      });
    },

    findSpace(id: number, tx: DbOrTx = db): Promise<SpaceRow | null> {
      return tx.space.findUnique({ where: { id }, select: SPACE_FIELDS });
    },

    /**
     * The Space whose name equals `name` case-insensitively, otherwise the first (by name, then id)
     * whose name contains it. Wildcards in `name` are literal.
     */
    async findSpaceByName(
      organizationId: number,
      ids: number[] | 'all',
      name: string,
      tx: DbOrTx = db,
    ): Promise<SpaceRow | null> {
      const scope = ids === 'all' ? Prisma.empty : Prisma.sql`AND s."id" = ANY(${ids}::int[])`;
      const rows = await tx.$queryRaw<SpaceRow[]>`
        SELECT s."id", s."organizationId", s."name", s."description", s."isDefaultAccess", s."created", s."updated"
        FROM "Space" s
        WHERE s."organizationId" = ${organizationId} ${scope} AND s."name" ILIKE ${containsPattern(name)} ESCAPE '\\'
        ORDER BY (lower(s."name") = lower(${name})) DESC, s."name" ASC, s."id" ASC
        LIMIT 1`;
      return rows[0] ?? null;
    },

    /** A Space of the organization with the same name ignoring case (LIKE wildcards play no part). */
    async findSpaceNamedLike(organizationId: number, name: string, tx: DbOrTx = db): Promise<{ id: number } | null> {
      const rows = await tx.$queryRaw<Array<{ id: number }>>`
        SELECT s."id" FROM "Space" s WHERE s."organizationId" = ${organizationId} AND lower(s."name") = lower(${name}) LIMIT 1`;
      return rows[0] ?? null;
    },

    createSpace(
      data: { organizationId: number; name: string; description: string; isDefaultAccess: boolean; at: Date },
      tx: DbOrTx = db,
    ): Promise<SpaceRow> {
      const { at, ...fields } = data;
      return tx.space.create({ data: { ...fields, created: at, updated: at }, select: SPACE_FIELDS });
    },

    /** Agents of a Space that are not archived, by name (index spaceId, isArchived, name). */
    listSpaceAgents(spaceId: number, tx: DbOrTx = db) {
      return tx.agent.findMany({
        where: { spaceId, isArchived: false },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        select: {
          id: true,
          name: true,
          description: true,
          configType: true,
          status: true,
          validationStatus: true,
          lastActivity: true,
        },
      });
    },

    findUser(id: number, tx: DbOrTx = db) {
      return tx.user.findUnique({ where: { id }, select: { id: true, organizationId: true } });
    },

    upsertMembership(spaceId: number, userId: number, role: 'reader' | 'editor', tx: DbOrTx = db) {
      return tx.spaceMembership.upsert({
        where: { spaceId_userId: { spaceId, userId } },
        create: { spaceId, userId, role },
        update: { role },
        select: { spaceId: true, userId: true, role: true },
      });
    },
  };
}
export type SpacesRepository = ReturnType<typeof createSpacesRepository>;
