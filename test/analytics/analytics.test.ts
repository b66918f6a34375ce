// Analytics through HTTP with real Runs on the fixture site and a real worker: Runs of every outcome
// (success, a 403 site, an unresolvable host, a selector matching nothing, pagination stopped early,
// a run timeout, stopped, killed, a lost worker), each diagnosis, the summaries' exact counts against
// the Runs themselves, and cross-organization 404s.
import { beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, startWorker, useRunEnvironment, waitForRun } from '../helpers/runs.js';

// RUN_MAX_TAKEOVERS=0: a Run whose worker is lost fails at once instead of going on elsewhere from its
// checkpoint, so the lost-worker diagnosis has a Run to read.
const h = useRunEnvironment({
  env: { RUN_STALE_SECONDS: '3', RUN_RECONCILE_INTERVAL_SECONDS: '1', RUN_MAX_TAKEOVERS: '0' },
});
const t0 = new Date(Date.now() - 1000);
const runs: Record<string, { agentId: number; runId: number; run: any }> = {};

const get = (url: string, key = h.org.apiKey) => h.ctx.app.inject({ method: 'GET', url, headers: auth(key) });
const post = (url: string, payload: unknown = {}) =>
  h.ctx.app.inject({
    method: 'POST',
    url,
    headers: { ...auth(h.org.apiKey), 'content-type': 'application/json' },
    payload: payload as object,
  });

async function runToEnd(name: string, definition: unknown, until?: (r: any) => boolean) {
  const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, definition, name);
  const start = await post(`/api/v1/agent/${agent.id}/start`);
  expect(start.statusCode, start.body).toBe(202);
  const runId = start.json().id;
  const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, until);
  runs[name] = { agentId: agent.id, runId, run };
  return runs[name];
}

