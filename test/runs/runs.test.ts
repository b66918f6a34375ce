// Runs through the HTTP API with a real worker process, real Postgres and Redis, against a fixture
// website served on 127.0.0.1.
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, jsonInjector } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { productPrice, type FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));

const inject = jsonInjector(() => ({ app: ctx.app, apiKey: org.apiKey }));

function expectedCsv(count: number) {
  let csv = 'title,price,url\r\n';
  for (let n = 1; n <= count; n++) csv += `Product ${n},${productPrice(n)},${site.url}/product/${n}\r\n`;
  return csv;
}

describe('a Run of a 3-page catalog', () => {
  it('starts async (202), runs to Success with exactly 30 records, and the CSV matches byte for byte', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Catalog');
    const start = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    expect(start.statusCode, start.body).toBe(202);
    const queued = start.json();
    expect(queued).toMatchObject({
      configId: agent.id,
      organizationId: org.organizationId,
      status: 4,
      scheduleId: null,
    });
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, queued.id);
    expect(run).toMatchObject({
      status: 10,
      recordsExtracted: 30,
      recordsExported: 30,
      errorMessage: null,
      progress: null,
    });
    expect(new Date(run.endTime).getTime()).toBeGreaterThanOrEqual(new Date(run.startTime).getTime());

    const files = (await inject('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json();
    expect(files.map((f: { name: string; fileType: string }) => [f.name, f.fileType])).toEqual([
      ['data.csv', 'Csv'],
      ['run.log', 'Log'],
    ]);
    const csvFile = files[0];
    const dl = await inject('GET', `/api/v1/agent/${agent.id}/run/${run.id}/file/${csvFile.id}/download`);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(dl.headers['content-disposition']).toContain('attachment; filename="data.csv"');
    expect(dl.body).toBe(expectedCsv(30));
    expect(Number(dl.headers['content-length'])).toBe(csvFile.fileSize);

    const log = await inject('GET', `/api/v1/agent/${agent.id}/run/${run.id}/file/${files[1].id}/download`);
    expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(log.body).toMatch(/\[Info\] .*30 records/);

    const agentNow = (await inject('GET', `/api/v1/agent/${agent.id}`)).json();
    expect(agentNow.status).toBe(10);

    const list = (await inject('GET', `/api/v1/agent/${agent.id}/runs?maxRecords=5`)).json();
    expect(list[0].id).toBe(run.id);
    const paged = (await inject('GET', `/api/v1/agent/${agent.id}/runs?pageIndex=1&recordsPerPage=1`)).json();
    expect(paged).toMatchObject({ totalRecordCount: 1, runs: [{ id: run.id }] });
  });

  it('starts synchronously with PascalCase properties and returns the records inline (200)', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      catalogDefinition(site.url, { format: 'json' }),
      'Sync',
    );
    // Exactly what the public client sends.
    const res = await inject('POST', `/api/v1/agent/${agent.id}/start`, {
      Parallelism: 1,
      ParallelMaxConcurrency: 1,
      ParallelExport: 'Combined',
      InputParameters: undefined,
      Timeout: 60,
      IsExclusive: true,
      IsWaitOnFailure: false,
      IsRunSynchronously: true,
      LogLevel: 'Info',
      LogMode: 'Text',
    });
    expect(res.statusCode, res.body).toBe(200);
    const records = res.json();
    expect(records).toHaveLength(30);
    expect(records[0]).toEqual({ title: 'Product 1', price: productPrice(1), url: `${site.url}/product/1` });
    expect(records[29].title).toBe('Product 30');
    expect(res.headers['x-run-id']).toBeDefined();
  });

  it('answers 202 with the Run when a synchronous start does not finish within its timeout', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      catalogDefinition(site.url, { ms: 1500 }),
      'Slow sync',
    );
    const res = await inject('POST', `/api/v1/agent/${agent.id}/start`, { isRunSynchronously: true, timeout: 1 });
    expect(res.statusCode).toBe(202);
    expect([3, 1, 4]).toContain(res.json().status);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${res.json().id}/kill`);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${res.json().id}/kill`);
    await waitForRun(ctx.app, org.apiKey, agent.id, res.json().id);
  });
});

