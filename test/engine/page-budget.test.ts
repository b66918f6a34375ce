// A page's parse and extraction run on a worker thread under a CPU budget: a page that exceeds it
// fails with a message that says why, is counted in the evidence, and the run goes on; a stop ends a
// page being processed at once, and the next page gets a fresh thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as delay } from 'node:timers/promises';
import { runExtraction, type AgentDefinition, type ExtractionOptions } from '../../src/engine/index.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { failureText } from '../helpers/failure-text.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

// 20,000 nested divs cost the HTML standard's parser seconds (quadratic in the depth); 1 s is the budget.
// The fixture's page has text in a table, so the fast parse path leaves it to parse5.
const DEEP = 20_000;
const fields = [{ name: 'title', selector: 'a.title' }];
const run = (definition: AgentDefinition, extra: Partial<ExtractionOptions> = {}) =>
  runExtraction({
    definition,
    inputRows: [],
    allowPrivateTargets: true,
    pageCpuSeconds: 1,
    requestTimeoutMs: 10_000,
    ...extra,
  });
const message = (url: string) =>
  `Page ${url} failed: the page took longer than 1 s to process: it is unusually large or deeply nested`;

describe('the page CPU budget', () => {
  it('fails a list page over budget with its reason, counts it, and goes on with the other inputs', async () => {
    const definition: AgentDefinition = {
      startUrl: `${site.url}/deep?levels={{levels}}`,
      parameters: [{ name: 'levels' }],
      list: { selector: 'div.product', fields },
    };
    const deepUrl = `${site.url}/deep?levels=${DEEP}`;
    const result = await run(definition, { inputRows: [{ levels: String(DEEP) }, { levels: '0' }] });
    expect(result.fatalError).toBeUndefined();
    expect(result.sets[0].records).toEqual([{ title: 'Product 1' }]);
    expect(result.failedPages).toEqual([
      { url: deepUrl, status: 200, error: message(deepUrl), html: expect.stringContaining('<div>') },
    ]);
    expect(result.stats).toMatchObject({ pageCount: 2, dataCount: 1, errorCount: 1, inputCount: 2 });
    expect(result.evidence).toMatchObject({ requests: 2, overBudgetPages: 1, firstUrls: { overBudget: deepUrl } });
  });

  it('fails the run when its only start page is over budget', async () => {
    const url = `${site.url}/deep?levels=${DEEP}`;
    const result = await run({ startUrl: url, list: { selector: 'div.product', fields } });
    expect(result.fatalError?.code).toBe('PAGE_CPU_BUDGET');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${url} failed: the page took longer than 1 s to process: it is unusually large or deeply nested`,
    );
    expect(result.sets[0].records).toEqual([]);
  });

  it('keeps the record of a detail page over budget, with its detail fields empty', async () => {
    const result = await run({
      startUrl: `${site.url}/deep-links?levels=${DEEP}`,
      list: { selector: 'div.product', fields },
      follow: { selector: 'a.title', fields: [{ name: 'sku', selector: 'p.sku' }] },
    });
    expect(result.sets[0].records).toEqual([
      { title: 'Product 1', sku: 'SKU-1' },
      { title: 'Deep', sku: null },
    ]);
    expect(result.failedPages.map((p) => p.error)).toEqual([message(`${site.url}/deep?levels=${DEEP}`)]);
    expect(result.evidence.overBudgetPages).toBe(1);
  });

  it('fails a small page on which a selector explodes', async () => {
    // Under 16 KB (pages that small are otherwise processed inline), but :has inside :has is cubic here.
    const url = `${site.url}/deep?levels=1400`;
    const result = await run({
      startUrl: url,
      list: { selector: 'div:has(div:has(div:has(span)))', fields },
    });
    expect(result.fatalError?.code).toBe('PAGE_CPU_BUDGET');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${url} failed: the page took longer than 1 s to process: it is unusually large or deeply nested`,
    );
  });

  it('a stop ends a page being processed at once, whatever its budget, and the next run gets a fresh thread', async () => {
    // Processing this page would take minutes, far beyond the test's timeout, were the stop to wait for it.
    const path = '/deep?levels=80000';
    const stop = new AbortController();
    const running = run(
      { startUrl: `${site.url}${path}`, list: { selector: 'div.product', fields } },
      { pageCpuSeconds: 600, signal: stop.signal },
    );
    while (!site.hits.has(path)) await delay(20);
    await delay(300); // the body is on its way to the page thread
    stop.abort();
    const stopped = await running;
    expect(stopped.stopped).toBe(true);
    expect(stopped.failedPages).toEqual([]);

    const after = await run({
      startUrl: `${site.url}/catalog?page=1`,
      list: { selector: 'div.product', fields },
      next: { selector: 'a.next' },
    });
    expect(after.sets[0].records).toHaveLength(30);
  });
});
