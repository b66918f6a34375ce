// Politeness and proxy rotation as a user meets them: Agents saved and started over the API, a real
// worker, and loopback sites and proxies that measure what they saw (robots.txt, spacing, requests at
// once per host, a host slowed by Retry-After, the proxy each request came through).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import {
  politeDefinition,
  startBanningProxy,
  startCountingProxy,
  startGaps,
  startPoliteSite,
  type PoliteSite,
} from '../helpers/polite-site.js';
import { createAgent, errorCodeOf, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const h = useRunEnvironment();
const sites: PoliteSite[] = [];
afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
});
async function site(robots: string | number | null = null) {
  const s = await startPoliteSite(robots);
  sites.push(s);
  return s;
}

/** Saves an Agent, starts it (with `start` in the body) and waits for its end. */
async function run(definition: unknown, start: Record<string, unknown> = {}) {
  const { app } = h.ctx;
  const agent = await createAgent(app, h.org.apiKey, h.org.spaceId, definition, `Polite ${Math.random()}`);
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agent.id}/start`,
    headers: auth(h.org.apiKey),
    payload: start,
  });
  expect(res.statusCode, res.body).toBe(202);
  const finished = await waitForRun(app, h.org.apiKey, agent.id, res.json().id, undefined, 60_000);
  const diagnostics = (
    await app.inject({
      method: 'GET',
      url: `/api/v1/analytics/agents/${agent.id}/runs/${finished.id}/diagnostics`,
      headers: auth(h.org.apiKey),
    })
  ).json();
  return { agent, run: finished, diagnostics, log: () => logOf(agent.id, finished.id) };
}

async function logOf(agentId: number, runId: number): Promise<string> {
  const { app } = h.ctx;
  const files = (
    await app.inject({ method: 'GET', url: `/api/v1/agent/${agentId}/run/${runId}/files`, headers: auth(h.org.apiKey) })
  ).json() as Array<{ id: number; fileType: string }>;
  const log = files.find((f) => f.fileType === 'Log')!;
  return (
    await app.inject({
      method: 'GET',
      url: `/api/v1/agent/${agentId}/run/${runId}/file/${log.id}/download`,
      headers: auth(h.org.apiKey),
    })
  ).body;
}

/** Spacing at the site may look shorter than at the gate by the jitter of a loaded machine. */
const TOLERANCE_MS = 60;

/**
 * The requests' starts at the site are `ms` apart. One late arrival (the machine busy) shortens the gap
 * after it by as much as it lengthens the gap before: each gap is held to half the spacing (requests
 * sent without it arrive within milliseconds) and their sum, which that jitter cannot shorten, to the
 * whole spacing.
 */
function expectSpaced(seen: Parameters<typeof startGaps>[0], ms: number) {
  const gaps = startGaps(seen);
  for (const gap of gaps) expect(gap, JSON.stringify(seen)).toBeGreaterThanOrEqual(ms / 2);
  const span = gaps.reduce((a, b) => a + b, 0);
  expect(span, JSON.stringify(seen)).toBeGreaterThanOrEqual(gaps.length * ms - TOLERANCE_MS);
}

describe('robots.txt (respected by default)', () => {
  it('skips a disallowed page (counted, logged) and spaces requests by Crawl-delay, measured at the site', async () => {
    const s = await site('User-agent: *\nDisallow: /item/2\nCrawl-delay: 0.3\n');
    const { run: r, diagnostics, log } = await run(politeDefinition(s.url, 'n=4'));
    expect(r).toMatchObject({ status: 10, recordsExtracted: 4 });
    expect(s.robotsHits).toBe(1);
    expect(s.seen.map((x) => x.path)).not.toContain('/item/2?ms=0');
    expect(s.seen).toHaveLength(4);
    expectSpaced(s.seen, 300);
    expect(diagnostics.evidence).toMatchObject({ skippedByRobots: 1, firstUrls: { robots: `${s.url}/item/2?ms=0` } });
    expect(await log()).toContain(`skipped by robots.txt: ${s.url}/item/2?ms=0`);
  });

  it('a disallowed start page fails the Run with ROBOTS_DISALLOWED; an Agent opts out with respectRobotsTxt false', async () => {
    const s = await site('User-agent: *\nDisallow: /\n');
    const failed = await run(politeDefinition(s.url));
    expect(failed.run.status).toBe(6);
    expect(await errorCodeOf(h.ctx.app, h.org.apiKey, failed.agent.id, failed.run.id)).toBe('ROBOTS_DISALLOWED');
    expect(failed.diagnostics.errorMessage).toContain(`Start page ${s.url}/list?n=4 was not fetched`);
    expect(s.seen).toEqual([]);
    const optedOut = await run(politeDefinition(s.url, 'n=4', { politeness: { respectRobotsTxt: false } }));
    expect(optedOut.run).toMatchObject({ status: 10, recordsExtracted: 4 });
    expect(s.robotsHits).toBe(1);
  });
});

describe('per-host limits', () => {
  it('at most perHostConcurrency requests at once (2 by default, or the Agent’s), whatever the Run-wide limit', async () => {
    const s = await site();
    await run(politeDefinition(s.url, 'n=10&ms=150'), { parallelMaxConcurrency: 8 });
    expect(s.seen).toHaveLength(11);
    expect(s.maxInFlight).toBe(2);
    s.reset();
    await run(politeDefinition(s.url, 'n=10&ms=150', { politeness: { perHostConcurrency: 3 } }), {
      parallelMaxConcurrency: 8,
    });
    expect(s.maxInFlight).toBe(3);
  });

  it('minDelayMs and maxRequestsPerMinute space the starts of requests to a host', async () => {
    const s = await site();
    await run(politeDefinition(s.url, 'n=3', { politeness: { minDelayMs: 300 } }));
    expect(s.seen).toHaveLength(4);
    expectSpaced(s.seen, 300);
    s.reset();
    await run(politeDefinition(s.url, 'n=3', { politeness: { maxRequestsPerMinute: 240 } }));
    expectSpaced(s.seen, 250);
  });

  it('a 429 with Retry-After slows the whole host: no other request to it starts during the wait', async () => {
    const s = await site();
    s.busyOnce = { path: '/item/1', seconds: 1 };
    const { run: r } = await run(politeDefinition(s.url, 'n=6&ms=50'));
    expect(r).toMatchObject({ status: 10, recordsExtracted: 6 });
    const at = s.busyOnce.answeredAt!;
    // During the wait, at most the request whose slot was granted with the 429's (both of the host's two
    // slots at once) may still arrive, late on a loaded machine; nothing granted after the 429 was known.
    const duringWait = s.seen.filter((x) => x.start > at + 20 && x.start < at + 950);
    expect(duringWait.length).toBeLessThanOrEqual(1);
    for (const x of duringWait) expect(x.start, x.path).toBeLessThan(at + 300);
    expect(s.seen.filter((x) => x.start >= at + 950).length).toBeGreaterThanOrEqual(4);
  });
});

describe('proxy rotation', () => {
  let good: Array<Awaited<ReturnType<typeof startCountingProxy>>>;
  let banning: Awaited<ReturnType<typeof startBanningProxy>>;
  beforeAll(async () => {
    good = await Promise.all([startCountingProxy(), startCountingProxy()]);
    banning = await startBanningProxy();
  });
  afterAll(async () => {
    await Promise.all([...(good ?? []).map((p) => p.close()), banning?.close()]);
  });

  it('perRequest over a pool of three of which one bans: rotation measured, per-proxy counts in the evidence', async () => {
    const s = await site();
    const pool = await h.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(h.org.apiKey),
      payload: {
        name: 'Rotating',
        proxies: [
          `http://u:rot-secret-1@127.0.0.1:${good[0].port}`,
          `http://u:rot-secret-2@127.0.0.1:${banning.port}`,
          `http://127.0.0.1:${good[1].port}`,
        ],
      },
    });
    expect(pool.statusCode, pool.body).toBe(201);
    const def = politeDefinition(s.url, 'n=6', {
      proxy: { rotation: 'perRequest' },
      politeness: { respectRobotsTxt: false, perHostConcurrency: 1 },
    });
    const { run: r, diagnostics, log } = await run(def, { proxyPoolId: pool.json().id });
    expect(r).toMatchObject({ status: 10, recordsExtracted: 6 });
    expect(banning.proxied).toHaveLength(1);
    const through = good.map((p) => s.seen.filter((x) => p.ports.has(x.remotePort)).length);
    expect(s.seen).toHaveLength(7);
    expect(through[0] + through[1]).toBe(7);
    expect(Math.abs(through[0] - through[1])).toBeLessThanOrEqual(1);
    expect(diagnostics.evidence.proxies).toEqual({
      [`127.0.0.1:${good[0].port}`]: { requests: through[0], bans: 0, errors: 0 },
      [`127.0.0.1:${banning.port}`]: { requests: 1, bans: 1, errors: 0 },
      [`127.0.0.1:${good[1].port}`]: { requests: through[1], bans: 0, errors: 0 },
    });
    expect(JSON.stringify(diagnostics) + (await log())).not.toMatch(/rot-secret/);
  });
});