describe('stop and kill', () => {
  it('stop yields Stopped with the data so far exported', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      catalogDefinition(site.url, { ms: 1200 }),
      'Stoppable',
    );
    const start = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
    const runId = start.json().id;
    await waitForRun(
      ctx.app,
      org.apiKey,
      agent.id,
      runId,
      (r) => r.status === 1 && r.progress?.dataCount >= 10,
      20_000,
    );
    const stop = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect(stop.statusCode).toBe(200);
    expect([5, 8]).toContain(stop.json().status);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId);
    expect(run.status).toBe(8);
    expect(run.recordsExported).toBeGreaterThanOrEqual(10);
    expect(run.recordsExported).toBeLessThan(30);
    const files = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/files`)).json();
    const csv = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/file/${files[0].id}/download`)).body;
    expect(csv).toBe(expectedCsv(run.recordsExported));
    // Stopping a terminal Run is a state-machine conflict.
    expectProblem(await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`), 409, 'RUN_NOT_ACTIVE');
    expectProblem(await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`), 409, 'RUN_NOT_ACTIVE');
  });

  it('kill twice terminates a Run stuck on a page that never answers', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Stuck',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1);
    const first = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    expect(first.json().status).toBe(5);
    // A graceful stop waits for the page in flight, which never answers.
    await new Promise((r) => setTimeout(r, 800));
    expect((await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`)).json().status).toBe(5);
    const second = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    expect(second.statusCode).toBe(200);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 10_000);
    expect(run.status).toBe(8);
    expect(run.errorMessage).toMatch(/Killed/);
  });

  it('stops a queued Run at once', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Queued');
    const run = await ctx.db.run.create({
      data: { organizationId: org.organizationId, agentId: agent.id, agentVersion: 1, status: 4 },
    });
    const stop = await inject('POST', `/api/v1/agent/${agent.id}/run/${run.id}/stop`);
    expect(stop.json().status).toBe(8);
  });
});

describe('failures a user can act on', () => {
  it('a target that answers 403 ends in Failure with an actionable errorMessage', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Blocked',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId);
    expect(run.status).toBe(6);
    expect(run.errorMessage).toMatch(/403/);
    expect(run.errorMessage).toMatch(/proxy|blocked/i);
  });

  it('isWaitOnFailure goes Failed -> Waiting and is retried', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/blocked`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Retry',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, { isWaitOnFailure: true })).json().id;
    const waiting = await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 12);
    expect(waiting.errorMessage).toMatch(/403/);
    const row = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(row.retryCount).toBe(1);
    expect(row.waitUntil).not.toBeNull();
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect((await waitForRun(ctx.app, org.apiKey, agent.id, runId)).status).toBe(8);
  });
});

