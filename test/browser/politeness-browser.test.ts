// Proxy rotation, bans and Retry-After in Chromium, measured at loopback sites and proxies as the HTTP side
// is (test/engine/politeness.test.ts): each page goes through the proxy the rotation picks, a banned
// proxy's page is retried through another, per-proxy outcomes land in the evidence, and a 429 with
// Retry-After holds every page of the Run to that host. Some Runs go through the run process's IPC
// sessions (remote-browser.ts <-> browser-sessions.ts), wired to each other in this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedBrowserPool, pooledBrowserSources } from '../../src/engine/browser/index.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction, type ExtractionOptions } from '../../src/engine/index.js';
import { openRunBrowserSessions } from '../../src/jobs/browser-sessions.js';
import { remoteBrowserSources } from '../../src/jobs/remote-browser.js';
import type { BrowserReply, BrowserRequest } from '../../src/services/runs/run-protocol.js';
import { failureText } from '../helpers/failure-text.js';
import {
  politeDefinition,
  startBanningProxy,
  startCountingProxy,
  startPoliteSite,
  type PoliteSite,
} from '../helpers/polite-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browser = { executablePath: CHROMIUM, maxPages: 4, maxRssMb: 4096 };

let good: Array<Awaited<ReturnType<typeof startCountingProxy>>>;
let banning: Awaited<ReturnType<typeof startBanningProxy>>;
const sites: PoliteSite[] = [];
beforeAll(async () => {
  good = await Promise.all([startCountingProxy(), startCountingProxy()]);
  banning = await startBanningProxy();
});
afterAll(async () => {
  await closeSharedBrowserPool();
  await Promise.all([...good.map((p) => p.close()), banning.close(), ...sites.map((s) => s.close())]);
});

async function site() {
  const s = await startPoliteSite();
  sites.push(s);
  return s;
}

/** The browser sessions as a run process reaches them: its factory talks to the worker's sessions. */
function remoteSessions() {
  let toRunProcess: (msg: BrowserReply) => void = () => {};
  const sessions = openRunBrowserSessions(pooledBrowserSources(browser), (msg) => toRunProcess(msg));
  const remote = remoteBrowserSources((msg: BrowserRequest) => sessions.handle(msg));
  toRunProcess = (msg) => remote.receive(msg);
  return { open: remote.open, close: () => sessions.close() };
}

async function run(definition: unknown, extra: Partial<ExtractionOptions> = {}) {
  const logs: string[] = [];
  const result = await runExtraction({
    definition: { render: 'browser', ...(definition as AgentDefinition) },
    inputRows: [],
    allowPrivateTargets: true,
    browser,
    maxRetries: 2,
    retryBaseDelayMs: 10,
    log: (level, message) => logs.push(`${level} ${message}`),
    ...extra,
  });
  return { ...result, logs, records: result.sets.flatMap((s) => s.records) };
}

/** The pages of the Run the site saw (Chromium's own requests, a favicon, left out). */
const pagesOf = (s: PoliteSite) => s.seen.filter((r) => /^\/(list|item)/.test(r.path));