describe('save-time validation', () => {
  it('refuses bad politeness and proxy values with 400 VALIDATION_FAILED naming the field', async () => {
    const s = await site();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ politeness: { perHostConcurrency: 0 } }, 'definition.politeness.perHostConcurrency'],
      [{ politeness: { minDelayMs: -1 } }, 'definition.politeness.minDelayMs'],
      [{ politeness: { maxRequestsPerMinute: 1.5 } }, 'definition.politeness.maxRequestsPerMinute'],
      [{ politeness: { respectRobotsTxt: 'yes' } }, 'definition.politeness.respectRobotsTxt'],
      [{ politeness: { crawlDelay: 1 } }, 'definition.politeness'],
      [{ proxy: { rotation: 'sometimes' } }, 'definition.proxy.rotation'],
      [{ proxy: { banStatuses: [200] } }, 'definition.proxy.banStatuses'],
      [{ proxy: { banStatuses: [] } }, 'definition.proxy.banStatuses'],
      [{ proxy: { banText: '' } }, 'definition.proxy.banText'],
    ];
    for (const [extra, path] of cases) {
      const res = await h.ctx.app.inject({
        method: 'POST',
        url: '/api/v1/agent',
        headers: auth(h.org.apiKey),
        payload: { name: 'Bad manners', spaceId: h.org.spaceId, definition: politeDefinition(s.url, 'n=1', extra) },
      });
      const body = expectBadRequest(res, 'VALIDATION_FAILED');
      expect(body.message).toContain(path);
    }
  });
});
