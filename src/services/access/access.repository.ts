// Prisma access for authorization decisions. A resource is read together with what decides the
// caller's access to it (its Space's default access and the caller's membership there) in ONE
// statement: Prisma loads each relation with a query of its own, so these joins are written out, and
// run on the pool directly (Db.$rows): they are the reads every request makes.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Agent, Run, Space } from '../../generated/prisma/client.js';

/** What a joined row adds to decide access: the Space's default access and the user's membership role. */
export interface AccessColumns {
  isDefaultAccess: boolean;
  membershipRole: string | null;
}

export function createAccessRepository(db: Db) {
  return {
    /** The Space with the user's membership role in it. */
    async findSpace(id: number, userId: number): Promise<(Space & { membershipRole: string | null }) | null> {
      const rows = await db.$rows<Space & { membershipRole: string | null }>(
        Prisma.sql`
        SELECT s.*, m."role" AS "membershipRole"
        FROM "Space" s LEFT JOIN "SpaceMembership" m ON m."spaceId" = s."id" AND m."userId" = ${userId}
        WHERE s."id" = ${id}`,
        { prepared: 'space-with-access' },
      );
      return rows[0] ?? null;
    },
    /** The Agent with its Space's default access and the user's membership role there. */
    async findAgent(id: number, userId: number): Promise<(Agent & AccessColumns) | null> {
      const rows = await db.$rows<Agent & AccessColumns>(
        Prisma.sql`
        SELECT a.*, s."isDefaultAccess", m."role" AS "membershipRole"
        FROM "Agent" a
        JOIN "Space" s ON s."id" = a."spaceId"
        LEFT JOIN "SpaceMembership" m ON m."spaceId" = a."spaceId" AND m."userId" = ${userId}
        WHERE a."id" = ${id}`,
        { prepared: 'agent-with-access' },
      );
      return rows[0] ?? null;
    },
    /**
     * A Run of an Agent with the Agent's access columns: the Agent row decides 404/403, `run` is
     * null when the Agent has no such Run.
     */
    async findAgentRun(
      agentId: number,
      runId: number,
      userId: number,
    ): Promise<{ organizationId: number; access: AccessColumns; run: Run | null } | null> {
      const rows = await db.$rows<
        Run & {
          agentOrganizationId: number;
          isDefaultAccess: boolean;
          membershipRole: string | null;
          id: number | null;
        }
      >(
        Prisma.sql`
        SELECT a."organizationId" AS "agentOrganizationId", s."isDefaultAccess", m."role" AS "membershipRole", r.*
        FROM "Agent" a
        JOIN "Space" s ON s."id" = a."spaceId"
        LEFT JOIN "SpaceMembership" m ON m."spaceId" = a."spaceId" AND m."userId" = ${userId}
        LEFT JOIN "Run" r ON r."id" = ${runId} AND r."agentId" = a."id"
        WHERE a."id" = ${agentId}`,
        { prepared: 'agent-run-with-access' },
      );
      const row = rows[0];
      if (!row) return null;
      const { agentOrganizationId, isDefaultAccess, membershipRole, ...run } = row;
      return {
        organizationId: agentOrganizationId,
        access: { isDefaultAccess, membershipRole },
        run: run.id === null ? null : run,
      };
    },
    /** Spaces a member can read: default-access ones of the org plus their memberships. */
    async readableSpaceIds(organizationId: number, userId: number): Promise<number[]> {
      const rows = await db.space.findMany({
        where: { organizationId, OR: [{ isDefaultAccess: true }, { memberships: { some: { userId } } }] },
        select: { id: true },
      });
      return rows.map((r) => r.id);
    },
  };
}
export type AccessRepository = ReturnType<typeof createAccessRepository>;
