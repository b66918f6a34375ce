// What an operator reads: one log line per request (route template, status, duration, request id),
// none for Swagger UI's files, and the worker's line for each Run's start and end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { freePort, runNode, startNode, waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const h = useRunEnvironment();

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('request logs', () => {
  let srv: ReturnType<typeof startNode>;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    srv = startNode(['src/server.ts'], { ...h.ctx.env, PORT: String(port), LOG_LEVEL: 'info' });
    await waitFor(async () => (await fetch(`${base}/health/live`)).ok, 30_000);
  });
  afterAll(async () => {
    srv?.child.kill('SIGTERM');
    await srv?.exited;
  });

  it('writes one line per request with the route template, status, duration and request id; none for Swagger UI files', async () => {
    const before = jsonLines(srv.output()).length;
    const ok = await fetch(`${base}/api/v1/users`, {
      headers: { ...auth(h.org.apiKey), 'x-request-id': 'req-logs-1' },
    });
    expect(ok.status).toBe(200);
    const missing = await fetch(`${base}/api/v1/agent/987654`, {
      headers: { ...auth(h.org.apiKey), 'x-request-id': 'req-logs-2' },
    });
    expect(missing.status).toBe(404);
    const page = await (await fetch(`${base}/swagger/`)).text();
    for (const src of page.match(/src="\.\/([^"]+)"/g) ?? [])
      expect((await fetch(`${base}/swagger/${src.slice(7, -1)}`)).status).toBe(200);
    // Health probes answering 200 are not logged (they would flood the log); an unknown path is.
    await fetch(`${base}/no-such-path`, { headers: { 'x-request-id': 'req-logs-3' } });

    await waitFor(async () => srv.output().includes('req-logs-3'), 10_000);
    const lines = jsonLines(srv.output()).slice(before);
    expect(lines.filter((l) => l.reqId === 'req-logs-1')).toEqual([
      expect.objectContaining({
        msg: 'request',
        method: 'GET',
        route: '/api/v1/users',
        statusCode: 200,
        durationMs: expect.any(Number),
      }),
    ]);
    expect(lines.filter((l) => l.reqId === 'req-logs-2')).toEqual([
      expect.objectContaining({ msg: 'request', route: '/api/v1/agent/:agentId', statusCode: 404 }),
    ]);
    expect(lines.filter((l) => l.reqId === 'req-logs-3')).toHaveLength(1);
    expect(lines.filter((l) => String(l.route ?? '').startsWith('/swagger'))).toEqual([]);
    expect(lines.filter((l) => /incoming request|request completed/.test(l.msg))).toEqual([]);
    expect(srv.output()).not.toContain(h.org.apiKey);
  });

  it('LOG_FORMAT=pretty writes human-readable lines', async () => {
    const res = await runNode(['src/cli.ts', 'migrate'], { ...h.ctx.env, LOG_FORMAT: 'loud' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('LOG_FORMAT must be one of json, pretty');

    const port = await freePort();
    const pretty = startNode(['src/server.ts'], {
      ...h.ctx.env,
      PORT: String(port),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'pretty',
    });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok, 30_000);
      await fetch(`http://127.0.0.1:${port}/no-such-path`, { headers: { 'x-request-id': 'req-pretty-1' } });
      await waitFor(async () => pretty.output().includes('req-pretty-1'), 10_000);
      expect(pretty.output()).toMatch(/INFO.*request/);
      expect(pretty.output()).not.toMatch(/^\{"level"/m);
    } finally {
      pretty.child.kill('SIGTERM');
      await pretty.exited;
    }
  });
});

describe('worker logs', () => {
  it('logs each Run start and end with Agent, Run, status, duration, records and error message', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url), 'Logged');
    const start = await h.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(h.org.apiKey),
      payload: {},
    });
    expect(start.statusCode).toBe(202);
    const runId = start.json().id;
    const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId);
    const ended = await waitFor(
      async () => jsonLines(h.worker.output()).find((l) => l.msg === 'run ended' && l.runId === runId),
      10_000,
    );
    expect(jsonLines(h.worker.output()).filter((l) => l.msg === 'run started' && l.runId === runId)).toEqual([
      expect.objectContaining({ agentId: agent.id, runId }),
    ]);
    expect(ended).toMatchObject({
      agentId: agent.id,
      runId,
      status: 'Success',
      records: run.recordsExtracted,
      durationMs: expect.any(Number),
    });

    const broken = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      { ...catalogDefinition(h.site.url), startUrl: 'http://127.0.0.1:1/nothing' },
      'Broken',
    );
    const start2 = await h.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${broken.id}/start`,
      headers: auth(h.org.apiKey),
      payload: {},
    });
    const run2 = await waitForRun(h.ctx.app, h.org.apiKey, broken.id, start2.json().id);
    const ended2 = await waitFor(
      async () => jsonLines(h.worker.output()).find((l) => l.msg === 'run ended' && l.runId === run2.id),
      10_000,
    );
    expect(ended2).toMatchObject({ agentId: broken.id, runId: run2.id });
    expect(ended2.status).not.toBe('Success');
    if (run2.errorMessage) expect(ended2.errorMessage).toBe(run2.errorMessage);
  });
});