const diagnostics = async (name: string) => {
  const res = await get(`/api/v1/analytics/agents/${runs[name].agentId}/runs/${runs[name].runId}/diagnostics`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

const hangDefinition = (extra: Record<string, unknown> = {}) => ({
  startUrl: `${h.site.url}/hang`,
  list: { selector: 'div.product', fields: [{ name: 'x' }] },
  ...extra,
});

describe('Runs of every outcome and their diagnoses', () => {
  it('a successful Run: Success, no causes', async () => {
    const { run } = await runToEnd('success', catalogDefinition(h.site.url));
    expect(run).toMatchObject({ status: 10, recordsExtracted: 30, errorMessage: null });
    const d = await diagnostics('success');
    expect(d).toMatchObject({
      runId: run.id,
      agentName: 'success',
      status: 10,
      errorMessage: null,
      possibleCauses: [],
      suggestedActions: [],
    });
    expect(d.stats).toEqual({
      dataCount: 30,
      inputCount: 1,
      errorCount: 0,
      pageCount: 3,
      exportCount: 30,
      traffic: expect.any(Number),
    });
    expect(d.runtimeSeconds).toBeGreaterThanOrEqual(0);
    expect(d.evidence).toMatchObject({
      requests: 3,
      responsesByClass: { '2xx': 3 },
      responsesByCode: { '200': 3 },
      listPages: 3,
      emptyListPages: 0,
      listMatches: 30,
    });
  });

  it('a 403 site: Failure, blocked with the count of 403 answers, add a proxy pool', async () => {
    const { run } = await runToEnd('blocked', {
      startUrl: `${h.site.url}/blocked`,
      list: { selector: 'div.product', fields: [{ name: 'x' }] },
    });
    expect(run.status).toBe(6);
    const d = await diagnostics('blocked');
    expect(d.evidence).toMatchObject({
      requests: 1,
      responsesByCode: { '403': 1 },
      firstUrls: { http403: `${h.site.url}/blocked` },
    });
    expect(d.findings.map((f: any) => f.rule)).toEqual(['blocked']);
    expect(d.possibleCauses[0]).toBe(
      `The target site blocked the Run: of 1 page request, 1 answered 403 Forbidden (first: ${h.site.url}/blocked).`,
    );
    expect(d.suggestedActions[0]).toMatch(
      /^Assign a proxy pool to the Agent \(PUT \/api\/v1\/agent\/\d+ with proxyPoolId\)/,
    );
  });

  it('an unresolvable host: Failure, DNS failure naming the host', async () => {
    const { run } = await runToEnd('dns', {
      startUrl: 'http://no-such-host.invalid/list',
      list: { selector: 'li', fields: [{ name: 'x' }] },
    });
    expect(run.status).toBe(6);
    const d = await diagnostics('dns');
    expect(d.evidence).toMatchObject({
      requests: 1,
      networkErrors: { dns: 1 },
      firstUrls: { dns: 'http://no-such-host.invalid/list' },
    });
    expect(d.findings.map((f: any) => f.rule)).toEqual(['dnsFailure']);
    expect(d.possibleCauses[0]).toBe(
      '1 of 1 page request failed because the host name could not be resolved (DNS) (first: http://no-such-host.invalid/list).',
    );
    expect(d.suggestedActions[0]).toMatch(/^Check the host name 'no-such-host.invalid' in the Agent's startUrl/);
  });

  it('a list selector matching nothing on pages that answered 200: Completed with a message, layout changed', async () => {
    const def = catalogDefinition(h.site.url);
    const { run } = await runToEnd('selector', { ...def, list: { ...def.list, selector: 'div.item' } });
    expect(run).toMatchObject({ status: 9, recordsExtracted: 0 });
    expect(run.errorMessage).toBe(
      "The list selector 'div.item' matched nothing on any of the 3 pages fetched: no records were extracted (has the page layout changed?).",
    );
    const d = await diagnostics('selector');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['selectorMatchedNothing', 'pageSnapshots']);
    expect(d.possibleCauses[0]).toBe(
      `The list selector 'div.item' matched nothing on 3 of 3 list pages (first: ${h.site.url}/catalog?page=1), although those pages answered 200: the page layout has probably changed.`,
    );
    expect(d.suggestedActions[0]).toContain('check the list selector `div.item`');
  });

  it('a required field empty in every record: Completed with a message naming the field', async () => {
    const def = catalogDefinition(h.site.url);
    const { run } = await runToEnd('required', {
      ...def,
      next: undefined,
      list: { selector: 'div.product', fields: [{ name: 'sku', selector: 'p.sku', required: true }] },
    });
    expect(run).toMatchObject({
      status: 9,
      recordsExtracted: 0,
      errorMessage: "Required field 'sku' was empty in every record: all 10 records were dropped.",
    });
    const d = await diagnostics('required');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['requiredFieldsMissing', 'pageSnapshots']);
    expect(d.possibleCauses[0]).toBe(
      `10 of 10 records were dropped because a required field was empty: 'sku' in 10 (first: ${h.site.url}/catalog?page=1).`,
    );
    expect(d.suggestedActions[0]).toBe("Check the selector `p.sku` of field 'sku' against the page.");
  });

  it('pagination stopped early: Completed (a failed page), the next page named', async () => {
    const { run } = await runToEnd('dead-end', {
      startUrl: `${h.site.url}/dead-end`,
      list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
      next: { selector: 'a.next' },
    });
    expect(run).toMatchObject({ status: 9, recordsExtracted: 1, errorMessage: null });
    const d = await diagnostics('dead-end');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['paginationStoppedEarly']);
    expect(d.possibleCauses[0]).toBe(
      `Pagination stopped early on 1 input: a next page could not be fetched or led back to a page already visited (first: ${h.site.url}/status/404).`,
    );
    expect(d.evidence).toMatchObject({
      requests: 2,
      responsesByCode: { '200': 1, '404': 1 },
      paginationStoppedEarly: 1,
    });
  });

  it('a run timeout: Failure, raise timeoutSeconds', async () => {
    const { run } = await runToEnd('timeout', hangDefinition({ timeoutSeconds: 1 }));
    expect(run).toMatchObject({ status: 6, errorMessage: 'run timed out after 1 s' });
    const d = await diagnostics('timeout');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['runTimeout']);
    expect(d.possibleCauses[0]).toBe('The Run reached its time limit of 1 s after 0 pages and 0 records.');
    expect(d.suggestedActions[0]).toMatch(/^Raise timeoutSeconds in the Agent definition \(now 1 s\)/);
  });

  it('a stopped Run: Stopped by a user, data so far exported', async () => {
    const agent = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      catalogDefinition(h.site.url, { ms: 800 }),
      'stopped',
    );
    const runId = (await post(`/api/v1/agent/${agent.id}/start`)).json().id;
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, (r) => r.status === 1);
    expect((await post(`/api/v1/agent/${agent.id}/run/${runId}/stop`)).statusCode).toBe(200);
    const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId);
    runs.stopped = { agentId: agent.id, runId, run };
    expect(run.status).toBe(8);
    const d = await diagnostics('stopped');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['stoppedByUser']);
    expect(d.possibleCauses[0]).toBe(
      `Stopped by a user after ${d.stats.pageCount} page${d.stats.pageCount === 1 ? '' : 's'} and ${d.stats.dataCount} records; ${d.stats.exportCount} records extracted until then were exported.`,
    );
  });

  it('a killed Run: counted as running while active, then Stopped, killed by a user', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, hangDefinition(), 'killed');
    const runId = (await post(`/api/v1/agent/${agent.id}/start`)).json().id;
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, (r) => r.status === 1);
    // Active Runs are counted live.
    const live = (
      await get(`/api/v1/analytics/runs/summary?startDate=${t0.toISOString()}&status=Running&includeDetails=false`)
    ).json();
    expect(live).toMatchObject({ totalRuns: 1, runningRuns: 1, completedRuns: 0 });
    await post(`/api/v1/agent/${agent.id}/run/${runId}/kill`);
    await post(`/api/v1/agent/${agent.id}/run/${runId}/kill`);
    const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId);
    runs.killed = { agentId: agent.id, runId, run };
    expect(run.status).toBe(8);
    const d = await diagnostics('killed');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['killedByUser']);
    expect(d.possibleCauses[0]).toBe(
      'Killed by a user: the run process was terminated at once after 0 pages and 0 records; records not yet exported were lost.',
    );
  });

  it('a Run that lost its worker: Failure, worker lost; it is the latest failure of its Agent', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, hangDefinition(), 'lost');
    expectProblem(await get(`/api/v1/analytics/agents/${agent.id}/latest-failure`), 404, 'NOT_FOUND');
    const runId = (await post(`/api/v1/agent/${agent.id}/start`)).json().id;
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, (r) => r.status === 1);
    await waitFor(async () => h.site.inFlight >= 1, 5000);
    h.worker.child.kill('SIGKILL');
    await h.worker.exited;
    h.worker = await startWorker(h.ctx.env);
    const run = await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, undefined, 30_000);
    runs.lost = { agentId: agent.id, runId, run };
    expect(run.status).toBe(6);
    const d = await diagnostics('lost');
    expect(d.findings.map((f: any) => f.rule)).toEqual(['workerLost']);
    expect(d.possibleCauses[0]).toMatch(
      /^The worker process executing the Run stopped \(crashed, was killed or lost its machine\) after 0 pages and 0 records/,
    );
    const latest = await get(`/api/v1/analytics/agents/${agent.id}/latest-failure`);
    expect(latest.statusCode).toBe(200);
    expect(latest.json()).toEqual(d);
  });
});

