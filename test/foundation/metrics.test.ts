// The operator's metrics: the API server and a worker run as real processes, each with its own
// metrics listener; real traffic goes through the HTTP API, and the scraped figures are compared with
// what happened (requests, rate-limit decisions, Runs and their pages, errors, bytes and credits,
// queue counts, schedule lag). Labels never carry ids: 1,000 requests over 1,000 Run ids add no series.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { promtool, promtoolCheck, scrape, valueOf, type Sample } from '../helpers/metrics.js';
import { freePort, startNode, waitFor } from '../helpers/process.js';
import { catalogDefinition, startWorker, TERMINAL } from '../helpers/runs.js';

let ctx: TestContext;
let site: FixtureSite;
let server: ReturnType<typeof startNode>;
let worker: Awaited<ReturnType<typeof startWorker>>;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const ports = { api: 0, apiMetrics: 0, workerMetrics: 0 };
const LOGIN_LIMIT = 3;

async function api(method: string, path: string, body?: unknown, withKey = true) {
  const headers: Record<string, string> = withKey ? { authorization: `ApiKey ${org.apiKey}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const res = await fetch(`http://127.0.0.1:${ports.api}${path}`, init);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

type RunFile = { fileType: string; fileSize: number };

async function createAgent(name: string, definition: unknown) {
  const res = await api('POST', '/api/v1/agent', { name, spaceId: org.spaceId, definition });
  expect(res.status).toBe(201);
  return res;
}

const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

async function runToEnd(agentId: number) {
  const started = await api('POST', `/api/v1/agent/${agentId}/start`, {});
  expect(started.status).toBe(202);
  return waitFor(async () => {
    const s = await api('GET', `/api/v1/agent/${agentId}/run/${started.json.id}/status`);
    return TERMINAL.includes(s.json.status) ? s.json : null;
  }, 30_000);
}

beforeAll(async () => {
  ctx = await createTestContext({ env: { LOGIN_RATE_LIMIT_MAX: String(LOGIN_LIMIT) } });
  site = await startFixtureSite();
  ports.api = await freePort();
  ports.apiMetrics = await freePort();
  ports.workerMetrics = await freePort();
  server = startNode(['src/server.ts'], {
    ...ctx.env,
    PORT: String(ports.api),
    METRICS_PORT: String(ports.apiMetrics),
    LOG_LEVEL: 'info',
  });
  await waitFor(async () => server.output().includes('Server listening'), 30_000);
  worker = await startWorker({ ...ctx.env, METRICS_PORT: String(ports.workerMetrics) });
  org = await ctx.bootstrap();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await site?.close();
  await ctx?.close();
});

describe('metrics listeners', () => {
  it('each process answers GET /metrics on its own port and nothing else there; none on the API port', async () => {
    for (const port of [ports.apiMetrics, ports.workerMetrics]) {
      const { samples } = await scrape(port);
      expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
      expect(samples.some((s) => s.name === 'ces_db_pool_connections_in_use')).toBe(true);
      expect(samples.some((s) => s.name === 'ces_db_pool_waiting_clients')).toBe(true);
      // Every terminal status has its series from the start.
      const ended = samples.filter((s) => s.name === 'ces_runs_ended_total').map((s) => s.labels.status);
      expect(ended.sort()).toEqual(['Completed', 'Failure', 'Skipped', 'Stopped', 'Success']);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    }
    expect((await fetch(`http://127.0.0.1:${ports.api}/metrics`)).status).toBe(404);
  });
});

describe('API metrics', () => {
  it('counts and times requests by method, route template and status; unknown paths share a route', async () => {
    const before = (await scrape(ports.apiMetrics)).samples;
    for (let i = 0; i < 3; i++) expect((await api('GET', '/api/v1/agent/all')).status).toBe(200);
    expect((await api('GET', '/api/v1/agent/999999')).status).toBe(404);
    for (const p of ['/no/such/path/1', '/no/such/path/2']) {
      expect((await api('GET', p, undefined, false)).status).toBe(404);
    }
    const after = (await scrape(ports.apiMetrics)).samples;

    const all = { method: 'GET', route: '/api/v1/agent/all', status_code: '200' };
    expect(delta(before, after, 'ces_http_requests_total', all)).toBe(3);
    expect(delta(before, after, 'ces_http_request_duration_seconds_count', all)).toBe(3);
    expect(delta(before, after, 'ces_http_request_duration_seconds_bucket', { ...all, le: '+Inf' })).toBe(3);
    expect(delta(before, after, 'ces_http_request_duration_seconds_sum', all)).toBeGreaterThan(0);
    const requests = (route: string, status: string) =>
      delta(before, after, 'ces_http_requests_total', { method: 'GET', route, status_code: status });
    expect(requests('/api/v1/agent/:agentId', '404')).toBe(1);
    expect(requests('unmatched', '404')).toBe(2);
    // Four requests with an API key (its budget) and two without (the client IP's budget).
    const decisions = (decision: string) =>
      delta(before, after, 'ces_rate_limit_decisions_total', { scope: 'request', decision });
    expect(decisions('allowed')).toBe(6);
    expect(decisions('limited')).toBe(0);
  });

  it('counts login rate-limit decisions, allowed and limited', async () => {
    const before = (await scrape(ports.apiMetrics)).samples;
    const statuses: number[] = [];
    for (let i = 0; i <= LOGIN_LIMIT; i++) {
      const body = { grant_type: 'password', username: org.email, password: 'wrong password' };
      const res = await api('POST', '/oauth/token', body, false);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(LOGIN_LIMIT).fill(400), 429]);
    const after = (await scrape(ports.apiMetrics)).samples;
    // Each attempt takes from the client IP's budget, then the username's; the last is refused by the first.
    const decisions = (decision: string) =>
      delta(before, after, 'ces_rate_limit_decisions_total', { scope: 'login', decision });
    expect(decisions('allowed')).toBe(2 * LOGIN_LIMIT);
    expect(decisions('limited')).toBe(1);
  });

  it('1,000 requests over 1,000 different Run ids add no series, and no label carries an id', async () => {
    const agent = await createAgent('Ids', catalogDefinition(site.url));
    expect(agent.status).toBe(201);
    const path = (runId: number) => `/api/v1/agent/${agent.json.id}/run/${runId}/status`;
    // The route and its 404 exist once before counting.
    expect((await api('GET', path(8_000_000))).status).toBe(404);
    // Default process metrics whose label values follow the runtime's own activity (GC kinds, handle types).
    const runtimeLabelled = /^nodejs_(gc_duration_seconds|active_handles|active_resources|active_requests)/;
    const series = (samples: Sample[]) => samples.filter((s) => !runtimeLabelled.test(s.name)).length;
    const before = (await scrape(ports.apiMetrics)).samples;
    for (let batch = 0; batch < 50; batch++) {
      const ids = Array.from({ length: 20 }, (_, i) => 8_000_001 + batch * 20 + i);
      const answers = await Promise.all(ids.map((id) => api('GET', path(id))));
      for (const a of answers) expect(a.status).toBe(404);
    }
    const { text, samples: after } = await scrape(ports.apiMetrics);
    expect(series(after)).toBe(series(before));
    const status404 = { method: 'GET', route: '/api/v1/agent/:agentId/run/:runId/status', status_code: '404' };
    expect(delta(before, after, 'ces_http_requests_total', status404)).toBe(1000);
    // In no label (a sample's value, such as a byte count, may hold these digits by chance).
    expect(text).not.toMatch(/\{[^}\n]*8000\d{3}[^}\n]*\}/);
    expect(text).not.toContain(org.email);
  });
});