describe('documented errors of start', () => {
  it('409 RUN_ALREADY_ACTIVE for an exclusive start while a Run is active, also under concurrent starts', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Busy',
    );
    const results = await Promise.all(
      Array.from({ length: 5 }, () => inject('POST', `/api/v1/agent/${agent.id}/start`, {})),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([202, 409, 409, 409, 409]);
    expectProblem(
      results.find((r) => r.statusCode === 409)!,
      409,
      'RUN_ALREADY_ACTIVE',
    );
    const runId = results.find((r) => r.statusCode === 202)!.json().id;
    // Active Runs cannot be deleted.
    expectProblem(await inject('DELETE', `/api/v1/agent/${agent.id}/run/${runId}`), 409, 'RUN_ACTIVE_CANNOT_DELETE');
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    await waitForRun(ctx.app, org.apiKey, agent.id, runId);
  });

  it('400 AGENT_ARCHIVED, 422 AGENT_INVALID, 422 INSUFFICIENT_CREDITS, 400 for bad input parameters', async () => {
    const archived = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Archived');
    await inject('POST', `/api/v1/agent/${archived.id}/archive`);
    expectBadRequest(await inject('POST', `/api/v1/agent/${archived.id}/start`, {}), 'AGENT_ARCHIVED');

    const invalid = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { ...catalogDefinition(site.url), export: { format: 'csv', columns: [{ name: 'missing', required: true }] } },
      'Invalid',
    );
    expectProblem(await inject('POST', `/api/v1/agent/${invalid.id}/start`, {}), 422, 'AGENT_INVALID');

    const ok = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Params');
    expectBadRequest(
      await inject('POST', `/api/v1/agent/${ok.id}/start`, { inputParameters: 'not json' }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', `/api/v1/agent/${ok.id}/start`, { inputParameters: '[1,2]' }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(await inject('POST', `/api/v1/agent/${ok.id}/start`, { parallelism: 0 }), 'VALIDATION_FAILED');
    expectBadRequest(await inject('POST', `/api/v1/agent/${ok.id}/start`, { bogus: 1 }), 'VALIDATION_FAILED');

    const poor = await ctx.bootstrap({ credits: 0 });
    const poorAgent = await createAgent(ctx.app, poor.apiKey, poor.spaceId, catalogDefinition(site.url), 'Poor');
    expectProblem(
      await inject('POST', `/api/v1/agent/${poorAgent.id}/start`, {}, poor.apiKey),
      422,
      'INSUFFICIENT_CREDITS',
    );
  });

  it("404 for another organization's agent or an unknown run, 403 for a reader", async () => {
    const other = await ctx.bootstrap();
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Mine');
    expectProblem(await inject('POST', `/api/v1/agent/${agent.id}/start`, {}, other.apiKey), 404, 'NOT_FOUND');
    expectProblem(await inject('GET', `/api/v1/agent/${agent.id}/run/999999/status`), 404, 'NOT_FOUND');
    expectProblem(await inject('GET', `/api/v1/agent/${agent.id}/run/999999/files`), 404, 'NOT_FOUND');
    expectProblem(await inject('GET', `/api/v1/agent/${agent.id}/run/1/file/1/download`), 404, 'NOT_FOUND');

    const privateSpace = await ctx.db.space.create({ data: { organizationId: org.organizationId, name: 'Private' } });
    const hidden = await createAgent(ctx.app, org.apiKey, privateSpace.id, catalogDefinition(site.url), 'Hidden');
    const member = (await inject('POST', '/api/v1/users', { email: 'reader@example.com' })).json();
    const memberKey = (await inject('POST', `/api/v1/users/${member.id}/api-keys`, {})).json().key;
    expectProblem(await inject('POST', `/api/v1/agent/${hidden.id}/start`, {}, memberKey), 403, 'FORBIDDEN');
    await ctx.db.spaceMembership.create({ data: { spaceId: privateSpace.id, userId: member.id, role: 'reader' } });
    expectProblem(await inject('POST', `/api/v1/agent/${hidden.id}/start`, {}, memberKey), 403, 'FORBIDDEN');
    expect((await inject('GET', `/api/v1/agent/${hidden.id}/runs`, undefined, memberKey)).statusCode).toBe(200);
  });
});

