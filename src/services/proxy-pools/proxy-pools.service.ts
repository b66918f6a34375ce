// Proxy pools of an organization (admins manage them; Runs route their requests through one).
// The proxy URLs may carry credentials: they are sealed at rest and never returned.
import { PROXY_PROTOCOLS, type ResolveHost } from '../../engine/ssrf.js';
import { seal } from '../../lib/crypto.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Principal } from '../identity/principal.js';
import { describeRefusedAddress, refusalOf } from '../public-target.js';
import type { ProxyPoolsRepository } from './proxy-pools.repository.js';

type PoolRow = NonNullable<Awaited<ReturnType<ProxyPoolsRepository['find']>>>;

const view = (p: PoolRow) => ({
  id: p.id,
  organizationId: p.organizationId,
  name: p.name,
  proxyCount: p.proxyCount,
  created: p.created,
  updated: p.updated,
});

/**
 * The one rule of proxy-pool ownership, used by every route that takes a proxyPoolId (pools,
 * Agents, starts, run-all, Schedules): a pool that does not exist or belongs to another
 * organization is 404 NOT_FOUND "Proxy pool N was not found." (never revealing which of the two).
 */
export function createProxyPoolOwnership(repo: Pick<ProxyPoolsRepository, 'find'>) {
  async function requireOwned(organizationId: number, id: number): Promise<PoolRow> {
    const pool = await repo.find(id);
    if (!pool || pool.organizationId !== organizationId) throw new NotFoundError(`Proxy pool ${id} was not found.`);
    return pool;
  }
  return {
    requireOwned,
    /** A proxyPoolId sent in a request: undefined stays undefined (not given), null or <= 0 is null (none). */
    async resolve(organizationId: number, id: number | null | undefined): Promise<number | null | undefined> {
      if (id === undefined) return undefined;
      if (id === null || id <= 0) return null;
      return (await requireOwned(organizationId, id)).id;
    },
  };
}
export type ProxyPoolOwnership = ReturnType<typeof createProxyPoolOwnership>;

export function createProxyPoolsService(deps: {
  repo: ProxyPoolsRepository;
  config: { encryptionKey: Buffer; engineAllowPrivateTargets: boolean };
  resolveHost?: ResolveHost;
}) {
  const { repo, config } = deps;
  const ownership = createProxyPoolOwnership(repo);

  /** Proxies obey the targets' SSRF rule: no private address unless the operator lifted the guard. */
  async function checkPublic(url: URL, index: number): Promise<void> {
    const policy = { allowPrivateTargets: config.engineAllowPrivateTargets, resolveHost: deps.resolveHost };
    const refusal = await refusalOf(url, policy, 'proxy');
    if (refusal) {
      throw new ValidationError(
        `proxies[${index}] (${url.hostname}) resolves to ${describeRefusedAddress(refusal)}; proxies must be public addresses unless the operator sets ENGINE_ALLOW_PRIVATE_TARGETS=true.`,
      );
    }
  }

  return {
    async create(actor: Principal, input: { name: string; proxies: string[] }) {
      const urls = input.proxies.map((p, i) => {
        let url: URL;
        try {
          url = new URL(p);
        } catch {
          throw new ValidationError(`proxies[${i}] is not a URL.`);
        }
        if (!PROXY_PROTOCOLS.includes(url.protocol))
          throw new ValidationError(`proxies[${i}] must be an http:// or https:// proxy URL.`);
        return url;
      });
      await Promise.all(urls.map((url, i) => checkPublic(url, i)));
      return view(
        await repo.create({
          organizationId: actor.organizationId,
          name: input.name.trim(),
          proxies: seal(config.encryptionKey, JSON.stringify(input.proxies)),
          proxyCount: input.proxies.length,
        }),
      );
    },
    async list(actor: Principal) {
      return (await repo.list(actor.organizationId)).map(view);
    },
    async get(actor: Principal, id: number) {
      return view(await ownership.requireOwned(actor.organizationId, id));
    },
  };
}
export type ProxyPoolsService = ReturnType<typeof createProxyPoolsService>;
