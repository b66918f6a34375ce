// Authorization (docs/api-contract.md §1.6 and §2). Another organization's resource answers 404 so its existence
// is not revealed; a resource of the caller's organization that the caller cannot reach answers 403.
// Org admins reach every Space of their org; a default-access Space is readable and writable by
// every member; other Spaces by their members (reader or editor).
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { Principal } from '../identity/principal.js';
import type { AccessRepository } from './access.repository.js';

export type SpaceRole = 'editor' | 'reader';
export type Need = 'read' | 'write';

/** What decides access to a resource: its Space, and the caller's membership role there (if any). */
export interface SpaceAccess {
  organizationId: number;
  isDefaultAccess: boolean;
  membershipRole: string | null;
}

/** The caller's role in a Space of their organization, or null when they cannot reach it. */
export function spaceRole(principal: Principal, space: SpaceAccess): SpaceRole | null {
  if (space.organizationId !== principal.organizationId) return null;
  if (principal.role === 'admin' || space.isDefaultAccess) return 'editor';
  if (space.membershipRole === null) return null;
  return space.membershipRole === 'editor' ? 'editor' : 'reader';
}

/**
 * The one access rule for a resource found (or not) with its Space access: 404 when missing or of
 * another organization, 403 when the caller cannot reach it (or only read it and `need` is write).
 */
export function checkAccess(
  principal: Principal,
  found: SpaceAccess | null,
  need: Need,
  what: { missing: string; name: string },
): void {
  if (!found || found.organizationId !== principal.organizationId) throw new NotFoundError(what.missing);
  const role = spaceRole(principal, found);
  if (!role) throw new ForbiddenError(`You do not have access to ${what.name}.`);
  if (need === 'write' && role !== 'editor') throw new ForbiddenError(`You have read-only access to ${what.name}.`);
}

/** How an Agent is named in the 404 and 403 answers about it. */
export const agentSubject = (agentId: number) => ({
  missing: `Agent ${agentId} was not found.`,
  name: `agent ${agentId}`,
});

export function createAccessService(deps: { repo: AccessRepository }) {
  const { repo } = deps;

  return {
    async requireSpace(principal: Principal, spaceId: number, need: Need) {
      const found = await repo.findSpace(spaceId, principal.userId);
      const access = found && {
        organizationId: found.organizationId,
        isDefaultAccess: found.isDefaultAccess,
        membershipRole: found.membershipRole,
      };
      checkAccess(principal, access, need, { missing: `Space ${spaceId} was not found.`, name: `space ${spaceId}` });
      const { membershipRole: _role, ...space } = found!;
      return space;
    },

    async requireAgent(principal: Principal, agentId: number, need: Need) {
      const found = await repo.findAgent(agentId, principal.userId);
      checkAccess(principal, found, need, agentSubject(agentId));
      const { isDefaultAccess: _default, membershipRole: _role, ...agent } = found!;
      return agent;
    },

    /** A Run of an Agent the caller can reach (404 for a Run the Agent does not have), in one query. */
    async requireAgentRun(principal: Principal, agentId: number, runId: number, need: Need) {
      const found = await repo.findAgentRun(agentId, runId, principal.userId);
      checkAccess(
        principal,
        found && { organizationId: found.organizationId, ...found.access },
        need,
        agentSubject(agentId),
      );
      if (!found!.run) throw new NotFoundError(`Run ${runId} of agent ${agentId} was not found.`);
      return found!.run;
    },

    /** 'all' for admins (every Space of the org); otherwise the readable Space ids. */
    async readableSpaceIds(principal: Principal): Promise<number[] | 'all'> {
      if (principal.role === 'admin') return 'all';
      return repo.readableSpaceIds(principal.organizationId, principal.userId);
    },
  };
}
export type AccessService = ReturnType<typeof createAccessService>;
