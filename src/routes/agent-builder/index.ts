// Agent Builder (docs/api-contract.md §8): start, read, long-poll events, refine, finish, stop.
// HTTP only: the rules live in services/builder.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import {
  BuilderEventsSchema,
  BuilderSessionSchema,
  EventsQuery,
  FinishBody,
  MessageBody,
  StartSessionBody,
  StartSessionResult,
} from '../../schemas/agent-builder.js';
import { AgentSchema } from '../../schemas/agents.js';
import { errorResponses } from '../../schemas/common.js';
import { SessionParams } from '../../schemas/params.js';

const agentBuilderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Agent Builder'];
  const Session = Type.Ref(BuilderSessionSchema);

  app.post(
    '/api/v1/agent-builder/start',
    {
      schema: {
        tags,
        operationId: 'startAgentBuilderSession',
        summary: 'Start an Agent Builder session from a prompt and a page',
        description:
          'Queues the builder: it reads the page (url, or the first URL in the prompt), finds its repeated records and proposes an Agent ' +
          "definition named from the prompt's words, with a preview. A page that is itself one record (an article, a product page: its " +
          'JSON-LD, Open Graph or microdata say so) and a prompt asking for no list give a one-record Agent read from the page root. ' +
          'A field the prompt names and the page lacks is reported in the draft event with the reason and the closest candidates. ' +
          'Follow it with GET .../events. A missing URL, a prompt under 10 characters or over 5000 answer 400; spaceId needs editor access.',
        body: StartSessionBody,
        response: { 201: StartSessionResult, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => reply.code(201).send(await app.builder.start(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/agent-builder/:sessionId',
    {
      schema: {
        tags,
        operationId: 'getAgentBuilderSession',
        summary: 'Get an Agent Builder session (status, draft, preview)',
        description:
          "Another organization's session, or an unknown id, answers 404; a session in a Space the caller cannot read answers 403.",
        params: SessionParams,
        response: { 200: Session, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.builder.get(principalOf(req), req.params.sessionId),
  );

  app.get(
    '/api/v1/agent-builder/:sessionId/events',
    {
      config: { waitSeconds: app.config.builder.eventsWaitSeconds },
      schema: {
        tags,
        operationId: 'getAgentBuilderEvents',
        summary: 'Long-poll the events of an Agent Builder session',
        description:
          'Events with index > lastEventIndex. When there are none yet and the session is processing or ready, the request waits up to 30 s ' +
          '(BUILDER_EVENTS_WAIT_SECONDS) and answers as soon as the next event is written; then with an empty list. Ended sessions answer at once.',
        params: SessionParams,
        querystring: EventsQuery,
        response: { 200: Type.Ref(BuilderEventsSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      // A client that goes away stops the wait (the response's 'close' before it finished; the
      // request's own 'close' only means its body was read).
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        return await app.builder.events(
          principalOf(req),
          req.params.sessionId,
          req.query.lastEventIndex ?? 0,
          gone.signal,
        );
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  app.post(
    '/api/v1/agent-builder/:sessionId/message',
    {
      schema: {
        tags,
        operationId: 'messageAgentBuilderSession',
        summary: 'Refine the draft with a message',
        description:
          "E.g. 'also take the rating', 'drop the image', 'follow each link for the description', 'rename title to name', 'only the first page'. " +
          'The session goes back to processing and becomes ready with the new draft and preview. Only a ready session takes messages (409 SESSION_STATE_CONFLICT otherwise).',
        params: SessionParams,
        body: MessageBody,
        response: { 200: Session, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => app.builder.message(principalOf(req), req.params.sessionId, req.body.message),
  );

  app.post(
    '/api/v1/agent-builder/:sessionId/finish',
    {
      schema: {
        tags,
        operationId: 'finishAgentBuilderSession',
        summary: 'Create the Agent from the ready draft',
        description:
          "201 with the new Agent (version 1) in spaceId (default: the session's Space). Only a ready session can be finished; a processing, " +
          'completed, cancelled or errored one answers 409 SESSION_STATE_CONFLICT. Without any Space: 400.',
        params: SessionParams,
        body: FinishBody,
        response: { 201: Type.Ref(AgentSchema), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await app.builder.finish(principalOf(req), req.params.sessionId, req.body ?? {})),
  );

  app.post(
    '/api/v1/agent-builder/:sessionId/stop',
    {
      schema: {
        tags,
        operationId: 'stopAgentBuilderSession',
        summary: 'Stop a session and release its resources',
        description:
          'Cancels the session: a queued step is removed and a running one aborts its page requests. Stopping a cancelled (or errored) session again ' +
          'answers 204; stopping a completed one answers 409 SESSION_STATE_CONFLICT.',
        params: SessionParams,
        response: { 204: Type.Null({ description: 'Stopped.' }), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await app.builder.stop(principalOf(req), req.params.sessionId);
      return reply.code(204).send(null);
    },
  );
};

export default agentBuilderRoutes;