describe('proxy rotation in Chromium', () => {
  it('perRequest over the IPC sessions: pages by turns, the banning proxy banned after one page, counted per proxy', async () => {
    const s = await site();
    banning.proxied.length = 0;
    const pool = [
      `http://u:pw-one@127.0.0.1:${good[0].port}`,
      `http://u:pw-ban@127.0.0.1:${banning.port}`,
      `http://127.0.0.1:${good[1].port}`,
    ];
    const def = politeDefinition(s.url, 'n=5', {
      proxy: { rotation: 'perRequest' },
      politeness: { respectRobotsTxt: false, perHostConcurrency: 1 },
    });
    const remote = remoteSessions();
    let result;
    try {
      result = await run(def, { proxyUrl: pool[0], proxyPool: pool, openBrowserSource: remote.open });
    } finally {
      await remote.close();
    }
    expect(result.fatalError).toBeUndefined();
    expect(result.records.map((r) => r.sku)).toEqual(['sku-1', 'sku-2', 'sku-3', 'sku-4', 'sku-5']);
    // 6 pages reached the site (the list, 5 items) through the two good proxies, by turns; the page sent
    // through the banning proxy was answered by its ban site and retried through the next proxy.
    const through = good.map((p) => pagesOf(s).filter((r) => p.ports.has(r.remotePort)).length);
    expect(pagesOf(s)).toHaveLength(6);
    expect(through[0] + through[1]).toBe(6);
    expect(Math.abs(through[0] - through[1])).toBeLessThanOrEqual(1);
    expect(banning.proxied.length).toBeGreaterThanOrEqual(1);
    expect(result.evidence.proxies).toEqual({
      [`127.0.0.1:${good[0].port}`]: { requests: through[0], bans: 0, errors: 0 },
      [`127.0.0.1:${banning.port}`]: { requests: 1, bans: 1, errors: 0 },
      [`127.0.0.1:${good[1].port}`]: { requests: through[1], bans: 0, errors: 0 },
    });
    expect(result.logs.some((l) => /through the proxy 127\.0\.0\.1:\d+, which counts as banned/.test(l))).toBe(true);
    expect(JSON.stringify(result)).not.toMatch(/pw-one|pw-ban/);
  });

  it('banText bans even a pool of one; every proxy banned fails the Run BLOCKED', async () => {
    const s = await site();
    const pool = [`http://127.0.0.1:${banning.port}`];
    const def = politeDefinition(s.url, 'n=2', { politeness: { respectRobotsTxt: false } });
    const banned = await run({ ...def, proxy: { banText: 'Access denied' } }, { proxyUrl: pool[0], proxyPool: pool });
    expect(banned.fatalError?.code).toBe('BLOCKED');
    expect(failureText(banned.fatalError)).toMatch(/counts as banned/);
    expect(banned.evidence.proxies).toEqual({ [`127.0.0.1:${banning.port}`]: { requests: 1, bans: 1, errors: 0 } });
    // Without banText a single proxy's 403 is the site's answer: retried as a 403, never a ban.
    const answered = await run(def, { proxyUrl: pool[0], proxyPool: pool, maxRetries: 0 });
    expect(answered.fatalError?.code).toBe('BLOCKED');
    expect(answered.evidence.proxies).toEqual({ [`127.0.0.1:${banning.port}`]: { requests: 1, bans: 0, errors: 0 } });
  });

  it('untilFailure keeps one proxy for every page while it answers', async () => {
    const s = await site();
    const pool = [`http://127.0.0.1:${good[0].port}`, `http://127.0.0.1:${good[1].port}`];
    const def = politeDefinition(s.url, 'n=3', {
      proxy: { rotation: 'untilFailure' },
      politeness: { respectRobotsTxt: false },
    });
    const result = await run(def, { proxyUrl: pool[0], proxyPool: pool });
    expect(result.fatalError).toBeUndefined();
    expect(result.records).toHaveLength(3);
    expect(pagesOf(s).every((r) => good[0].ports.has(r.remotePort))).toBe(true);
    expect(result.evidence.proxies).toEqual({ [`127.0.0.1:${good[0].port}`]: { requests: 4, bans: 0, errors: 0 } });
  });
});

describe('Retry-After in Chromium', () => {
  it('a 429 with Retry-After slows the whole host over the IPC sessions: no page to it starts before the wait is over', async () => {
    const s = await site();
    // 3 s: a page takes Chromium a few hundred ms here, so without the pause several would start within it.
    s.busyOnce = { path: '/item/1', seconds: 3 };
    const remote = remoteSessions();
    let result;
    try {
      result = await run(politeDefinition(s.url, 'n=6&ms=50', { politeness: { respectRobotsTxt: false } }), {
        openBrowserSource: remote.open,
      });
    } finally {
      await remote.close();
    }
    expect(result.records.map((r) => r.sku)).toEqual(['sku-1', 'sku-2', 'sku-3', 'sku-4', 'sku-5', 'sku-6']);
    const at = s.busyOnce.answeredAt!;
    // The one page let through the gate with the 429's page may reach the site a moment later (Chromium
    // opens its page first), and the gate hears of the 429 over the run process's channel, which on a
    // busy machine takes a moment more; no other page starts before the wait is over (without the pause
    // the other four pages would start within it).
    const during = pagesOf(s).filter((r) => r.start > at + 300 && r.start < at + 2950);
    expect(during.length).toBeLessThanOrEqual(1);
    expect(pagesOf(s).filter((r) => r.start >= at + 2950).length).toBeGreaterThanOrEqual(4);
  });
});