describe('summaries', () => {
  let range: string;
  beforeAll(() => {
    range = `startDate=${t0.toISOString()}&endDate=${new Date(Date.now() + 60_000).toISOString()}`;
  });

  it('counts every Run of the range exactly, by bucket, equal to the Runs themselves', async () => {
    const res = await get(`/api/v1/analytics/runs/summary?${range}`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    const { startDate, endDate, failedRunDetails, ...counts } = s;
    expect(counts).toEqual({
      totalRuns: 10,
      completedRuns: 4, // success, selector, required, dead-end
      completedWithErrorsRuns: 3,
      failedRuns: 4, // blocked, dns, timeout, lost
      runningRuns: 0,
      queuedRuns: 0,
      stoppedRuns: 2,
    });
    expect(startDate).toBe(t0.toISOString());
    // The same from the database.
    const byStatus = await h.ctx.db.run.groupBy({ by: ['status'], where: { created: { gte: t0 } }, _count: true });
    const n = (ss: number[]) => byStatus.filter((b) => ss.includes(b.status)).reduce((a, b) => a + b._count, 0);
    expect([n([9, 10]), n([9]), n([6, 7]), n([8])]).toEqual([
      counts.completedRuns,
      counts.completedWithErrorsRuns,
      counts.failedRuns,
      counts.stoppedRuns,
    ]);
    // Failed Runs, newest first, with their Agent and Space.
    expect(failedRunDetails.map((f: any) => f.runId)).toEqual([
      runs.lost.runId,
      runs.timeout.runId,
      runs.dns.runId,
      runs.blocked.runId,
    ]);
    expect(failedRunDetails[0]).toEqual({
      runId: runs.lost.runId,
      agentId: runs.lost.agentId,
      agentName: 'lost',
      startTime: runs.lost.run.startTime,
      endTime: runs.lost.run.endTime,
      status: 6,
      errorMessage: runs.lost.run.errorMessage,
      spaceId: h.org.spaceId,
      spaceName: expect.any(String),
    });
  });

  it('filters by RunStatus integer or bucket name (case-insensitive), and omits details on request', async () => {
    const by = async (status: string) =>
      (await get(`/api/v1/analytics/runs/summary?${range}&status=${status}&includeDetails=false`)).json();
    expect(await by('9')).toMatchObject({ totalRuns: 3, completedRuns: 3, completedWithErrorsRuns: 3, failedRuns: 0 });
    expect(await by('completedwitherrors')).toMatchObject({ totalRuns: 3, completedWithErrorsRuns: 3 });
    expect(await by('Completed')).toMatchObject({ totalRuns: 4, completedRuns: 4 });
    expect(await by('FAILED')).toMatchObject({ totalRuns: 4, failedRuns: 4 });
    expect(await by('Stopped')).toMatchObject({ totalRuns: 2, stoppedRuns: 2 });
    expect(await by('10')).toMatchObject({ totalRuns: 1, completedRuns: 1, completedWithErrorsRuns: 0 });
    expect((await by('Failed')).failedRunDetails).toBeUndefined();
    const completedOnly = (await get(`/api/v1/analytics/runs/summary?${range}&status=Completed`)).json();
    expect(completedOnly.failedRunDetails).toEqual([]);
    // An Agent filter.
    const one = (await get(`/api/v1/analytics/runs/summary?${range}&agentId=${runs.blocked.agentId}`)).json();
    expect(one).toMatchObject({ totalRuns: 1, failedRuns: 1 });
    expect(one.failedRunDetails.map((f: any) => f.runId)).toEqual([runs.blocked.runId]);
  });

  it('records summary: totals equal to the Runs themselves, overall and per Agent', async () => {
    const res = await get(`/api/v1/analytics/records/summary?${range}`);
    expect(res.statusCode).toBe(200);
    const agg = await h.ctx.db.run.aggregate({
      where: { created: { gte: t0 } },
      _sum: { recordsExtracted: true, recordsExported: true, errorCount: true, pageCount: true },
      _count: true,
    });
    expect(res.json()).toEqual({
      startDate: t0.toISOString(),
      endDate: expect.any(String),
      totalRecordsExtracted: agg._sum.recordsExtracted,
      totalRecordsExported: agg._sum.recordsExported,
      totalErrors: agg._sum.errorCount,
      totalPageLoads: agg._sum.pageCount,
      runCount: 10,
    });
    expect(agg._sum.recordsExtracted).toBeGreaterThanOrEqual(31);
    const one = (await get(`/api/v1/analytics/records/summary?${range}&agentId=${runs.success.agentId}`)).json();
    expect(one).toMatchObject({
      totalRecordsExtracted: 30,
      totalRecordsExported: 30,
      totalErrors: 0,
      totalPageLoads: 3,
      runCount: 1,
      agentId: runs.success.agentId,
    });
  });

  it('records summary per UTC day (groupBy=day): the same totals per day, adding up to the range', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const q = `startDate=${yesterday}&endDate=${today}`;
    const res = await get(`/api/v1/analytics/records/summary?${q}&groupBy=day`);
    expect(res.statusCode, res.body).toBe(200);
    const { days, ...totals } = res.json();
    expect(totals).toEqual((await get(`/api/v1/analytics/records/summary?${q}`)).json());
    expect(days.map((d: { date: string }) => d.date)).toEqual([yesterday, today]);
    // Every Run here was created in the last minutes: today, or yesterday right after midnight.
    const sum = (k: string) => days.reduce((n: number, d: Record<string, number>) => n + d[k], 0);
    expect(sum('runCount')).toBe(10);
    expect(sum('totalRecordsExtracted')).toBe(totals.totalRecordsExtracted);
    expect(days[days.length - 1]).toEqual({
      date: today,
      totalRecordsExtracted: expect.any(Number),
      totalRecordsExported: expect.any(Number),
      totalErrors: expect.any(Number),
      totalPageLoads: expect.any(Number),
      runCount: expect.any(Number),
    });
    expectBadRequest(await get(`/api/v1/analytics/records/summary?${q}&groupBy=hour`), 'VALIDATION_FAILED');
    expectBadRequest(
      await get('/api/v1/analytics/records/summary?startDate=2020-01-01&endDate=2022-01-01&groupBy=day'),
      'VALIDATION_FAILED',
    );
  });

  it('defaults: the last day up to now', async () => {
    const s = (await get('/api/v1/analytics/runs/summary')).json();
    expect(new Date(s.endDate).getTime() - new Date(s.startDate).getTime()).toBe(24 * 3600 * 1000);
    expect(Math.abs(new Date(s.endDate).getTime() - Date.now())).toBeLessThan(60_000);
    expect(s.totalRuns).toBe(10);
    const r = (await get('/api/v1/analytics/records/summary')).json();
    expect(r.runCount).toBe(10);
    expect(r).not.toHaveProperty('agentId');
  });

  it('400 VALIDATION_FAILED for unparsable dates, endDate before startDate, an unknown status', async () => {
    for (const url of [
      '/api/v1/analytics/runs/summary?startDate=yesterday',
      '/api/v1/analytics/runs/summary?endDate=2026-13-45',
      '/api/v1/analytics/runs/summary?startDate=2026-02-01&endDate=2026-01-01',
      '/api/v1/analytics/runs/summary?status=Exploded',
      '/api/v1/analytics/runs/summary?status=13',
      '/api/v1/analytics/records/summary?startDate=01/02/2026',
      '/api/v1/analytics/records/summary?startDate=2026-02-01T00:00:00Z&endDate=2026-01-31T23:59:59Z',
    ]) {
      expectBadRequest(await get(url), 'VALIDATION_FAILED');
    }
    expectBadRequest(await get('/api/v1/analytics/records/summary?agentId=abc'), 'VALIDATION_FAILED');
  });
});

