// The browser renderer against script-built fixture pages on 127.0.0.1, with the system's Chromium.
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPageSource } from '../../src/engine/browser/browser-source.js';
import { closeSharedBrowserPool, descendants, sharedBrowserPool } from '../../src/engine/browser/index.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction, type ExtractionOptions } from '../../src/engine/index.js';
import { isPrivateAddress } from '../../src/engine/address-class.js';
import { SCRIPT_ITEMS, startScriptSite, type ScriptSite } from '../helpers/script-site.js';
import { failureText } from '../helpers/failure-text.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browser = { executablePath: CHROMIUM, maxPages: 4, maxRssMb: 4096 };
let site: ScriptSite;

beforeAll(async () => {
  site = await startScriptSite();
});
afterAll(async () => {
  await closeSharedBrowserPool();
  await site.close();
});

const list = {
  selector: 'li.item',
  fields: [
    { name: 'name', selector: 'a.name' },
    { name: 'price', selector: '.price', transform: 'number' as const },
  ],
};

async function run(definition: AgentDefinition, extra: Partial<ExtractionOptions> = {}) {
  const logs: string[] = [];
  const result = await runExtraction({
    definition,
    inputRows: [],
    allowPrivateTargets: true,
    browser,
    retryBaseDelayMs: 10,
    log: (level, message) => logs.push(`${level} ${message}`),
    ...extra,
  });
  return { ...result, logs, records: result.sets.flatMap((s) => s.records) };
}

describe('render modes on a list loaded by XHR', () => {
  it('http gets nothing and says the page needs JavaScript; browser and auto get every item', async () => {
    const http = await run({ startUrl: `${site.url}/xhr`, list });
    expect(http.records).toEqual([]);
    expect(http.evidence.scriptedEmptyListPages).toBe(1);

    const rendered = await run({ startUrl: `${site.url}/xhr`, list, render: 'browser', waitFor: 'li.item' });
    expect(rendered.records).toHaveLength(SCRIPT_ITEMS);
    expect(rendered.records[0]).toEqual({ name: 'Item 1', price: 1.5 });
    expect(rendered.evidence.renderedPages).toBe(1);
    expect(rendered.logs.some((l) => l.startsWith(`Info RENDER ${site.url}/xhr -> 200`))).toBe(true);
    expect(rendered.stats.traffic).toBeGreaterThan(0);

    const auto = await run({ startUrl: `${site.url}/xhr`, list, render: 'auto', waitFor: 'li.item' });
    expect(auto.records).toHaveLength(SCRIPT_ITEMS);
    expect(auto.evidence.autoRenderedPages).toBe(1);
    expect(auto.logs.some((l) => l.includes('auto: ') && l.includes('rendering it in the browser'))).toBe(true);
  });

  it('auto keeps a server-rendered page on HTTP', async () => {
    const auto = await run({
      startUrl: `${site.url}/static`,
      list: { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] },
      render: 'auto',
    });
    expect(auto.records).toHaveLength(3);
    expect(auto.evidence.renderedPages ?? 0).toBe(0);
  });
});