describe('delete and run-all', () => {
  it('deletes files, then the whole Run', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Deletable');
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId);
    const del = await inject('DELETE', `/api/v1/agent/${agent.id}/run/${runId}?removeMethod=RemoveAllFiles`);
    expect(del.statusCode).toBe(204);
    expect((await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/files`)).json()).toEqual([]);
    expect((await inject('DELETE', `/api/v1/agent/${agent.id}/run/${runId}`)).statusCode).toBe(204);
    expectProblem(await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`), 404, 'NOT_FOUND');
    expect((await inject('GET', `/api/v1/agent/${agent.id}`)).json().status).toBeNull();
    expectBadRequest(
      await inject('DELETE', `/api/v1/agent/${agent.id}/run/${runId}?removeMethod=Everything`),
      'VALIDATION_FAILED',
    );
  });

  it('run-all starts every Agent of a Space independently and reports a busy one as a failure', async () => {
    const space = await ctx.db.space.create({
      data: { organizationId: org.organizationId, name: 'Batch', isDefaultAccess: true },
    });
    const busy = await createAgent(
      ctx.app,
      org.apiKey,
      space.id,
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'A busy',
    );
    const fine = await createAgent(ctx.app, org.apiKey, space.id, catalogDefinition(site.url), 'B fine');
    const busyRun = (await inject('POST', `/api/v1/agent/${busy.id}/start`, {})).json().id;
    const res = await inject('POST', `/api/v1/spaces/${space.id}/run-all`, {
      InputParameters: undefined,
      logLevel: 'warning',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      spaceId: space.id,
      spaceName: 'Batch',
      totalAgents: 2,
      agentsStarted: 1,
      agentsFailed: 1,
    });
    const failed = body.results.find((r: { agentId: number }) => r.agentId === busy.id);
    expect(failed).toMatchObject({ agentName: 'A busy', success: false, runId: null });
    expect(failed.errorMessage).toMatch(/active Run/);
    const started = body.results.find((r: { agentId: number }) => r.agentId === fine.id);
    expect(started.success).toBe(true);
    const run = await waitForRun(ctx.app, org.apiKey, fine.id, started.runId);
    expect(run).toMatchObject({ status: 10, logLevel: 'Warning' });
    await inject('POST', `/api/v1/agent/${busy.id}/run/${busyRun}/kill`);
    await inject('POST', `/api/v1/agent/${busy.id}/run/${busyRun}/kill`);
    await waitForRun(ctx.app, org.apiKey, busy.id, busyRun);
    expectProblem(await inject('POST', `/api/v1/spaces/999999/run-all`, {}), 404, 'NOT_FOUND');
  });
});

describe('documented errors of run-all and of writes by a reader', () => {
  it('run-all: 400 for a malformed body or inputParameters, 403 for a reader, 404 for another organization', async () => {
    expectBadRequest(
      await inject('POST', `/api/v1/spaces/${org.spaceId}/run-all`, { inputParameters: 'not json' }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', `/api/v1/spaces/${org.spaceId}/run-all`, { serverOrganizationId: 5 }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await inject('POST', `/api/v1/spaces/${org.spaceId}/run-all`, { parallelism: 0 }),
      'VALIDATION_FAILED',
    );
    const other = await ctx.bootstrap();
    expectProblem(await inject('POST', `/api/v1/spaces/${org.spaceId}/run-all`, {}, other.apiKey), 404, 'NOT_FOUND');
    const privateSpace = await ctx.db.space.create({
      data: { organizationId: org.organizationId, name: 'Readers only' },
    });
    const member = (await inject('POST', '/api/v1/users', { email: 'runall-reader@example.com' })).json();
    const key = (await inject('POST', `/api/v1/users/${member.id}/api-keys`, {})).json().key;
    await ctx.db.spaceMembership.create({ data: { spaceId: privateSpace.id, userId: member.id, role: 'reader' } });
    expectProblem(await inject('POST', `/api/v1/spaces/${privateSpace.id}/run-all`, {}, key), 403, 'FORBIDDEN');

    // A reader sees Runs but cannot stop, kill or delete them.
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      privateSpace.id,
      catalogDefinition(site.url),
      'Read only runs',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id;
    expect((await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/status`, undefined, key)).statusCode).toBe(200);
    expectProblem(
      await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`, undefined, key),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`, undefined, key),
      403,
      'FORBIDDEN',
    );
    await waitForRun(ctx.app, org.apiKey, agent.id, runId);
    expectProblem(await inject('DELETE', `/api/v1/agent/${agent.id}/run/${runId}`, undefined, key), 403, 'FORBIDDEN');
    expectProblem(
      await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/files`, undefined, other.apiKey),
      404,
      'NOT_FOUND',
    );
  });
});