describe('access', () => {
  it('another organization sees none of these Runs and gets 404 for their Agents and Runs', async () => {
    const other = await h.ctx.bootstrap();
    const s = (await get('/api/v1/analytics/runs/summary', other.apiKey)).json();
    expect(s).toMatchObject({ totalRuns: 0, failedRunDetails: [] });
    expect((await get('/api/v1/analytics/records/summary', other.apiKey)).json()).toMatchObject({
      runCount: 0,
      totalRecordsExtracted: 0,
    });
    const { agentId, runId } = runs.blocked;
    expectProblem(
      await get(`/api/v1/analytics/agents/${agentId}/runs/${runId}/diagnostics`, other.apiKey),
      404,
      'NOT_FOUND',
    );
    expectProblem(await get(`/api/v1/analytics/agents/${agentId}/latest-failure`, other.apiKey), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/analytics/runs/summary?agentId=${agentId}`, other.apiKey), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/analytics/records/summary?agentId=${agentId}`, other.apiKey), 404, 'NOT_FOUND');
    // A Run of another Agent under this Agent's path, and unknown ids.
    expectProblem(
      await get(`/api/v1/analytics/agents/${agentId}/runs/${runs.dns.runId}/diagnostics`),
      404,
      'NOT_FOUND',
    );
    expectProblem(await get(`/api/v1/analytics/agents/${agentId}/runs/999999/diagnostics`), 404, 'NOT_FOUND');
    expectProblem(await get('/api/v1/analytics/agents/999999/latest-failure'), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/analytics/agents/${runs.success.agentId}/latest-failure`), 404, 'NOT_FOUND');
    expectBadRequest(await get('/api/v1/analytics/agents/abc/latest-failure'), 'VALIDATION_FAILED');
  });

  it('401 without credentials', async () => {
    const res = await h.ctx.app.inject({ method: 'GET', url: '/api/v1/analytics/runs/summary' });
    expectProblem(res, 401, 'UNAUTHENTICATED');
  });
});

describe('history', () => {
  it("a Run far below the Agent's recent median is diagnosed as a drop", async () => {
    const def = catalogDefinition(h.site.url);
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, def, 'drop');
    const runOnce = async () => {
      const runId = (await post(`/api/v1/agent/${agent.id}/start`)).json().id;
      return { runId, run: await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId) };
    };
    for (let i = 0; i < 3; i++) expect((await runOnce()).run).toMatchObject({ status: 10, recordsExtracted: 30 });
    // The site now shows one page only.
    const put = await h.ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${agent.id}`,
      headers: { ...auth(h.org.apiKey), 'content-type': 'application/json' },
      payload: { definition: { ...def, next: { selector: 'a.next', maxPages: 1 } } },
    });
    expect(put.statusCode, put.body).toBe(200);
    const { runId, run } = await runOnce();
    expect(run).toMatchObject({ status: 10, recordsExtracted: 10 });
    const d = (await get(`/api/v1/analytics/agents/${agent.id}/runs/${runId}/diagnostics`)).json();
    expect(d.findings.map((f: any) => f.rule)).toEqual(['recordDrop']);
    expect(d.possibleCauses[0]).toBe(
      "This Run extracted 10 records, 67% below this Agent's median of 30 over its last 3 successful Runs.",
    );
  });
});
