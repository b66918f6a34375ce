// Graceful stop of the engine (`drainSignal`): pages already requested finish, no new page starts,
// the records so far come back with `stopped: true`. Only the hard `signal` cuts a stuck page short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction, type ExtractionOptions, type LogLevel } from '../../src/engine/index.js';
import { waitFor } from '../helpers/process.js';
import { productPrice, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site.close();
});

const fields: AgentDefinition['list']['fields'] = [
  { name: 'title', selector: 'a.title' },
  { name: 'price', selector: 'span.price' },
];

function options(definition: AgentDefinition, extra: Partial<ExtractionOptions> = {}) {
  const logs: Array<{ level: LogLevel; message: string }> = [];
  const opts: ExtractionOptions = {
    definition,
    inputRows: [],
    parallelism: 1,
    maxConcurrency: 4,
    requestTimeoutMs: 20_000,
    maxRetries: 0,
    allowPrivateTargets: true,
    log: (level, message) => logs.push({ level, message }),
    ...extra,
  };
  return { opts, logs };
}

const product = (n: number) => ({ title: `Product ${n}`, price: productPrice(n) });
const hitsMatching = (re: RegExp) =>
  [...site.hits.entries()].filter(([path]) => re.test(path)).reduce((n, [, c]) => n + c, 0);

describe('draining (graceful stop)', () => {
  it('lets the slow list page in flight finish, keeps its records and starts no further page', async () => {
    const drain = new AbortController();
    const signal = new AbortController();
    const { opts, logs } = options(
      {
        startUrl: `${site.url}/catalog?page=1&ms=700&v=drain1`,
        list: { selector: 'div.product', fields },
        next: { selector: 'a.next' },
      },
      { drainSignal: drain.signal, signal: signal.signal },
    );
    const running = runExtraction(opts);
    // Drain while page 1 is being answered (it takes 700 ms).
    await waitFor(async () => site.hits.get('/catalog?page=1&ms=700&v=drain1') === 1, 5000, 10);
    expect(site.inFlight).toBeGreaterThanOrEqual(1);
    drain.abort();
    const result = await running;

    expect(result.stopped).toBe(true);
    expect(result.fatalError).toBeUndefined();
    expect(result.sets).toEqual([{ set: 1, records: Array.from({ length: 10 }, (_, i) => product(i + 1)) }]);
    expect(result.stats).toMatchObject({ pageCount: 1, dataCount: 10, errorCount: 0, inputCount: 1, exportCount: 0 });
    expect(result.failedPages).toEqual([]);
    expect(site.hits.get('/catalog?page=2&ms=700&v=drain1')).toBeUndefined();
    expect(hitsMatching(/v=drain1/)).toBe(1);
    expect(logs.at(-1)?.message).toMatch(/^Extraction stopped: 10 records, 1 pages, 0 errors, 1 inputs/);
    expect(signal.signal.aborted).toBe(false);
  });

  it('lets detail pages already requested finish, starts no queued detail page and no next list page', async () => {
    const drain = new AbortController();
    const { opts } = options(
      {
        startUrl: `${site.url}/catalog?page=1&detailMs=600&v=drain2`,
        list: { selector: 'div.product', fields },
        next: { selector: 'a.next' },
        follow: { selector: 'a.title', fields: [{ name: 'sku', selector: 'p.sku' }] },
      },
      // Two detail pages at a time: when the drain comes, products 1 and 2 are in flight, 3..10 wait.
      { drainSignal: drain.signal, maxConcurrency: 2 },
    );
    const running = runExtraction(opts);
    await waitFor(async () => hitsMatching(/^\/product\/\d+\?ms=600$/) >= 2 && site.inFlight === 2, 5000, 10);
    const requestedBeforeDrain = hitsMatching(/^\/product\/\d+\?ms=600$/);
    expect(requestedBeforeDrain).toBe(2);
    drain.abort();
    const result = await running;

    expect(result.stopped).toBe(true);
    expect(result.fatalError).toBeUndefined();
    // The two detail pages in flight finished and their records are complete; records whose detail
    // page never started are incomplete and dropped.
    expect(result.sets[0].records).toEqual([
      { ...product(1), sku: 'SKU-1' },
      { ...product(2), sku: 'SKU-2' },
    ]);
    expect(result.stats).toMatchObject({ pageCount: 3, dataCount: 2, errorCount: 0 });
    expect(hitsMatching(/^\/product\/\d+\?ms=600$/)).toBe(2);
    expect(hitsMatching(/^\/catalog\?page=2/)).toBe(0);
  });

  it('drained while the list page is in flight, follows no detail link of that page', async () => {
    const drain = new AbortController();
    const { opts } = options(
      {
        startUrl: `${site.url}/catalog?page=1&ms=500&detailMs=1&v=drain3`,
        list: { selector: 'div.product', fields },
        follow: { selector: 'a.title', fields: [{ name: 'sku', selector: 'p.sku' }] },
      },
      { drainSignal: drain.signal },
    );
    const before = hitsMatching(/^\/product\/\d+\?ms=1$/);
    const running = runExtraction(opts);
    await waitFor(async () => site.hits.get('/catalog?page=1&ms=500&detailMs=1&v=drain3') === 1, 5000, 10);
    drain.abort();
    const result = await running;
    expect(result.stopped).toBe(true);
    expect(result.fatalError).toBeUndefined();
    expect(hitsMatching(/^\/product\/\d+\?ms=1$/) - before).toBe(0);
    expect(result.sets[0].records).toEqual([]);
    expect(result.stats).toMatchObject({ pageCount: 1, dataCount: 0, errorCount: 0 });
  });

  it('drained before it starts, requests nothing', async () => {
    const drain = new AbortController();
    drain.abort();
    const { opts } = options(
      { startUrl: `${site.url}/catalog?page=1&v=drain4`, list: { selector: 'div.product', fields } },
      { drainSignal: drain.signal },
    );
    const result = await runExtraction(opts);
    expect(result).toMatchObject({
      stopped: true,
      sets: [{ set: 1, records: [] }],
      stats: { inputCount: 0, pageCount: 0 },
    });
    expect(result.fatalError).toBeUndefined();
    expect(hitsMatching(/v=drain4/)).toBe(0);
  });

  it('stuck on /hang, a drain does not end the run; only the hard signal does', async () => {
    const drain = new AbortController();
    const signal = new AbortController();
    const { opts } = options(
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      { drainSignal: drain.signal, signal: signal.signal },
    );
    const hangBefore = site.hits.get('/hang') ?? 0;
    let settled = false;
    const running = runExtraction(opts).finally(() => {
      settled = true;
    });
    await waitFor(async () => (site.hits.get('/hang') ?? 0) === hangBefore + 1, 5000, 10);
    drain.abort();
    await new Promise((r) => setTimeout(r, 1200));
    expect(settled).toBe(false);
    expect(site.inFlight).toBe(1);

    const abortedAt = Date.now();
    signal.abort();
    const result = await running;
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(result.stopped).toBe(true);
    expect(result.fatalError).toBeUndefined();
    expect(result.failedPages).toEqual([]);
    expect(result.sets).toEqual([{ set: 1, records: [] }]);
    expect(result.stats).toMatchObject({ pageCount: 0, dataCount: 0, errorCount: 0, inputCount: 1 });
    await waitFor(async () => site.inFlight === 0, 2000, 10);
    expect(site.hits.get('/hang')).toBe(hangBefore + 1);
  });
});
