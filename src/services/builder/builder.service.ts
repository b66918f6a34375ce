// The Agent Builder as the API sees it (docs/api-contract.md §8): start a session (the work is queued,
// never done in the request), read it, long-poll its events, refine with a message, finish into an
// Agent through the agents service, stop. Access follows the session's Space like an Agent's.
import crypto from 'node:crypto';
import { isHttpUrl, type AgentDefinition } from '../../engine/definition.js';
import type { Clock } from '../../lib/clock.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { AccessService, Need } from '../access/access.service.js';
import type { AgentsService } from '../agents/agents.service.js';
import type { Principal } from '../identity/principal.js';
import type { ProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import type { BuilderRepository, SessionRow } from './builder.repository.js';
import type { EventsPublisher, EventsSubscriber } from './events-bus.js';
import { assertCanFinish, assertCanMessage, isFinal, SessionStatus, stopDecision } from './session-state.js';

export interface BuilderQueue {
  enqueueStep(sessionId: string, step: number): Promise<void>;
  removeStep(sessionId: string, step: number): Promise<void>;
}

export interface StartInput {
  prompt: string;
  url?: string;
  spaceId?: number;
  mode?: 'prompt';
  proxyPoolId?: number;
}

export function sessionView(row: SessionRow) {
  return {
    sessionId: row.id,
    status: row.status as SessionStatus,
    prompt: row.prompt,
    url: row.url,
    spaceId: row.spaceId,
    mode: row.mode,
    draft: (row.draft ?? null) as AgentDefinition | null,
    preview: (row.preview ?? null) as Array<Record<string, string | number | null>> | null,
    agentId: row.agentId,
    error: row.error,
    created: row.created,
    updated: row.updated,
  };
}
export type SessionView = ReturnType<typeof sessionView>;

/** The first http(s) URL written in a prompt, without trailing punctuation. */
export function urlInPrompt(prompt: string): string | undefined {
  const match = prompt.match(/https?:\/\/[^\s<>"')\]]+/i)?.[0]?.replace(/[.,;:!?]+$/, '');
  return match && isHttpUrl(match) ? match : undefined;
}

/** A default Agent name: the prompt's first words. */
export function nameFromPrompt(prompt: string, url: string | null): string {
  let text = prompt
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > 80) text = `${text.slice(0, 77).replace(/\s+\S*$/, '')}...`;
  // "... of each product on <url>": the words left dangling by the URL go too.
  text = text.replace(/(?:[\s:,;.-]+(?:on|at|from|in|of|here|this page|page))*[\s:,;.-]*$/i, '').trim();
  if (text.length >= 3) return text;
  try {
    return `Agent for ${new URL(url ?? '').hostname}`;
  } catch {
    return 'Agent Builder agent';
  }
}

export function createBuilderService(deps: {
  repo: BuilderRepository;
  access: Pick<AccessService, 'requireSpace'>;
  agents: Pick<AgentsService, 'create'>;
  proxyPools: Pick<ProxyPoolOwnership, 'requireOwned'>;
  queue: BuilderQueue;
  publisher: EventsPublisher;
  subscriber: Pick<EventsSubscriber, 'waiter'>;
  clock: Clock;
  config: { builder: { eventsWaitSeconds: number } };
}) {
  const { repo, access, queue, publisher, clock } = deps;

  /** The session, if the caller may `need` it: another organization's answers 404, an unreachable Space 403. */
  async function reach(principal: Principal, sessionId: string, need: Need): Promise<SessionRow> {
    const row = await repo.find(sessionId);
    if (!row || row.organizationId !== principal.organizationId)
      throw new NotFoundError(`Agent Builder session ${sessionId} was not found.`);
    if (row.spaceId !== null) await access.requireSpace(principal, row.spaceId, need);
    else if (row.userId !== principal.userId && principal.role !== 'admin') {
      throw new ForbiddenError(`Agent Builder session ${sessionId} belongs to another user and no Space.`);
    }
    return row;
  }

  async function signal(sessionId: string, status: string) {
    await publisher.publish({ sessionId, status });
  }

  /** Queues a step; when the queue is unreachable the session is not left processing forever. */
  async function enqueueOr(sessionId: string, step: number, fallback: { status: SessionStatus; error?: string }) {
    try {
      await queue.enqueueStep(sessionId, step);
    } catch (err) {
      await repo.withLocked(sessionId, clock.now(), (row) => ({
        data: row.status === SessionStatus.Processing && row.step === step ? fallback : undefined,
        result: null,
      }));
      throw err;
    }
  }

  return {
    async start(principal: Principal, input: StartInput): Promise<{ success: true; sessionId: string }> {
      const prompt = input.prompt.trim();
      if (prompt.length < 10)
        throw new ValidationError('prompt must be at least 10 characters (not counting surrounding spaces).');
      const url = input.url?.trim() || urlInPrompt(prompt);
      if (!url)
        throw new ValidationError(
          'The builder needs a page to read: send `url` (the list page to extract from) or write its address in the prompt.',
        );
      if (!isHttpUrl(url)) throw new ValidationError(`url '${url}' is not an http(s) URL.`);
      if (input.spaceId !== undefined) await access.requireSpace(principal, input.spaceId, 'write');
      if (input.proxyPoolId !== undefined)
        await deps.proxyPools.requireOwned(principal.organizationId, input.proxyPoolId);
      const sessionId = crypto.randomUUID();
      await repo.create(
        {
          id: sessionId,
          organizationId: principal.organizationId,
          userId: principal.userId,
          spaceId: input.spaceId ?? null,
          prompt,
          url,
          mode: input.mode ?? 'prompt',
          proxyPoolId: input.proxyPoolId ?? null,
          at: clock.now(),
        },
        {
          type: 'started',
          message: `Session started: the builder will read ${url} and propose an Agent for your prompt.`,
          data: { url },
        },
      );
      await enqueueOr(sessionId, 1, {
        status: SessionStatus.Error,
        error: 'The builder could not be queued; start a new session.',
      });
      return { success: true, sessionId };
    },

    async get(principal: Principal, sessionId: string): Promise<SessionView> {
      return sessionView(await reach(principal, sessionId, 'read'));
    },

    /** Events after `lastEventIndex`; when there are none yet, waits (up to the configured time) for the next. */
    async events(principal: Principal, sessionId: string, lastEventIndex: number, abort?: AbortSignal) {
      const reached = await reach(principal, sessionId, 'read');
      // The status is read after the events: a status and the event that announced it are written
      // together, so the answer never shows an event newer than its status.
      const read = async () => {
        const events = (await repo.eventsAfter(sessionId, lastEventIndex)).map((e) => ({
          index: e.index,
          type: e.type,
          message: e.message,
          data: e.data ?? null,
          created: e.created,
        }));
        const status = ((await repo.find(sessionId)) ?? reached).status as SessionStatus;
        return { status, events };
      };
      // Registered before reading, so an event committed in between still wakes this request.
      const waiter = await deps.subscriber.waiter(sessionId, deps.config.builder.eventsWaitSeconds * 1000, abort);
      try {
        const first = await read();
        if (first.events.length > 0 || isFinal(first.status)) return first;
        return (await waiter.wait) ? await read() : first;
      } finally {
        waiter.cancel();
      }
    },

    async message(principal: Principal, sessionId: string, text: string): Promise<SessionView> {
      await reach(principal, sessionId, 'write');
      const step = await repo.withLocked(sessionId, clock.now(), (row) => {
        assertCanMessage(sessionId, row.status);
        return {
          data: { status: SessionStatus.Processing, step: row.step + 1 },
          events: [{ type: 'message', message: text, data: { message: text } }],
          result: row.step + 1,
        };
      });
      if (step === null) throw new NotFoundError(`Agent Builder session ${sessionId} was not found.`);
      // The draft is still there: a message that could not be queued leaves the session ready.
      await enqueueOr(sessionId, step, { status: SessionStatus.Ready });
      await signal(sessionId, SessionStatus.Processing);
      return sessionView((await repo.find(sessionId)) as SessionRow);
    },

    async finish(principal: Principal, sessionId: string, input: { name?: string; spaceId?: number }) {
      const row = await reach(principal, sessionId, 'write');
      assertCanFinish(sessionId, row.status);
      const spaceId = input.spaceId ?? row.spaceId;
      if (spaceId === null)
        throw new ValidationError(
          'spaceId is required: the session was started without a Space, so say where the Agent goes.',
        );
      await access.requireSpace(principal, spaceId, 'write');
      // Claimed first, so two finishes cannot both make an Agent.
      const claimed = await repo.withLocked(sessionId, clock.now(), (locked) => {
        assertCanFinish(sessionId, locked.status);
        return { data: { status: SessionStatus.Completed }, result: locked };
      });
      if (!claimed) throw new NotFoundError(`Agent Builder session ${sessionId} was not found.`);
      let agent: Awaited<ReturnType<AgentsService['create']>>;
      try {
        agent = await deps.agents.create(principal, {
          name: input.name?.trim() || nameFromPrompt(claimed.prompt, claimed.url),
          spaceId,
          description: claimed.prompt.slice(0, 4000),
          // A ready session always has a draft (assertCanFinish).
          definition: claimed.draft as object,
          proxyPoolId: claimed.proxyPoolId,
          comments: `Created by the Agent Builder (session ${sessionId}).`,
        });
      } catch (err) {
        await repo.withLocked(sessionId, clock.now(), (locked) => ({
          data:
            locked.status === SessionStatus.Completed && locked.agentId === null
              ? { status: SessionStatus.Ready }
              : undefined,
          result: null,
        }));
        throw err;
      }
      await repo.withLocked(sessionId, clock.now(), () => ({
        data: { agentId: agent.id, spaceId },
        events: [
          {
            type: 'completed',
            message: `Finished: Agent ${agent.id} '${agent.name}' was created.`,
            data: { agentId: agent.id },
          },
        ],
        result: null,
      }));
      await signal(sessionId, SessionStatus.Completed);
      return agent;
    },

    async stop(principal: Principal, sessionId: string): Promise<void> {
      await reach(principal, sessionId, 'write');
      const outcome = await repo.withLocked(sessionId, clock.now(), (row) => {
        if (stopDecision(sessionId, row.status) === 'nothing') return { result: null };
        return {
          data: { status: SessionStatus.Cancelled },
          events: [{ type: 'cancelled', message: 'Stopped: the session was cancelled and its work released.' }],
          result: row.step,
        };
      });
      if (outcome === null) return;
      // A waiting job is removed; a running one hears the signal and aborts its requests.
      await queue.removeStep(sessionId, outcome);
      await signal(sessionId, SessionStatus.Cancelled);
    },
  };
}
export type BuilderService = ReturnType<typeof createBuilderService>;
