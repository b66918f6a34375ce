// Prisma access for authorization decisions.
import type { Db } from '../../db/prisma.js';

export function createAccessRepository(db: Db) {
  return {
    findSpace(id: number) {
      return db.space.findUnique({ where: { id } });
    },
    findAgent(id: number) {
      return db.agent.findUnique({ where: { id }, include: { space: true } });
    },
    membership(spaceId: number, userId: number) {
      return db.spaceMembership.findUnique({ where: { spaceId_userId: { spaceId, userId } } });
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
