// Prisma access for proxy pools.
import type { Db } from '../../db/prisma.js';

export function createProxyPoolsRepository(db: Db) {
  return {
    create(data: { organizationId: number; name: string; proxies: string; proxyCount: number }) {
      return db.proxyPool.create({ data });
    },
    list(organizationId: number) {
      return db.proxyPool.findMany({ where: { organizationId }, orderBy: { id: 'asc' } });
    },
    find(id: number) {
      return db.proxyPool.findUnique({ where: { id } });
    },
  };
}
export type ProxyPoolsRepository = ReturnType<typeof createProxyPoolsRepository>;
