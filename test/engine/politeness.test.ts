// Politeness and proxy rotation in the engine: robots.txt matched for the product's user agent, its
// answers (404, 5xx, a redirect to a private address with the guard on), the host gate's limits and
// Retry-After pause, and the rotation of a proxy pool, measured at loopback sites and proxies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/address-class.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { HostGate } from '../../src/engine/host-gate.js';
import { DEFAULT_USER_AGENT, HttpClient } from '../../src/engine/http.js';
import { runExtraction, type ExtractionOptions, type LogLevel } from '../../src/engine/index.js';
import { ProxyRoutes } from '../../src/engine/proxy-rotation.js';
import { RobotsTxt, robotsToken } from '../../src/engine/robots.js';
import type { TargetPolicy } from '../../src/engine/ssrf.js';
import { failureText } from '../helpers/failure-text.js';
import {
  politeDefinition,
  startBanningProxy,
  startCountingProxy,
  startGaps,
  startPoliteSite,
  type PoliteSite,
} from '../helpers/polite-site.js';

/**
 * Spacing is kept between the moments requests leave the gate; at the site a gap can look shorter by
 * the difference in how long two requests took to get there on a loaded machine.
 */
const TOLERANCE_MS = 60;

function options(definition: unknown, extra: Partial<ExtractionOptions> = {}) {
  const logs: Array<{ level: LogLevel; message: string }> = [];
  return {
    definition: definition as AgentDefinition,
    inputRows: [],
    allowPrivateTargets: true,
    maxRetries: 1,
    retryBaseDelayMs: 10,
    log: (level: LogLevel, message: string) => logs.push({ level, message }),
    logs,
    ...extra,
  };
}