describe('browser pages', () => {
  it('scrolls an infinite list and clicks a Load more button given as next', async () => {
    const scrolled = await run({
      startUrl: `${site.url}/scroll`,
      list,
      render: 'browser',
      waitFor: 'li.item',
      scroll: 10,
    });
    expect(scrolled.records).toHaveLength(SCRIPT_ITEMS);
    const clicked = await run({
      startUrl: `${site.url}/more`,
      list,
      render: 'browser',
      waitFor: 'li.item',
      next: { selector: '#more' },
    });
    expect(clicked.records).toHaveLength(SCRIPT_ITEMS);
  });

  it('follows to detail pages rendered by script', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/xhr`,
      list: { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] },
      follow: { selector: 'a.name', fields: [{ name: 'sku', selector: '.sku' }] },
      render: 'browser',
      // waitFor applies to every page, detail pages included: a quiet network suits both.
      waitFor: 'networkidle',
    };
    const result = await run(def);
    expect(result.records).toHaveLength(SCRIPT_ITEMS);
    expect(result.records[11]).toEqual({ name: 'Item 12', sku: 'SKU-12' });
  });

  it('fails a page that never settles with a timeout', async () => {
    const result = await run({
      startUrl: `${site.url}/never`,
      list,
      render: 'browser',
      waitFor: 'li.item',
      pageTimeoutSeconds: 1,
    });
    expect(failureText(result.fatalError)).toMatch(/did not finish rendering within 1 s/);
    expect(result.stats.errorCount).toBe(1);
  });

  it('refuses a browser Run when Chromium is missing, naming the setting', async () => {
    const result = await run(
      { startUrl: `${site.url}/xhr`, list, render: 'browser' },
      { browser: { ...browser, executablePath: '/nonexistent/chromium' } },
    );
    expect(failureText(result.fatalError)).toBe(
      "render 'browser' needs Chromium, which this worker does not have: set CHROMIUM_PATH to a Chromium binary (Debian: apt-get install chromium)",
    );
  });

  it('stops within a second while pages render, and leaves the process tree as it found it', async () => {
    const controller = new AbortController();
    const started = run(
      { startUrl: `${site.url}/never`, list, render: 'browser', waitFor: 'li.item', pageTimeoutSeconds: 60 },
      { signal: controller.signal },
    );
    while ((site.hits.get('/never') ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
    const at = Date.now();
    controller.abort();
    const result = await started;
    expect(result.stopped).toBe(true);
    expect(Date.now() - at).toBeLessThan(5_000);
    await closeSharedBrowserPool();
    expect(descendants(process.pid)).toEqual([]);
  });

  it('replaces a browser killed mid-Run and retries its pages', async () => {
    const pool = sharedBrowserPool(browser);
    const def: AgentDefinition = { startUrl: `${site.url}/slow-kill`, list, render: 'browser', waitFor: 'li.item' };
    // Kill every Chromium process as soon as the first render asked for the page.
    const before = site.hits.get('/xhr') ?? 0;
    const started = run({ ...def, startUrl: `${site.url}/xhr` });
    while ((site.hits.get('/xhr') ?? 0) === before) await new Promise((r) => setTimeout(r, 5));
    for (const pid of descendants(process.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    const result = await started;
    expect(result.records).toHaveLength(SCRIPT_ITEMS);
    expect(result.logs.some((l) => l.startsWith('Warning render ') && l.includes('retrying'))).toBe(true);
    expect(pool.processCount()).toBeGreaterThan(0);
  });
});

describe('the guard on browser requests', () => {
  it('refuses loopback, metadata and private names a page reaches for, and the Run still gets its page', async () => {
    const other = await startScriptSite();
    const targets = [
      `${other.url}/static`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${other.port}/static`,
    ];
    const source = new BrowserPageSource({
      pool: sharedBrowserPool(browser),
      definition: { startUrl: site.url, list, render: 'browser', waitFor: 'li.item' },
      signal: new AbortController().signal,
      allowPrivateTargets: false,
      // The fixture site itself is on loopback: only its port is let through, as a public site would be.
      isRefusedAddress: (address, port) =>
        !(port === site.port && address === '127.0.0.1') && isPrivateAddress(address),
      log: () => undefined,
    });
    try {
      const result = await source.get(
        `${site.url}/reach?${targets.map((t) => `t=${encodeURIComponent(t)}`).join('&')}`,
      );
      expect(result.ok).toBe(true);
      const html = result.ok ? result.page.body.toString() : '';
      const $ = load(html);
      expect(
        $('li.item a.name')
          .map((_, a) => $(a).text())
          .get(),
      ).toEqual(['refused', 'refused', 'refused']);
      expect(other.hits.size).toBe(0);
      const direct = await source.get(`${other.url}/static`);
      expect(direct.ok ? 'ok' : direct.failure.kind).toBe('target-refused');
    } finally {
      await source.close();
      await other.close();
    }
  });
});
