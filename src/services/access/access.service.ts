// Authorization (design.md section 2). Another organization's resource answers 404 so its existence
// is not revealed; a resource of the caller's organization that the caller cannot reach answers 403.
// Org admins reach every Space of their org; a default-access Space is readable and writable by
// every member; other Spaces by their members (reader or editor).
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Principal } from '../identity/principal.js';
import type { AccessRepository } from './access.repository.js';

export type SpaceRole = 'editor' | 'reader';
export type Need = 'read' | 'write';

interface SpaceLike {
  id: number;
  organizationId: number;
  isDefaultAccess: boolean;
}

export function createAccessService(deps: { repo: AccessRepository }) {
  const { repo } = deps;

  async function roleIn(principal: Principal, space: SpaceLike): Promise<SpaceRole | null> {
    if (space.organizationId !== principal.organizationId) return null;
    if (principal.role === 'admin' || space.isDefaultAccess) return 'editor';
    const m = await repo.membership(space.id, principal.userId);
    return m ? (m.role === 'editor' ? 'editor' : 'reader') : null;
  }

  function check(role: SpaceRole | null, need: Need, what: string) {
    if (!role) throw new ForbiddenError(`You do not have access to ${what}.`);
    if (need === 'write' && role !== 'editor') throw new ForbiddenError(`You have read-only access to ${what}.`);
  }

  return {
    roleIn,

    async requireSpace(principal: Principal, spaceId: number, need: Need) {
      const space = await repo.findSpace(spaceId);
      if (!space || space.organizationId !== principal.organizationId) throw new NotFoundError(`Space ${spaceId} was not found.`);
      check(await roleIn(principal, space), need, `space ${spaceId}`);
      return space;
    },

    async requireAgent(principal: Principal, agentId: number, need: Need) {
      const agent = await repo.findAgent(agentId);
      if (!agent || agent.organizationId !== principal.organizationId) throw new NotFoundError(`Agent ${agentId} was not found.`);
      check(await roleIn(principal, agent.space), need, `agent ${agentId}`);
      return agent;
    },

    /** 'all' for admins (every Space of the org); otherwise the readable Space ids. */
    async readableSpaceIds(principal: Principal): Promise<number[] | 'all'> {
      if (principal.role === 'admin') return 'all';
      return repo.readableSpaceIds(principal.organizationId, principal.userId);
    },
  };
}
export type AccessService = ReturnType<typeof createAccessService>;
