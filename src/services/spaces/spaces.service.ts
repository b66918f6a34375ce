// The rules of Spaces: which ones a caller sees, finding one by name, creating them and granting
// membership (org admins only). Access decisions go through the access service (docs/api-contract.md §2).
import type { Clock } from '../../lib/clock.js';
import type { AddMemberInput, CreateSpaceInput } from '../../schemas/spaces.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { AccessService } from '../access/access.service.js';
import { requireAdmin } from '../identity/api-keys.service.js';
import type { Principal } from '../identity/principal.js';
import type { SpaceRow, SpacesRepository } from './spaces.repository.js';

export type SpaceView = SpaceRow;

function toSpaceView(s: SpaceRow): SpaceView {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    organizationId: s.organizationId,
    created: s.created,
    updated: s.updated,
    isDefaultAccess: s.isDefaultAccess,
  };
}

export function createSpacesService(deps: {
  repo: SpacesRepository;
  access: Pick<AccessService, 'requireSpace' | 'readableSpaceIds'>;
  clock: Clock;
}) {
  const { repo, access, clock } = deps;

  return {
    async list(principal: Principal): Promise<SpaceView[]> {
      const ids = await access.readableSpaceIds(principal);
      return (await repo.listSpaces(principal.organizationId, ids)).map(toSpaceView);
    },

    async get(principal: Principal, spaceId: number): Promise<SpaceView> {
      await access.requireSpace(principal, spaceId, 'read');
      const space = await repo.findSpace(spaceId);
      if (!space) throw new NotFoundError(`Space ${spaceId} was not found.`);
      return toSpaceView(space);
    },

    /** One Space, as the public client expects: exact (case-insensitive) name first, else contains. */
    async search(principal: Principal, name: string): Promise<SpaceView> {
      const ids = await access.readableSpaceIds(principal);
      const space = await repo.findSpaceByName(principal.organizationId, ids, name.trim() || name);
      if (!space) throw new NotFoundError(`No space named like '${name}' was found.`);
      return toSpaceView(space);
    },

    async agents(principal: Principal, spaceId: number) {
      await access.requireSpace(principal, spaceId, 'read');
      return repo.listSpaceAgents(spaceId);
    },

    async create(principal: Principal, input: CreateSpaceInput): Promise<SpaceView> {
      requireAdmin(principal);
      const name = input.name.trim();
      // Names are unique per organization ignoring case, so that search by name is unambiguous.
      if (await repo.findSpaceNamedLike(principal.organizationId, name))
        throw new ConflictError(`A space named '${name}' already exists.`);
      // Two concurrent creations of the same name: the unique key's 409 (src/db/prisma.ts).
      const space = await repo.createSpace({
        organizationId: principal.organizationId,
        name,
        description: input.description ?? '',
        isDefaultAccess: input.isDefaultAccess ?? false,
        at: clock.now(),
      });
      return toSpaceView(space);
    },

    /** Adds a member or changes their role (upsert). A user of another organization is not found. */
    async addMember(principal: Principal, spaceId: number, input: AddMemberInput) {
      requireAdmin(principal);
      await access.requireSpace(principal, spaceId, 'write');
      const user = await repo.findUser(input.userId);
      if (!user || user.organizationId !== principal.organizationId)
        throw new NotFoundError(`User ${input.userId} was not found.`);
      const m = await repo.upsertMembership(spaceId, user.id, input.role);
      return {
        spaceId: m.spaceId,
        userId: m.userId,
        role: m.role === 'editor' ? ('editor' as const) : ('reader' as const),
      };
    },
  };
}
export type SpacesService = ReturnType<typeof createSpacesService>;