const sites: PoliteSite[] = [];
async function site(robots: string | number | null = null) {
  const s = await startPoliteSite(robots);
  sites.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

describe('robots.txt', () => {
  it('is matched for the product token, fetched once, and a disallowed page is skipped, counted and logged', async () => {
    expect(robotsToken(DEFAULT_USER_AGENT)).toBe('CloudExtractionService');
    expect(robotsToken('MyBot/2.0 (+https://x.example)')).toBe('MyBot');
    const s = await site(
      'User-agent: *\nDisallow: /\n\nUser-agent: CloudExtractionService\nDisallow: /item/2\nAllow: /\n',
    );
    const opts = options(politeDefinition(s.url, 'n=3'));
    const result = await runExtraction(opts);
    expect(result.fatalError).toBeUndefined();
    expect(s.robotsHits).toBe(1);
    expect(s.seen.map((r) => r.path).sort()).toEqual(['/item/1?ms=0', '/item/3?ms=0', '/list?n=3']);
    expect(result.sets[0].records.map((r) => r.sku)).toEqual(['sku-1', null, 'sku-3']);
    expect(result.evidence.skippedByRobots).toBe(1);
    expect(result.evidence.firstUrls.robots).toBe(`${s.url}/item/2?ms=0`);
    expect(result.stats.errorCount).toBe(0);
    expect(result.failedPages).toEqual([]);
    expect(opts.logs).toContainEqual({
      level: 'Warning',
      message: `skipped by robots.txt: ${s.url}/item/2?ms=0: ${s.url}/robots.txt disallows it for CloudExtractionService (line 5)`,
    });
  });

  it('a disallowed start page fails the Run with ROBOTS_DISALLOWED; respectRobotsTxt false fetches it', async () => {
    const s = await site('User-agent: *\nDisallow: /list\n');
    const result = await runExtraction(options(politeDefinition(s.url)));
    expect(result.fatalError?.code).toBe('ROBOTS_DISALLOWED');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${s.url}/list?n=4 was not fetched: ${s.url}/robots.txt disallows it for CloudExtractionService (line 2); set politeness.respectRobotsTxt to false only if you may crawl it anyway`,
    );
    expect(s.seen).toEqual([]);
    s.reset();
    const off = await runExtraction(
      options(politeDefinition(s.url, 'n=4', { politeness: { respectRobotsTxt: false } })),
    );
    expect(off.fatalError).toBeUndefined();
    expect(off.sets[0].records).toHaveLength(4);
    expect(s.robotsHits).toBe(0);
  });

  it('404 allows everything; 5xx disallows everything for the Run (after the retries)', async () => {
    const missing = await site(404);
    expect((await runExtraction(options(politeDefinition(missing.url)))).sets[0].records).toHaveLength(4);
    const failing = await site(503);
    const result = await runExtraction(options(politeDefinition(failing.url)));
    expect(result.fatalError?.code).toBe('ROBOTS_DISALLOWED');
    expect(failureText(result.fatalError)).toContain(`${failing.url}/robots.txt answered 503`);
    expect(failing.robotsHits).toBe(2); // maxRetries 1
    expect(failing.seen).toEqual([]);
  });

  it('Crawl-delay spaces the requests to the host (measured at the site)', async () => {
    const s = await site('User-agent: *\nCrawl-delay: 0.4\n');
    const result = await runExtraction(options(politeDefinition(s.url, 'n=3')));
    expect(result.sets[0].records).toHaveLength(3);
    expect(s.seen).toHaveLength(4);
    for (const gap of startGaps(s.seen)) expect(gap).toBeGreaterThanOrEqual(400 - TOLERANCE_MS);
  });

  it('a robots.txt redirected from a public-looking host to a private address is refused with the guard on', async () => {
    const target = await site('User-agent: *\nDisallow: /\n');
    const privateSite = await site('User-agent: *\nDisallow: /\n');
    // Loopback counts as public on the redirecting site's port only.
    const redirecting = await startRedirectingSite(`${privateSite.url}/robots.txt`);
    const policy: TargetPolicy = {
      allowPrivateTargets: false,
      isRefusedAddress: (address, port) => !(port === redirecting.port) && isPrivateAddress(address),
    };
    const logs: string[] = [];
    const client = new HttpClient({
      maxConcurrency: 2,
      maxRetries: 0,
      signal: new AbortController().signal,
      ...policy,
    });
    const robots = new RobotsTxt({
      fetch: (url) => client.get(url),
      userAgent: DEFAULT_USER_AGENT,
      onCrawlDelay: () => {},
      log: (_level, message) => logs.push(message),
    });
    try {
      expect(await robots.check(`${redirecting.url}/page`)).toEqual({ allowed: true });
      expect(privateSite.robotsHits).toBe(0);
      expect(target.robotsHits).toBe(0);
      expect(logs.join('\n')).toContain(`refused to fetch ${privateSite.url}/robots.txt: target resolves`);
      // A page redirected the same way is refused too, through the host gate.
      const gated = new HttpClient({
        maxConcurrency: 2,
        maxRetries: 0,
        signal: new AbortController().signal,
        hostGate: new HostGate({ perHostConcurrency: 1, minDelayMs: 0 }),
        ...policy,
      });
      const page = await gated.get(`${redirecting.url}/page`);
      expect(page).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
      expect(privateSite.seen).toEqual([]);
      await gated.close();
    } finally {
      await client.close();
      await redirecting.close();
    }
  });
});

describe('the host gate', () => {
  it('holds a host to perHostConcurrency (default 2) and minDelayMs / maxRequestsPerMinute spacing', async () => {
    const s = await site();
    await runExtraction(options(politeDefinition(s.url, 'n=8&ms=120'), { maxConcurrency: 8 }));
    expect(s.maxInFlight).toBe(2);
    s.reset();
    await runExtraction(
      options(politeDefinition(s.url, 'n=8&ms=120', { politeness: { perHostConcurrency: 5 } }), { maxConcurrency: 8 }),
    );
    expect(s.maxInFlight).toBe(5);
    s.reset();
    await runExtraction(options(politeDefinition(s.url, 'n=3', { politeness: { minDelayMs: 250 } })));
    expect(s.seen).toHaveLength(4);
    for (const gap of startGaps(s.seen)) expect(gap).toBeGreaterThanOrEqual(250 - TOLERANCE_MS);
    s.reset();
    await runExtraction(options(politeDefinition(s.url, 'n=3', { politeness: { maxRequestsPerMinute: 300 } })));
    for (const gap of startGaps(s.seen)) expect(gap).toBeGreaterThanOrEqual(200 - TOLERANCE_MS);
  });

  it('a 429 with Retry-After slows the whole host: no request to it starts before the wait is over', async () => {
    const s = await site();
    s.busyOnce = { path: '/item/1', seconds: 1 };
    const result = await runExtraction(options(politeDefinition(s.url, 'n=6&ms=50'), { maxRetries: 2 }));
    expect(result.sets[0].records.map((r) => r.sku)).toEqual(['sku-1', 'sku-2', 'sku-3', 'sku-4', 'sku-5', 'sku-6']);
    const at = s.busyOnce.answeredAt!;
    // Two requests are in flight per host: the other one may have been sent before the 429 came back and
    // reach the site a moment after it (on a busy machine, more than a few milliseconds later). Without the
    // pause every remaining item (50 ms each) would start within the second.
    const during = s.seen.filter((r) => r.start > at + 20 && r.start < at + 950);
    expect(during.length).toBeLessThanOrEqual(1);
    expect(s.seen.filter((r) => r.start >= at + 950).length).toBeGreaterThanOrEqual(4);
  });

  it('a redirect hop counts under its own host: the host it leads to keeps its perHostConcurrency', async () => {
    const target = await site();
    const redirecting = await startRedirectingSite(`${target.url}/item/2?ms=300`);
    const gate = new HostGate({ perHostConcurrency: 1, minDelayMs: 0 });
    const client = new HttpClient({
      maxConcurrency: 4,
      allowPrivateTargets: true,
      signal: new AbortController().signal,
      hostGate: gate,
    });
    try {
      const [direct, redirected] = await Promise.all([
        client.get(`${target.url}/item/1?ms=300`),
        client.get(`${redirecting.url}/go`),
      ]);
      expect([direct.ok, redirected.ok]).toEqual([true, true]);
      expect(target.seen.map((r) => r.path).sort()).toEqual(['/item/1?ms=300', '/item/2?ms=300']);
      // One at a time at the target, although the redirected request entered through another host's slot.
      expect(target.maxInFlight).toBe(1);
    } finally {
      await client.close();
      await redirecting.close();
    }
  });

  it('pauses a host for every waiter, and the pause ends', async () => {
    let now = 1_000;
    const gate = new HostGate({ perHostConcurrency: 4, minDelayMs: 0 }, () => now);
    gate.slowDown('http://a.example/x', 500);
    expect(gate.spacingOf('http://a.example/')).toBe(0);
    const signal = new AbortController().signal;
    let granted = false;
    const pending = gate.acquire('http://a.example/y', signal).then((release) => ((granted = true), release));
    await new Promise((r) => setTimeout(r, 50));
    expect(granted).toBe(false);
    now += 500;
    (await pending)();
    expect(granted).toBe(true);
    // Another host is not held up.
    (await gate.acquire('http://b.example/', signal))();
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
    await Promise.all([...good.map((p) => p.close()), banning.close()]);
  });

  it('perRequest: each request goes to the next proxy; the banning one is banned after its first answer', async () => {
    const s = await site();
    banning.proxied.length = 0;
    const pool = [
      `http://u:pw-one@127.0.0.1:${good[0].port}`,
      `http://u:pw-ban@127.0.0.1:${banning.port}`,
      `http://127.0.0.1:${good[1].port}`,
    ];
    const def = politeDefinition(s.url, 'n=6', {
      proxy: { rotation: 'perRequest' },
      politeness: { respectRobotsTxt: false, perHostConcurrency: 1 },
    });
    const opts = options(def, { proxyUrl: pool[0], proxyPool: pool, maxRetries: 2 });
    const result = await runExtraction(opts);
    expect(result.fatalError).toBeUndefined();
    expect(result.sets[0].records.map((r) => r.sku)).toEqual(['sku-1', 'sku-2', 'sku-3', 'sku-4', 'sku-5', 'sku-6']);
    // One tunnel through the banning proxy, and one request in it (banned after its first answer).
    expect(banning.proxied).toHaveLength(1);
    // The 7 pages (the banned one retried) reached the site through the two good proxies, by turns.
    const through = good.map((p) => s.seen.filter((r) => p.ports.has(r.remotePort)).map((r) => r.path));
    expect(s.seen).toHaveLength(7);
    expect(through[0].length + through[1].length).toBe(7);
    expect(Math.abs(through[0].length - through[1].length)).toBeLessThanOrEqual(1);
    expect(result.evidence.proxies).toEqual({
      [`127.0.0.1:${good[0].port}`]: { requests: through[0].length, bans: 0, errors: 0 },
      [`127.0.0.1:${banning.port}`]: { requests: 1, bans: 1, errors: 0 },
      [`127.0.0.1:${good[1].port}`]: { requests: through[1].length, bans: 0, errors: 0 },
    });
    expect(JSON.stringify([result, opts.logs])).not.toMatch(/pw-one|pw-ban/);
  });

  it('when every proxy is banned the page fails BLOCKED; perRun keeps one proxy until it is banned', async () => {
    const s = await site();
    const pool = [`http://127.0.0.1:${banning.port}`, `http://127.0.0.1:${banning.port}`];
    const blocked = await runExtraction(
      options(politeDefinition(s.url, 'n=2', { politeness: { respectRobotsTxt: false } }), {
        proxyUrl: pool[0],
        proxyPool: pool,
        maxRetries: 3,
      }),
    );
    expect(blocked.fatalError?.code).toBe('BLOCKED');
    expect(failureText(blocked.fatalError)).toMatch(
      /^Start page .* was blocked: .*counts as banned \(after 2 attempts\)/,
    );

    const routes = new ProxyRoutes({
      policy: { allowPrivateTargets: true },
      proxyUrls: ['http://a.example:1', 'http://b.example:2', 'http://c.example:3'],
      settings: { rotation: 'perRun', banStatuses: [403] },
      requestTimeoutMs: 1000,
    });
    expect([routes.pick()?.index, routes.pick()?.index]).toEqual([0, 0]);
    routes.report(0, 'error');
    expect(routes.pick()?.index).toBe(0);
    routes.report(0, 'ban');
    expect([routes.pick()?.index, routes.pick()?.index]).toEqual([1, 1]);
    const untilFailure = new ProxyRoutes({
      policy: { allowPrivateTargets: true },
      proxyUrls: ['http://a.example:1', 'http://b.example:2'],
      settings: { rotation: 'untilFailure', banStatuses: [403] },
      requestTimeoutMs: 1000,
    });
    expect(untilFailure.pick()?.index).toBe(0);
    untilFailure.report(0, 'error');
    expect(untilFailure.pick()?.index).toBe(1);
    expect(untilFailure.isBan(403, Buffer.alloc(0))).toBe(true);
    await Promise.all([routes.close(false), untilFailure.close(false)]);
  });
});

/** A site whose every path redirects to `location`. */
async function startRedirectingSite(location: string) {
  const http = await import('node:http');
  const server = http.createServer((_req, res) => res.writeHead(302, { location }).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
