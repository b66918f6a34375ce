// The rules of Agents: creation, edits that make versions, restore, archive, and the catalogue
// queries (agent/all, agent/search). Every decision about who may do what goes through the access
// service (docs/api-contract.md §2).
import type { Clock } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import type { Prisma } from '../../db/prisma.js';
import type { CreateAgentInput, UpdateAgentInput } from '../../schemas/agents.js';
import { agentSubject, checkAccess, type AccessService } from '../access/access.service.js';
import type { ProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import type { Principal } from '../identity/principal.js';
import {
  checkDefinitionInput,
  inputParameterList,
  maskDefinition,
  statusOf,
  ValidationStatus,
  type CheckedDefinition,
} from './agent-definition.js';
import { sealDefinitionSecrets } from './definition-secrets.js';
import { unpagedLimit } from '../../lib/paging.js';
import { parseAgentListQuery, type AgentListRequest } from './agent-query.js';
import { toAgentView, type AgentView } from './agent-view.js';
import type { AgentScope, AgentsRepository } from './agents.repository.js';

/** The legacy unpaged list comes in batches (see `list`), so that it can be streamed. */
export type AgentBatches = AsyncIterable<AgentView[]>;
export type AgentListResult = AgentBatches | { agents: AgentView[]; totalRecordCount: number };

/** Rows read per statement while the unpaged list is streamed. */
export const UNPAGED_BATCH = 2000;

export function createAgentsService(deps: {
  repo: AgentsRepository;
  access: Pick<AccessService, 'requireSpace' | 'requireAgent' | 'readableSpaceIds'>;
  proxyPools: Pick<ProxyPoolOwnership, 'resolve'>;
  clock: Clock;
  config: { encryptionKey: Buffer };
}) {
  const { repo, access, proxyPools, clock, config } = deps;

  async function scopeOf(principal: Principal): Promise<AgentScope> {
    return { organizationId: principal.organizationId, spaceIds: await access.readableSpaceIds(principal) };
  }

  async function viewOf(agentId: number): Promise<AgentView> {
    const row = await repo.findAgentRow(agentId);
    if (!row) throw new NotFoundError(`Agent ${agentId} was not found.`);
    return toAgentView(row);
  }

  /** null and values <= 0 mean "no proxy pool"; the ownership rule is the proxy-pools domain's. */
  const proxyPoolOf = (principal: Principal, proxyPoolId: number | null | undefined) =>
    proxyPools.resolve(principal.organizationId, proxyPoolId);

  async function saveVersion(
    principal: Principal,
    agentId: number,
    checked: CheckedDefinition,
    comments: string,
    tx: Prisma.TransactionClient,
  ) {
    return repo.addVersion(
      agentId,
      {
        definition: sealDefinitionSecrets(checked.definition, config.encryptionKey),
        comments,
        fileSize: checked.fileSize,
        userId: principal.userId,
        userName: principal.name,
        // A restored definition may predate today's schema; an Agent row always gets a string.
        startUrl: typeof checked.definition.startUrl === 'string' ? checked.definition.startUrl : '',
        validationStatus: checked.validationStatus,
        at: clock.now(),
      },
      tx,
    );
  }

  return {
    /** GET /agent/all: a plain array without paging, `{ agents, totalRecordCount }` with it. */
    async list(principal: Principal, query: Parameters<typeof parseAgentListQuery>[0]): Promise<AgentListResult> {
      const request: AgentListRequest = parseAgentListQuery(query);
      // A Space filter names a resource: another org's Space is 404, an unreachable one 403.
      if (request.filter.spaceId !== undefined) await access.requireSpace(principal, request.filter.spaceId, 'read');
      const scope = await scopeOf(principal);
      if (request.page) {
        const { rows, total } = await repo.listAgentPage(scope, request.filter, request.sort, request.page);
        return { agents: rows.map(toAgentView), totalRecordCount: total };
      }
      // Unpaged: which Agents and in what order is decided once, by one statement (index-only
      // without a name filter); their rows are then read in batches while the answer is written,
      // so 100,000 Agents are never all in memory. An Agent archived or moved out of reach since
      // the first statement is left out; one changed otherwise shows its newer values.
      const ids = await repo.listAgentIds(scope, request.filter, request.sort);
      const read = (from: number) => repo.listAgentsById(scope, request.filter, ids.slice(from, from + UNPAGED_BATCH));
      return (async function* batches() {
        // The next batch is read while the caller serializes this one (the database works meanwhile).
        let next = ids.length > 0 ? read(0) : null;
        try {
          for (let from = 0; next; from += UNPAGED_BATCH) {
            const rows = await next;
            next = from + UNPAGED_BATCH < ids.length ? read(from + UNPAGED_BATCH) : null;
            yield rows.map(toAgentView);
          }
        } finally {
          // Stopped early (the client went away): a read still under way must not reject unheard.
          next?.catch(() => {});
        }
      })();
    },

    async search(principal: Principal, text: string, maxRecords?: number): Promise<AgentView[]> {
      const rows = await repo.searchAgents(await scopeOf(principal), text, unpagedLimit(maxRecords));
      return rows.map(toAgentView);
    },

    async get(principal: Principal, agentId: number): Promise<AgentView> {
      // The hottest read: the Agent and the caller's access to it in one statement.
      const row = await repo.findAgentRowWithAccess(agentId, principal.userId);
      checkAccess(principal, row, 'read', agentSubject(agentId));
      return toAgentView(row!);
    },

    /** The Agent and, in `problems`, what makes its definition Invalid (empty when Valid). */
    async create(principal: Principal, input: CreateAgentInput): Promise<AgentView & { problems: string[] }> {
      const space = await access.requireSpace(principal, input.spaceId, 'write');
      const checked = checkDefinitionInput(input.definition);
      const proxyPoolId = (await proxyPoolOf(principal, input.proxyPoolId)) ?? null;
      const at = clock.now();
      const { id } = await repo.transaction((tx) =>
        repo.createAgent(
          {
            organizationId: principal.organizationId,
            spaceId: space.id,
            userId: principal.userId,
            name: input.name.trim(),
            description: input.description ?? '',
            documentation: input.documentation ?? '',
            icon: input.icon ?? '',
            image: input.image ?? null,
            configType: input.configType ?? 1,
            proxyPoolId,
            startUrl: checked.definition.startUrl,
            validationStatus: checked.validationStatus,
            at,
          },
          {
            definition: sealDefinitionSecrets(checked.definition, config.encryptionKey),
            comments: input.comments ?? '',
            fileSize: checked.fileSize,
            userId: principal.userId,
            userName: principal.name,
          },
          tx,
        ),
      );
      return { ...(await viewOf(id)), problems: checked.problems };
    },

    /** Edits fields; a definition makes a new (active) version. Moving needs editor on both Spaces. */
    async update(
      principal: Principal,
      agentId: number,
      input: UpdateAgentInput,
    ): Promise<AgentView & { problems: string[] }> {
      const agent = await access.requireAgent(principal, agentId, 'write');
      if (input.spaceId !== undefined && input.spaceId !== agent.spaceId)
        await access.requireSpace(principal, input.spaceId, 'write');
      const proxyPoolId = await proxyPoolOf(principal, input.proxyPoolId);
      let checked: CheckedDefinition | null = null;
      if (input.definition !== undefined) {
        const active = await repo.findVersion(agentId, agent.version);
        checked = checkDefinitionInput(input.definition, active?.definition);
      }
      const fields = {
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.documentation !== undefined && { documentation: input.documentation }),
        ...(input.icon !== undefined && { icon: input.icon }),
        ...(input.image !== undefined && { image: input.image }),
        ...(proxyPoolId !== undefined && { proxyPoolId }),
        ...(input.spaceId !== undefined && { spaceId: input.spaceId }),
      };
      await repo.transaction(async (tx) => {
        await repo.updateAgent(agentId, fields, clock.now(), tx);
        if (checked) await saveVersion(principal, agentId, checked, input.comments ?? '', tx);
      });
      const view = await viewOf(agentId);
      const problems = checked
        ? checked.problems
        : statusOf((await repo.findVersion(agentId, view.version))?.definition).problems;
      return { ...view, problems };
    },

    /** GET .../definition: the active version by default; historical versions report Unknown. */
    async definition(principal: Principal, agentId: number, version?: number) {
      const agent = await access.requireAgent(principal, agentId, 'read');
      const wanted = version ?? agent.version;
      const row = await repo.findVersion(agentId, wanted);
      if (!row) throw new NotFoundError(`Version ${wanted} of agent ${agentId} was not found.`);
      const active = row.version === agent.version;
      const status = active
        ? statusOf(row.definition)
        : { validationStatus: ValidationStatus.Unknown, problems: [] as string[] };
      return {
        agentId,
        version: row.version,
        validationStatus: status.validationStatus,
        problems: status.problems,
        definition: maskDefinition(row.definition),
      };
    },

    async versions(principal: Principal, agentId: number) {
      await access.requireAgent(principal, agentId, 'read');
      return repo.listVersions(agentId);
    },

    /** Makes a NEW version holding the definition of `version` (history is never rewritten). */
    async restore(principal: Principal, agentId: number, version: number, comments?: string): Promise<AgentView> {
      await access.requireAgent(principal, agentId, 'write');
      const source = await repo.findVersion(agentId, version);
      if (!source) throw new NotFoundError(`Version ${version} of agent ${agentId} was not found.`);
      const status = statusOf(source.definition);
      await repo.transaction((tx) =>
        saveVersion(
          principal,
          agentId,
          {
            definition: source.definition as never,
            validationStatus: status.validationStatus,
            problems: status.problems,
            fileSize: source.fileSize,
          },
          comments && comments.trim() !== '' ? comments : `Restored from version ${version}`,
          tx,
        ),
      );
      return viewOf(agentId);
    },

    async archive(principal: Principal, agentId: number): Promise<AgentView> {
      await access.requireAgent(principal, agentId, 'write');
      await repo.transaction((tx) => repo.archive(agentId, clock.now(), tx));
      return viewOf(agentId);
    },

    async unarchive(principal: Principal, agentId: number): Promise<AgentView> {
      await access.requireAgent(principal, agentId, 'write');
      await repo.unarchive(agentId, clock.now());
      return viewOf(agentId);
    },

    async inputParameters(principal: Principal, agentId: number) {
      const agent = await access.requireAgent(principal, agentId, 'read');
      const active = await repo.findVersion(agentId, agent.version);
      return inputParameterList((active?.definition as { parameters?: unknown } | undefined)?.parameters);
    },
  };
}
export type AgentsService = ReturnType<typeof createAgentsService>;
