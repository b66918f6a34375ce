// Proxy pools of an organization (admins manage them; Runs route their requests through one).
// The proxy URLs may carry credentials: they are sealed at rest and never returned.
import { seal } from '../../lib/crypto.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Principal } from '../identity/principal.js';
import type { ProxyPoolsRepository } from './proxy-pools.repository.js';

type PoolRow = Awaited<ReturnType<ProxyPoolsRepository['list']>>[number];

const view = (p: PoolRow) => ({ id: p.id, organizationId: p.organizationId, name: p.name, proxyCount: p.proxyCount, created: p.created, updated: p.updated });

export function createProxyPoolsService(deps: { repo: ProxyPoolsRepository; config: { encryptionKey: Buffer } }) {
  const { repo, config } = deps;
  return {
    async create(actor: Principal, input: { name: string; proxies: string[] }) {
      input.proxies.forEach((p, i) => {
        let url: URL;
        try {
          url = new URL(p);
        } catch {
          throw new ValidationError(`proxies[${i}] is not a URL.`);
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`proxies[${i}] must be an http:// or https:// proxy URL.`);
      });
      try {
        return view(
          await repo.create({
            organizationId: actor.organizationId,
            name: input.name.trim(),
            proxies: seal(config.encryptionKey, JSON.stringify(input.proxies)),
            proxyCount: input.proxies.length,
          }),
        );
      } catch (err) {
        if ((err as { code?: string }).code === 'P2002') throw new ConflictError(`A proxy pool named ${input.name} already exists.`);
        throw err;
      }
    },
    async list(actor: Principal) {
      return (await repo.list(actor.organizationId)).map(view);
    },
    async get(actor: Principal, id: number) {
      const pool = await repo.find(id);
      if (!pool || pool.organizationId !== actor.organizationId) throw new NotFoundError(`Proxy pool ${id} was not found.`);
      return view(pool);
    },
  };
}
export type ProxyPoolsService = ReturnType<typeof createProxyPoolsService>;
