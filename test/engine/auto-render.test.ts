// render "auto" without Chromium: a stand-in browser source records what it is asked to render. The
// decision comes from the page task that extracts the page served over HTTP (one parse, within the page
// CPU budget): a page whose selectors match stays on HTTP, a scripted page where nothing matches is
// rendered, and a page over budget fails as such without reaching the browser.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runExtraction, type AgentDefinition, type ExtractionOptions } from '../../src/engine/index.js';
import type { PageSource } from '../../src/engine/page.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { startScriptSite, type ScriptSite } from '../helpers/script-site.js';
import { failureText } from '../helpers/failure-text.js';

let site: ScriptSite;
let fixtures: FixtureSite;
beforeAll(async () => {
  [site, fixtures] = await Promise.all([startScriptSite(), startFixtureSite()]);
});
afterAll(async () => {
  await Promise.all([site?.close(), fixtures?.close()]);
});

const renderedList =
  '<ul><li class="item"><a class="name">Rendered 1</a></li><li class="item"><a class="name">Rendered 2</a></li></ul>';

/** A browser that answers every URL with the same two-item list, and remembers what it was asked for. */
function standInBrowser(asked: string[]): ExtractionOptions['openBrowserSource'] {
  return (): PageSource => ({
    receivedBytes: 0,
    close: async () => undefined,
    get: async (url) => {
      asked.push(url);
      const body = Buffer.from(`<html><body>${renderedList}</body></html>`);
      return {
        ok: true,
        page: { url, finalUrl: url, status: 200, contentType: 'text/html', body, renderer: 'browser' },
      };
    },
  });
}

async function auto(definition: Omit<AgentDefinition, 'render'>, extra: Partial<ExtractionOptions> = {}) {
  const asked: string[] = [];
  const logs: string[] = [];
  const result = await runExtraction({
    definition: { ...definition, render: 'auto' },
    inputRows: [],
    allowPrivateTargets: true,
    browser: { executablePath: process.execPath, maxPages: 1, maxRssMb: 1024 },
    openBrowserSource: standInBrowser(asked),
    log: (level, message) => logs.push(`${level} ${message}`),
    ...extra,
  });
  return { ...result, asked, logs, records: result.sets.flatMap((s) => s.records) };
}

const list = { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] };

it('keeps a page whose selectors match on HTTP', async () => {
  const result = await auto({ startUrl: `${site.url}/static`, list });
  expect(result.asked).toEqual([]);
  expect(result.records).toEqual([{ name: 'Item 1' }, { name: 'Item 2' }, { name: 'Item 3' }]);
  expect(result.evidence.autoRenderedPages ?? 0).toBe(0);
});

it('renders a scripted page where nothing matches, and counts it once', async () => {
  const url = `${site.url}/xhr`;
  const result = await auto({ startUrl: url, list });
  expect(result.asked).toEqual([url]);
  expect(result.records).toEqual([{ name: 'Rendered 1' }, { name: 'Rendered 2' }]);
  expect(result.stats.pageCount).toBe(1);
  expect(result.evidence).toMatchObject({ autoRenderedPages: 1, renderedPages: 1, parser: { fast: 1, standard: 0 } });
  expect(result.logs).toContain(
    `Info auto: ${url}: the selectors match nothing in the served HTML and the page carries scripts; rendering it in the browser`,
  );
});

it('decides for detail pages too, with the list and detail selectors', async () => {
  const result = await auto({
    startUrl: `${site.url}/static`,
    list: { ...list, fields: [{ name: 'name', selector: 'a.name' }] },
    follow: { selector: 'a.name', fields: [{ name: 'sku', selector: '.sku' }] },
  });
  // The detail pages are built by script: each is rendered (the stand-in has no .sku, so sku stays empty).
  expect(result.asked).toEqual([1, 2, 3].map((n) => `${site.url}/detail/${n}`));
  expect(result.records.map((r) => r.name)).toEqual(['Item 1', 'Item 2', 'Item 3']);
  expect(result.stats.pageCount).toBe(4);
});

it('fails a page over the CPU budget as such, deciding nothing outside the budget', async () => {
  const url = `${fixtures.url}/deep?levels=20000`;
  const result = await auto(
    { startUrl: url, list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] } },
    { pageCpuSeconds: 1 },
  );
  expect(result.asked).toEqual([]);
  expect(failureText(result.fatalError)).toMatch(/took longer than 1 s to process/);
  expect(result.evidence.overBudgetPages).toBe(1);
});