describe('worker metrics', () => {
  it('Runs started/ended, duration, pages, fetch errors, bytes, credits and queue counts match the Runs', async () => {
    const before = (await scrape(ports.workerMetrics)).samples;
    const creditsBefore = (await api('GET', '/api/v1/billing/credits')).json.availableCredits as number;
    const good = await createAgent('Catalog', catalogDefinition(site.url));
    const closedPort = await freePort();
    const refused = { ...catalogDefinition(site.url), startUrl: `http://127.0.0.1:${closedPort}/`, next: undefined };
    const bad = await createAgent('Refused', refused);
    const goodRun = await runToEnd(good.json.id);
    const badRun = await runToEnd(bad.json.id);
    expect(goodRun.status).toBe(10);
    expect(badRun.status).toBe(6);

    // The counters move right after the terminal write, credits after the settlement that follows it.
    const after = await waitFor(async () => {
      const s = (await scrape(ports.workerMetrics)).samples;
      const completed = valueOf(s, 'ces_queue_jobs', { queue: 'runs', state: 'completed' });
      return delta(before, s, 'ces_credits_debited_total') > 0 && completed === 2 ? s : null;
    });
    expect(delta(before, after, 'ces_runs_started_total')).toBe(2);
    expect(delta(before, after, 'ces_runs_ended_total', { status: 'Success' })).toBe(1);
    expect(delta(before, after, 'ces_runs_ended_total', { status: 'Failure' })).toBe(1);
    expect(delta(before, after, 'ces_runs_ended_total', { status: 'Stopped' })).toBe(0);
    expect(delta(before, after, 'ces_run_duration_seconds_count', { status: 'Success' })).toBe(1);
    const goodRow = await ctx.db.run.findUniqueOrThrow({ where: { id: goodRun.id } });
    const seconds = (goodRow.endTime!.getTime() - goodRow.startTime!.getTime()) / 1000;
    expect(delta(before, after, 'ces_run_duration_seconds_sum', { status: 'Success' })).toBeCloseTo(seconds, 3);

    expect(goodRow.pageCount).toBeGreaterThan(0);
    expect(delta(before, after, 'ces_pages_fetched_total')).toBe(goodRow.pageCount);
    expect(delta(before, after, 'ces_fetch_errors_total', { kind: 'refused' })).toBe(1);
    expect(delta(before, after, 'ces_fetch_errors_total', { kind: 'http_4xx' })).toBe(0);
    const files = (await api('GET', `/api/v1/agent/${good.json.id}/run/${goodRun.id}/files`)).json as RunFile[];
    const exportBytes = files.filter((f) => f.fileType === 'Csv').reduce((n, f) => n + f.fileSize, 0);
    expect(exportBytes).toBeGreaterThan(0);
    expect(delta(before, after, 'ces_exported_bytes_total')).toBe(exportBytes);

    const creditsAfter = (await api('GET', '/api/v1/billing/credits')).json.availableCredits as number;
    expect(delta(before, after, 'ces_credits_debited_total')).toBeCloseTo(creditsBefore - creditsAfter, 6);
    expect(valueOf(after, 'ces_queue_jobs', { queue: 'runs', state: 'active' })).toBe(0);
    expect(valueOf(after, 'ces_queue_jobs', { queue: 'runs', state: 'failed' })).toBe(0);
  });

  it('counts the jobs of every queue the worker owns, the webhooks queue included', async () => {
    // The webhook relay runs on a job scheduler every 500 ms: its completed jobs show in the count.
    const samples = await waitFor(async () => {
      const s = (await scrape(ports.workerMetrics)).samples;
      return valueOf(s, 'ces_queue_jobs', { queue: 'webhooks', state: 'completed' }) > 0 ? s : null;
    }, 15_000);
    const queues = new Set(samples.filter((x) => x.name === 'ces_queue_jobs').map((x) => x.labels.queue));
    expect([...queues].sort()).toEqual(['builder', 'maintenance', 'runs', 'schedules', 'webhooks']);
  });

  it('a Schedule fired late is observed with its lag', async () => {
    const agent = await createAgent('Scheduled', catalogDefinition(site.url));
    const nightly = { name: 'Nightly', scheduleType: 3, cronExpression: '0 3 * * *', isEnabled: true };
    const schedule = await api('POST', `/api/v1/agent/${agent.json.id}/schedules`, nightly);
    expect(schedule.status).toBe(201);
    const before = (await scrape(ports.workerMetrics)).samples;
    // As after 30 s without a worker: the fire time has passed.
    const nextRunTime = new Date(Date.now() - 30_000);
    await ctx.db.schedule.update({ where: { id: BigInt(schedule.json.id) }, data: { nextRunTime } });
    const after = await waitFor(async () => {
      const s = (await scrape(ports.workerMetrics)).samples;
      return delta(before, s, 'ces_schedule_fire_lag_seconds_count') === 1 ? s : null;
    });
    const lag = delta(before, after, 'ces_schedule_fire_lag_seconds_sum');
    expect(lag).toBeGreaterThanOrEqual(30);
    expect(lag).toBeLessThan(60);
    expect(delta(before, after, 'ces_schedule_fire_lag_seconds_bucket', { le: '10' })).toBe(0);
    expect(delta(before, after, 'ces_schedule_fire_lag_seconds_bucket', { le: '60' })).toBe(1);
  });
});

describe.skipIf(promtool() === null)('promtool', () => {
  it('`promtool check metrics` finds nothing to report in either process', async () => {
    const bin = promtool()!;
    for (const port of [ports.apiMetrics, ports.workerMetrics]) {
      expect(promtoolCheck(bin, (await scrape(port)).text)).toBe('');
    }
  });
});
