// Runs: start, status, list, stop, kill, delete, files, download, and run-all of a Space.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { SYNC_START_MAX_WAIT_SECONDS } from '../../services/runs/runs.service.js';
import {
  OrgRunsQuerySchema,
  RunAllBody,
  RunAllResultSchema,
  RunFileSchema,
  RunListQuery,
  RunLogTailQuery,
  RunListItemSchema,
  RunLogTailSchema,
  RunSchema,
  RunStatusQuery,
  RUN_WAIT_FOR_FINISH_MAX_SECONDS,
  StartRunBody,
} from '../../schemas/runs.js';
import { AgentParams, AgentRunParams, RunFileParams, SpaceParams } from '../../schemas/params.js';

const runsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const Run = Type.Ref(RunSchema);
  const RunListItem = Type.Ref(RunListItemSchema);

  app.post(
    '/api/v1/agent/:agentId/start',
    {
      config: { waitSeconds: SYNC_START_MAX_WAIT_SECONDS },
      schema: {
        tags: ['Runs'],
        summary: 'Start an Agent',
        operationId: 'startAgent',
        description:
          "Asynchronous (default): 202 with the queued Run. With isRunSynchronously: 200 with the extracted records as a JSON array when the Run succeeds within `timeout` seconds (default 60, at most 300); 200 with the Run when it ends otherwise (Failure, Stopped); 202 with the Run when it is still going, or when it succeeded with more records than are answered inline (RUN_SYNC_INLINE_MAX_BYTES of stored records, default 16 MiB; read them from the Run's files). 503 with Retry-After when the run queue is unavailable: then no Run was created. POST is not idempotent: a repeated start queues another Run.",
        params: AgentParams,
        body: StartRunBody,
        response: {
          200: Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Run], {
            description: 'Records (Success/Completed), or the ended Run.',
          }),
          202: Run,
          ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
        },
      },
    },
    async (req, reply) => {
      const result = await app.runs.start(principalOf(req), req.params.agentId, req.body);
      reply.header('X-Run-Id', String(result.run.id));
      if (result.kind === 'queued' || result.kind === 'tooLarge') return reply.code(202).send(result.run);
      // Streamed as stored (already JSON): no serialization of the whole array in memory.
      if (result.kind === 'records')
        return reply.code(200).type('application/json; charset=utf-8').send(Readable.from(result.records));
      return reply.code(200).send(result.run);
    },
  );

  app.get(
    '/api/v1/agent/:agentId/run/:runId/status',
    {
      config: { waitSeconds: RUN_WAIT_FOR_FINISH_MAX_SECONDS },
      schema: {
        tags: ['Runs'],
        summary: 'Get a Run (its status, statistics and progress)',
        description:
          'The Run with its status (RunStatus), times, statistics, error message and, while active, its progress. Poll it after an asynchronous start. ' +
          'With `waitForFinish=<seconds>` (at most 60) the answer waits until the Run is in a terminal status (Failure, Stopped, Completed, Success, Skipped) or the time is up, whichever comes first: one request a minute instead of many polls.',
        operationId: 'getRun',
        params: AgentRunParams,
        querystring: RunStatusQuery,
        response: { 200: Run, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) =>
      app.runs.status(principalOf(req), req.params.agentId, req.params.runId, req.query.waitForFinish ?? 0),
  );

  app.get(
    '/api/v1/agent/:agentId/runs',
    {
      schema: {
        tags: ['Runs'],
        summary: "List an Agent's Runs, newest first",
        operationId: 'listAgentRuns',
        description:
          'Plain array of at most `maxRecords` (default 50, at most 1000); with pageIndex and recordsPerPage, `{ runs, totalRecordCount }`.',
        params: AgentParams,
        querystring: RunListQuery,
        response: {
          200: Type.Union([Type.Array(Run), Type.Object({ runs: Type.Array(Run), totalRecordCount: Type.Integer() })]),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req) => {
      const res = await app.runs.list(principalOf(req), req.params.agentId, req.query);
      return res.paged ? { runs: res.runs, totalRecordCount: res.totalRecordCount } : res.runs;
    },
  );

  app.get(
    '/api/v1/runs',
    {
      schema: {
        tags: ['Runs'],
        summary: 'List Runs across Agents, newest first',
        description:
          'The Runs of every Agent the caller can read in their organization (an admin: all of them; others: the Spaces they can read), newest first. ' +
          'Filters combine: status, agentId, agentName (a case-insensitive part of the name), spaceId, scheduleId, and a creation window (startDate, endDate). An agentId or spaceId the caller cannot read answers 404 or 403 as elsewhere. ' +
          "Each Run carries its Agent's name (agentName). " +
          'Plain array of at most `maxRecords` (default 50, at most 1000); with pageIndex and recordsPerPage, `{ runs, totalRecordCount }`.',
        operationId: 'listRuns',
        querystring: OrgRunsQuerySchema,
        response: {
          200: Type.Union([
            Type.Array(RunListItem),
            Type.Object({ runs: Type.Array(RunListItem), totalRecordCount: Type.Integer() }),
          ]),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req) => {
      const res = await app.runs.listAll(principalOf(req), req.query);
      return res.paged ? { runs: res.runs, totalRecordCount: res.totalRecordCount } : res.runs;
    },
  );

  app.post(
    '/api/v1/agent/:agentId/run/:runId/stop',
    {
      schema: {
        tags: ['Runs'],
        summary: 'Stop a running instance gracefully (the data so far is exported)',
        description:
          'Asks the Run to stop: it moves to Stopping, stops loading pages, exports what it extracted and ends Stopped. A Run in a terminal status answers 409 RUN_NOT_ACTIVE.',
        operationId: 'stopRun',
        params: AgentRunParams,
        response: { 200: Run, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => app.runs.stop(principalOf(req), req.params.agentId, req.params.runId),
  );

  app.post(
    '/api/v1/agent/:agentId/run/:runId/kill',
    {
      schema: {
        tags: ['Runs'],
        summary:
          'Kill a running instance: the first call stops it gracefully, a second call while it is stopping terminates it at once',
        description:
          'The first call stops the Run gracefully (as stop); a second call while it is Stopping terminates its process at once, and data not yet exported is lost. A Run in a terminal status answers 409 RUN_NOT_ACTIVE.',
        operationId: 'killRun',
        params: AgentRunParams,
        response: { 200: Run, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => app.runs.kill(principalOf(req), req.params.agentId, req.params.runId),
  );

  app.delete(
    '/api/v1/agent/:agentId/run/:runId',
    {
      schema: {
        tags: ['Runs'],
        summary: 'Delete a Run, its files, or its files and input parameters',
        description:
          '`removeMethod`: RemoveEntireRun (default) deletes the Run and its files; RemoveAllFiles keeps the Run; RemoveAllFilesAndAgentInput also clears its input parameters. An active Run answers 409 RUN_ACTIVE_CANNOT_DELETE.',
        operationId: 'deleteRun',
        params: AgentRunParams,
        querystring: Type.Object({
          removeMethod: Type.Optional(
            Type.Union(
              [
                Type.Literal('RemoveEntireRun'),
                Type.Literal('RemoveAllFiles'),
                Type.Literal('RemoveAllFilesAndAgentInput'),
              ],
              { default: 'RemoveEntireRun' },
            ),
          ),
        }),
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await app.runs.remove(
        principalOf(req),
        req.params.agentId,
        req.params.runId,
        req.query.removeMethod ?? 'RemoveEntireRun',
      );
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/agent/:agentId/run/:runId/files',
    {
      schema: {
        tags: ['Runs'],
        summary: 'List the files a Run produced (exports, log, failed pages)',
        description:
          'The files a Run wrote: its exports (CSV, JSON, NDJSON), its log, and HTML snapshots when the log mode is TextAndHtml.',
        operationId: 'listRunFiles',
        params: AgentRunParams,
        response: { 200: Type.Array(Type.Ref(RunFileSchema)), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.runs.files(principalOf(req), req.params.agentId, req.params.runId),
  );

  app.get(
    '/api/v1/agent/:agentId/run/:runId/log',
    {
      schema: {
        tags: ['Runs'],
        summary: "Read the end of a Run's log, also while it runs",
        description:
          'The last lines of the run log as stored so far (at most 1000). While the Run is active (`active: true`) the ' +
          'worker keeps writing it, a few seconds behind at most: read it again to follow the Run. The whole log is the ' +
          'run.log file of GET .../files once the Run has ended. Encrypted input values never appear in it.',
        operationId: 'getRunLogTail',
        params: AgentRunParams,
        querystring: RunLogTailQuery,
        response: { 200: Type.Ref(RunLogTailSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.runs.logTail(principalOf(req), req.params.agentId, req.params.runId, req.query.lines ?? 1000),
  );

  app.get(
    '/api/v1/agent/:agentId/run/:runId/file/:fileId/download',
    {
      schema: {
        tags: ['Runs'],
        summary: 'Download a file produced by a Run',
        description:
          'With the local storage driver, streams the file with its content type, length and a Content-Disposition attachment name. ' +
          'With object storage (STORAGE_DRIVER=s3), answers 302 to a pre-signed URL of the store, valid for S3_PRESIGN_SECONDS, ' +
          'that serves the same bytes with the same Content-Type and Content-Disposition; an expired URL is refused by the store. ' +
          'Clients that cannot follow redirects (or may not reach the store) pass `redirect=false` to get the bytes through the API.',
        operationId: 'downloadRunFile',
        params: RunFileParams,
        querystring: Type.Object({
          redirect: Type.Boolean({
            default: true,
            description: 'false: stream the bytes through the API even when the store could serve them.',
          }),
        }),
        response: {
          200: {
            description: 'The file bytes (text/csv, application/json, application/x-ndjson, text/plain or text/html).',
            type: 'string',
            format: 'binary',
          },
          302: {
            description:
              'Object storage: the Location header is a pre-signed URL that serves the file for S3_PRESIGN_SECONDS.',
            type: 'null',
          },
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const file = await app.runs.download(principalOf(req), req.params.agentId, req.params.runId, req.params.fileId, {
        redirect: req.query.redirect,
      });
      if (file.redirectUrl !== undefined) return reply.redirect(file.redirectUrl, 302);
      return reply
        .header('Content-Type', file.contentType)
        .header('Content-Length', String(file.size))
        .header('Content-Disposition', file.contentDisposition)
        .send(file.stream);
    },
  );

  app.post(
    '/api/v1/spaces/:spaceId/run-all',
    {
      schema: {
        tags: ['Runs'],
        summary: 'Start every Agent in a Space',
        operationId: 'runAllAgentsInSpace',
        description:
          'Each Agent is started independently; a per-Agent failure (for example an Agent that already has a Run in progress) is reported in results and does not affect the others.',
        params: SpaceParams,
        body: RunAllBody,
        response: { 200: Type.Ref(RunAllResultSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.runs.runAll(principalOf(req), req.params.spaceId, req.body, { requestId: req.id, log: req.log }),
  );
};
export default runsRoutes;
