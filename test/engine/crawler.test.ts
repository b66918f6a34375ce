import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction, splitIntoSets, type ExtractionOptions, type LogLevel } from '../../src/engine/index.js';
import { productPrice, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { failureText } from '../helpers/failure-text.js';

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site.close();
});

const catalogFields: AgentDefinition['list']['fields'] = [
  { name: 'name', selector: 'a.title' },
  { name: 'url', selector: 'a.title', attribute: 'href', transform: 'absoluteUrl' },
  { name: 'price', selector: '.price', transform: 'number' },
  { name: 'priceText', selector: '.price' },
];

function catalog(overrides: Partial<AgentDefinition> = {}, query = ''): AgentDefinition {
  return {
    startUrl: `${site.url}/catalog?page=1${query}`,
    list: { selector: 'div.product', fields: catalogFields },
    next: { selector: 'a.next' },
    ...overrides,
  };
}

interface LogEntry {
  level: LogLevel;
  message: string;
}

function options(
  definition: AgentDefinition,
  extra: Partial<ExtractionOptions> = {},
): ExtractionOptions & { logs: LogEntry[] } {
  const logs: LogEntry[] = [];
  return {
    definition,
    inputRows: [],
    parallelism: 1,
    maxConcurrency: 4,
    requestTimeoutMs: 5000,
    maxRetries: 2,
    retryBaseDelayMs: 5,
    allowPrivateTargets: true,
    signal: new AbortController().signal,
    log: (level, message) => logs.push({ level, message }),
    ...extra,
    logs,
  };
}

function expectedProduct(n: number) {
  return {
    name: `Product ${n}`,
    url: `${site.url}/product/${n}`,
    price: n * 1.25,
    priceText: productPrice(n),
  };
}

async function bytesOf(path: string): Promise<number> {
  const response = await fetch(site.url + path);
  return (await response.arrayBuffer()).byteLength;
}

describe('runExtraction over the fixture catalog', () => {
  it('extracts exactly 30 records from 3 pages with exact values and stats', async () => {
    const before = new Map(site.hits);
    const opts = options(catalog({}, '&v=exact'));
    const result = await runExtraction(opts);

    expect(result.fatalError).toBeUndefined();
    expect(result.stopped).toBe(false);
    expect(result.sets).toHaveLength(1);
    expect(result.sets[0].set).toBe(1);
    const records = result.sets[0].records;
    expect(records).toHaveLength(30);
    expect(records).toEqual(Array.from({ length: 30 }, (_, i) => expectedProduct(i + 1)));
    expect(records[0]).toEqual({ name: 'Product 1', url: `${site.url}/product/1`, price: 1.25, priceText: '$1.25' });
    expect(records[29]).toEqual({
      name: 'Product 30',
      url: `${site.url}/product/30`,
      price: 37.5,
      priceText: '$37.50',
    });

    // robots.txt (a 404 here) is fetched once per host and counts in the traffic like every response.
    const traffic =
      (await bytesOf('/robots.txt')) +
      (await bytesOf('/catalog?page=1&v=exact')) +
      (await bytesOf('/catalog?page=2&v=exact')) +
      (await bytesOf('/catalog?page=3&v=exact'));
    expect(result.stats).toEqual({
      pageCount: 3,
      dataCount: 30,
      exportCount: 0,
      errorCount: 0,
      inputCount: 1,
      traffic,
    });
    for (const page of [1, 2, 3]) {
      const key = `/catalog?page=${page}&v=exact`;
      expect(site.hits.get(key)! - (before.get(key) ?? 0)).toBe(2); // one by the run, one by bytesOf
    }
    expect(result.failedPages).toEqual([]);
    expect(opts.logs.some((l) => l.level === 'Info' && l.message.includes('Extraction finished: 30 records'))).toBe(
      true,
    );
  });

  it('follows detail links and merges their fields into each record', async () => {
    const def = catalog({
      follow: {
        selector: 'a.title',
        fields: [
          { name: 'sku', selector: '.sku' },
          { name: 'description', selector: '.description', transform: 'trim' },
          { name: 'back', selector: 'a.back', attribute: 'href', transform: 'absoluteUrl' },
        ],
      },
    });
    const result = await runExtraction(options(def));
    const records = result.sets[0].records;
    expect(records).toHaveLength(30);
    expect(records[6]).toEqual({
      ...expectedProduct(7),
      sku: 'SKU-7',
      description: 'Product 7 is a fine product.',
      back: `${site.url}/catalog?page=1`,
    });
    expect(records.map((r) => r.sku)).toEqual(Array.from({ length: 30 }, (_, i) => `SKU-${i + 1}`));
    expect(Object.keys(records[0])).toEqual(['name', 'url', 'price', 'priceText', 'sku', 'description', 'back']);
    expect(result.stats.pageCount).toBe(33);
    expect(result.stats.dataCount).toBe(30);
    expect(site.hits.get('/product/30')).toBeGreaterThanOrEqual(1);
  });

  it('stops after next.maxPages list pages', async () => {
    const result = await runExtraction(options(catalog({ next: { selector: 'a.next', maxPages: 2 } }, '&v=max')));
    expect(result.sets[0].records.map((r) => r.name)).toEqual(Array.from({ length: 20 }, (_, i) => `Product ${i + 1}`));
    expect(result.stats.pageCount).toBe(2);
    expect(site.hits.get('/catalog?page=3&v=max')).toBeUndefined();
  });

  it('follows a redirect and resolves links against the final URL', async () => {
    const result = await runExtraction(options(catalog({ startUrl: `${site.url}/redirect`, next: undefined })));
    expect(result.sets[0].records).toEqual(Array.from({ length: 10 }, (_, i) => expectedProduct(i + 1)));
    expect(result.stats.pageCount).toBe(1);
  });

  it('applies attribute and transform options', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/transforms`,
      list: {
        selector: '.item',
        fields: [
          { name: 'raw', selector: '.name' },
          { name: 'trimmed', selector: '.name', transform: 'trim' },
          { name: 'price', selector: '.price', transform: 'number' },
          { name: 'notNumber', selector: '.none', transform: 'number' },
          { name: 'link', selector: '.link', attribute: 'href', transform: 'absoluteUrl' },
          { name: 'relative', selector: '.link', attribute: 'href' },
          { name: 'image', selector: 'img.pic', attribute: 'src', transform: 'absoluteUrl' },
          { name: 'html', selector: '.rich', attribute: 'html' },
          { name: 'richText', selector: '.rich' },
          { name: 'ownId', attribute: 'data-id' },
          { name: 'absentAttribute', selector: '.link', attribute: 'title' },
          { name: 'absentElement', selector: '.nope' },
        ],
      },
    };
    const result = await runExtraction(options(def));
    expect(result.sets[0].records).toEqual([
      {
        raw: '\n    Widget   ',
        trimmed: 'Widget',
        price: 1234.5,
        notNumber: null,
        link: `${site.url}/docs/widget?x=1#top`,
        relative: '../docs/widget?x=1#top',
        image: `${site.url}/img/widget.png`,
        html: '<b>Bold</b> &amp; plain',
        richText: 'Bold & plain',
        ownId: 'item-1',
        absentAttribute: null,
        absentElement: null,
      },
    ]);
  });

  it('drops records missing a required field, counting and logging each', async () => {
    const def = catalog({
      list: {
        selector: 'div.product',
        fields: [...catalogFields, { name: 'badge', selector: '.badge', required: true }],
      },
    });
    const opts = options(def);
    const result = await runExtraction(opts);
    expect(result.sets[0].records.map((r) => r.name)).toEqual([5, 10, 15, 20, 25, 30].map((n) => `Product ${n}`));
    expect(result.stats).toMatchObject({ dataCount: 6, errorCount: 24, pageCount: 3 });
    expect(result.fatalError).toBeUndefined();
    const drops = opts.logs.filter(
      (l) => l.level === 'Error' && l.message.includes("required field 'badge' has no value"),
    );
    expect(drops).toHaveLength(24);
    expect(drops[0].message).toBe(
      `record 1 on ${site.url}/catalog?page=1 dropped: required field 'badge' has no value`,
    );
  });

  it('treats a required export column like a required field', async () => {
    const def = catalog({
      list: { selector: 'div.product', fields: [...catalogFields, { name: 'badge', selector: '.badge' }] },
      next: undefined,
      export: { columns: [{ name: 'name' }, { name: 'badge', required: true }] },
    });
    const result = await runExtraction(options(def));
    expect(result.sets[0].records.map((r) => r.name)).toEqual(['Product 5', 'Product 10']);
    expect(result.stats.errorCount).toBe(8);
  });

  it('keeps a record whose detail page failed, with empty detail fields, and counts the error', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/links`,
      list: { selector: '.product', fields: [{ name: 'title', selector: '.title' }] },
      follow: { selector: 'a.title', fields: [{ name: 'sku', selector: '.sku' }] },
    };
    const opts = options(def);
    const result = await runExtraction(opts);
    expect(result.sets[0].records).toEqual([
      { title: 'Good link', sku: 'SKU-1' },
      { title: 'Blocked link', sku: null },
      { title: 'No link', sku: null },
    ]);
    expect(result.stats).toMatchObject({ pageCount: 2, dataCount: 3, errorCount: 1 });
    expect(result.failedPages).toHaveLength(1);
    expect(result.failedPages[0]).toMatchObject({ url: `${site.url}/blocked`, status: 403 });
    expect(result.fatalError).toBeUndefined();
    expect(opts.logs).toContainEqual({
      level: 'Warning',
      message: `follow selector 'a.title' found no link in record 3 on ${site.url}/links`,
    });
  });

  it('decodes gzip bodies and non-UTF-8 charsets', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/gzip`,
      list: { selector: '.product', fields: [{ name: 'name', selector: '.title' }] },
    };
    const gzip = await runExtraction(options(def));
    expect(gzip.sets[0].records).toEqual([{ name: 'Product 1' }, { name: 'Product 2' }]);
    const latin1 = await runExtraction(options({ ...def, startUrl: `${site.url}/latin1` }));
    expect(latin1.sets[0].records).toEqual([{ name: 'Café' }]);
  });

  it('warns when the list selector matches nothing', async () => {
    const opts = options(catalog({ list: { selector: '.nothing', fields: catalogFields }, next: undefined }));
    const result = await runExtraction(opts);
    expect(result.sets[0].records).toEqual([]);
    expect(result.stats).toMatchObject({ pageCount: 1, dataCount: 0, errorCount: 0 });
    expect(result.fatalError).toBeUndefined();
    expect(opts.logs).toContainEqual({
      level: 'Warning',
      message: `list selector '.nothing' matched nothing on ${site.url}/catalog?page=1`,
    });
  });
});

describe('retries and errors a user can act on', () => {
  it('retries a 500 with backoff and then succeeds', async () => {
    const opts = options({
      startUrl: `${site.url}/flaky?key=retry-ok`,
      list: { selector: '.product', fields: [{ name: 'name', selector: '.title' }] },
    });
    const result = await runExtraction(opts);
    expect(site.hits.get('/flaky?key=retry-ok')).toBe(3);
    expect(result.sets[0].records).toEqual([{ name: 'Product 1' }]);
    expect(result.stats).toMatchObject({ pageCount: 1, errorCount: 0 });
    const retries = opts.logs.filter((l) => l.level === 'Warning' && l.message.includes('retrying'));
    expect(retries).toHaveLength(2);
    expect(retries[0].message).toMatch(
      new RegExp(
        `^GET ${site.url}/flaky\\?key=retry-ok answered 500 Internal Server Error; retrying in \\d+ ms \\(attempt 2 of 3\\)$`,
      ),
    );
  });

  it('gives up after maxRetries and reports the last status', async () => {
    const url = `${site.url}/flaky?key=retry-exhausted`;
    const result = await runExtraction(
      options(
        { startUrl: url, list: { selector: '.product', fields: [{ name: 'n', selector: '.title' }] } },
        { maxRetries: 1 },
      ),
    );
    expect(site.hits.get('/flaky?key=retry-exhausted')).toBe(2);
    expect(result.stats).toMatchObject({ pageCount: 0, errorCount: 1 });
    expect(result.fatalError?.code).toBe('START_PAGE_HTTP_ERROR');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${url} answered 500 Internal Server Error (after 2 attempts): the site is failing; try again later`,
    );
  });

  it('reports 403 as blocked, without retrying, and fails the run when every start page fails', async () => {
    const url = `${site.url}/blocked`;
    const opts = options({ startUrl: url, list: { selector: '.product', fields: [{ name: 'n' }] } });
    const before = site.hits.get('/blocked') ?? 0;
    const result = await runExtraction(opts);
    expect(site.hits.get('/blocked')! - before).toBe(1);
    expect(result.stats).toMatchObject({ pageCount: 0, errorCount: 1, inputCount: 1 });
    expect(opts.logs).toContainEqual({
      level: 'Error',
      message: `GET ${url} answered 403 Forbidden: the site blocked the request`,
    });
    expect(result.fatalError?.code).toBe('BLOCKED');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${url} answered 403 Forbidden: the site blocked the request; try a proxy pool or lower concurrency`,
    );
    expect(opts.logs).toContainEqual({ level: 'Fatal', message: failureText(result.fatalError) });
    expect(result.failedPages).toHaveLength(1);
    expect(result.failedPages[0].status).toBe(403);
    expect(result.failedPages[0].error).toBe(`GET ${url} answered 403 Forbidden: the site blocked the request`);
    expect(result.failedPages[0].html).toContain('<h1>Access denied</h1>');
  });

  it('retries 429 and reports rate limiting', async () => {
    const url = `${site.url}/status/429`;
    const result = await runExtraction(options({ startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } }));
    expect(site.hits.get('/status/429')).toBe(3);
    expect(result.fatalError?.code).toBe('BLOCKED');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${url} answered 429 Too Many Requests (after 3 attempts): the site is rate limiting requests; lower concurrency or try a proxy pool`,
    );
  });

  it('does not retry other 4xx answers', async () => {
    const url = `${site.url}/status/404`;
    const result = await runExtraction(options({ startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } }));
    expect(site.hits.get('/status/404')).toBe(1);
    expect(result.fatalError?.code).toBe('START_PAGE_HTTP_ERROR');
    expect(failureText(result.fatalError)).toBe(`Start page ${url} answered 404 Not Found`);
  });

  it('has no fatal error when only some inputs fail', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/{{path}}`,
      parameters: [{ name: 'path' }],
      list: { selector: '.product', fields: [{ name: 'name', selector: '.title' }] },
    };
    const result = await runExtraction(options(def, { inputRows: [{ path: 'blocked' }, { path: 'slow' }] }));
    expect(result.fatalError).toBeUndefined();
    expect(result.stats).toMatchObject({ inputCount: 2, errorCount: 1, pageCount: 1, dataCount: 1 });
  });

  it('says which inputs failed when all start pages fail', async () => {
    const def: AgentDefinition = {
      startUrl: `${site.url}/status/{{code}}`,
      parameters: [{ name: 'code' }],
      list: { selector: '.product', fields: [{ name: 'name' }] },
    };
    const result = await runExtraction(options(def, { inputRows: [{ code: '410' }, { code: '403' }] }));
    expect(failureText(result.fatalError)).toBe(
      `Start page ${site.url}/status/410 answered 410 Gone (the start pages of all 2 inputs failed)`,
    );
  });

  it('times out a page that never answers', async () => {
    const url = `${site.url}/hang`;
    const started = Date.now();
    const opts = options(
      { startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } },
      { requestTimeoutMs: 300, maxRetries: 0 },
    );
    const result = await runExtraction(opts);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.fatalError?.code).toBe('START_PAGE_UNREACHABLE');
    expect(failureText(result.fatalError)).toBe(`Start page ${url} failed: timed out after 300 ms`);
    expect(opts.logs).toContainEqual({ level: 'Error', message: `GET ${url} failed: timed out after 300 ms` });
    expect(result.stats).toMatchObject({ errorCount: 1, pageCount: 0 });
  });

  it('reports a refused connection', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const url = `http://127.0.0.1:${port}/`;
    const result = await runExtraction(
      options({ startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } }, { maxRetries: 0 }),
    );
    expect(result.fatalError?.code).toBe('START_PAGE_UNREACHABLE');
    expect(failureText(result.fatalError)).toBe(`Start page ${url} failed: connection refused by 127.0.0.1:${port}`);
  });

  it('reports a host that does not resolve', async () => {
    const url = 'http://no-such-host.invalid/';
    const result = await runExtraction(
      options({ startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } }, { maxRetries: 0 }),
    );
    expect(result.fatalError?.code).toBe('START_PAGE_UNREACHABLE');
    expect(failureText(result.fatalError)).toMatch(
      /^Start page http:\/\/no-such-host\.invalid\/ failed: could not resolve host no-such-host\.invalid/,
    );
    // The guard's own DNS check reports the same way.
    const guarded = await runExtraction(
      options(
        { startUrl: url, list: { selector: 'x', fields: [{ name: 'n' }] } },
        { maxRetries: 0, allowPrivateTargets: false },
      ),
    );
    expect(failureText(guarded.fatalError)).toMatch(/could not resolve host no-such-host\.invalid/);
  });

  it('reports too many redirects', async () => {
    const result = await runExtraction(
      options({ startUrl: `${site.url}/redirect-loop?n=0`, list: { selector: 'x', fields: [{ name: 'n' }] } }),
    );
    expect(result.fatalError?.code).toBe('START_PAGE_UNREACHABLE');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${site.url}/redirect-loop?n=0 failed: too many redirects (more than 5)`,
    );
    expect(site.hits.get('/redirect-loop?n=5')).toBe(1);
    expect(site.hits.get('/redirect-loop?n=6')).toBeUndefined();
  });

  it('refuses private targets unless allowed, and says how to allow them', async () => {
    const url = `${site.url}/catalog?page=1&v=ssrf`;
    const result = await runExtraction(options(catalog({ startUrl: url }), { allowPrivateTargets: false }));
    expect(result.fatalError?.code).toBe('TARGET_REFUSED');
    expect(failureText(result.fatalError)).toBe(
      `refused to fetch ${url}: target resolves to a private address (127.0.0.1); set ENGINE_ALLOW_PRIVATE_TARGETS=true to allow`,
    );
    expect(site.hits.get('/catalog?page=1&v=ssrf')).toBeUndefined();
    expect(result.stats).toMatchObject({ errorCount: 1, pageCount: 0 });
  });

  it('reports a start URL that is not http(s) after substitution', async () => {
    const def: AgentDefinition = {
      startUrl: '{{u}}',
      parameters: [{ name: 'u' }],
      list: { selector: 'x', fields: [{ name: 'n' }] },
    };
    const result = await runExtraction(options(def, { inputRows: [{ u: 'ftp://example.com/' }] }));
    expect(result.fatalError?.code).toBe('START_URL_INVALID');
    expect(failureText(result.fatalError)).toBe("Input 1: start URL 'ftp://example.com/' is not an http(s) URL");
    expect(result.stats).toMatchObject({ errorCount: 1, inputCount: 1 });
  });

  it('returns a fatal error for an invalid definition without fetching', async () => {
    const result = await runExtraction(
      options({ startUrl: 'http://x/', list: { selector: 'div[', fields: [{ name: 'n' }] } }),
    );
    expect(result.fatalError?.code).toBe('DEFINITION_INVALID');
    expect(failureText(result.fatalError)).toMatch(
      /^definition is invalid: list\.selector: invalid CSS selector 'div\['/,
    );
    expect(result.sets).toEqual([]);
  });
});

describe('parameters, parallel sets and concurrency', () => {
  const searchDefinition = (): AgentDefinition => ({
    startUrl: '{{base}}/search?q={{q}}',
    parameters: [
      { name: 'base', defaultValue: site.url },
      { name: 'q', defaultValue: 'default' },
    ],
    list: {
      selector: '.result',
      fields: [
        { name: 'query', selector: '.query' },
        { name: 'n', selector: '.n', transform: 'number' },
      ],
    },
  });

  it('uses parameter defaults when there are no input rows, and encodes values in the query', async () => {
    const result = await runExtraction(options(searchDefinition()));
    expect(result.sets[0].records).toEqual([1, 2, 3].map((n) => ({ query: 'default', n })));
    const special = await runExtraction(options(searchDefinition(), { inputRows: [{ q: 'red & blue/green?' }] }));
    expect(special.sets[0].records[0]).toEqual({ query: 'red & blue/green?', n: 1 });
    expect(site.hits.get('/search?q=red%20%26%20blue%2Fgreen%3F')).toBe(1);
  });

  it('splits inputs into parallel sets and keeps each set apart', async () => {
    const rows = ['a', 'b', 'c', 'd', 'e'].map((q) => ({ q }));
    const result = await runExtraction(options(searchDefinition(), { inputRows: rows, parallelism: 2 }));
    expect(result.sets.map((s) => s.set)).toEqual([1, 2]);
    expect(result.sets[0].records.map((r) => `${r.query}${r.n}`)).toEqual([
      'a1',
      'a2',
      'a3',
      'b1',
      'b2',
      'b3',
      'c1',
      'c2',
      'c3',
    ]);
    expect(result.sets[1].records.map((r) => `${r.query}${r.n}`)).toEqual(['d1', 'd2', 'd3', 'e1', 'e2', 'e3']);
    expect(result.stats).toMatchObject({ inputCount: 5, pageCount: 5, dataCount: 15 });
  });

  it('runs no more sets than there are inputs', async () => {
    const result = await runExtraction(options(searchDefinition(), { inputRows: [{ q: 'x' }], parallelism: 4 }));
    expect(result.sets).toHaveLength(1);
    expect(splitIntoSets([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([
      [1, 2, 3],
      [4, 5],
      [6, 7],
    ]);
  });

  it('masks secrets in every log message, failed page and error', async () => {
    const secret = 'hunter2 & co';
    const def: AgentDefinition = {
      startUrl: '{{base}}/status/403?token={{token}}',
      parameters: [
        { name: 'base', defaultValue: site.url },
        { name: 'token', encrypted: true, defaultValue: 'default-secret' },
      ],
      list: { selector: '.x', fields: [{ name: 'n' }] },
    };
    const opts = options(def, { inputRows: [{ token: secret }], secrets: [secret] });
    const result = await runExtraction(opts);
    const everything = JSON.stringify({ logs: opts.logs, result });
    expect(everything).not.toContain('hunter2');
    expect(everything).toContain('token=********');
    expect(failureText(result.fatalError)).toBe(
      `Start page ${site.url}/status/403?token=******** answered 403 Forbidden: the site blocked the request; try a proxy pool or lower concurrency`,
    );
    const badUrl = await runExtraction(
      options(
        { startUrl: '{{u}}', parameters: [{ name: 'u' }], list: { selector: 'x', fields: [{ name: 'n' }] } },
        {
          inputRows: [{ u: 'ftp://hunter2 & co/' }],
          secrets: [secret],
        },
      ),
    );
    expect(failureText(badUrl.fatalError)).toBe("Input 1: start URL 'ftp://********/' is not an http(s) URL");
    // The encrypted parameter's default is a secret too.
    const withDefault = options(def);
    await runExtraction(withDefault);
    expect(JSON.stringify(withDefault.logs)).not.toContain('default-secret');
  });

  it('never has more requests in flight than maxConcurrency across parallel sets', async () => {
    const def = catalog(
      {
        follow: { selector: 'a.title', fields: [{ name: 'sku', selector: '.sku' }] },
        next: { selector: 'a.next', maxPages: 2 },
        // One host: its own limit (2 by default) is lifted so the Run-wide one is what is measured.
        politeness: { perHostConcurrency: 10 },
      },
      '&detailMs=40',
    );
    site.resetMaxInFlight();
    const rows = [{}, {}];
    const result = await runExtraction(options(def, { inputRows: rows, parallelism: 2, maxConcurrency: 3 }));
    expect(result.sets.map((s) => s.records.length)).toEqual([20, 20]);
    expect(result.stats.pageCount).toBe(44);
    expect(site.maxInFlight).toBe(3);

    // By default a host gets at most 2 requests at once, whatever the Run-wide limit.
    site.resetMaxInFlight();
    await runExtraction(
      options({ ...def, politeness: undefined }, { inputRows: rows, parallelism: 2, maxConcurrency: 3 }),
    );
    expect(site.maxInFlight).toBe(2);

    site.resetMaxInFlight();
    await runExtraction(options({ ...def, next: undefined }, { inputRows: [{}], maxConcurrency: 1 }));
    expect(site.maxInFlight).toBe(1);
  });
});

describe('stopping', () => {
  it('stops on the abort signal and returns the records extracted so far', async () => {
    const controller = new AbortController();
    const opts = options(catalog({}, '&ms=150&v=stop'), {
      signal: controller.signal,
      onProgress: (stats) => {
        if (stats.pageCount === 1) controller.abort();
      },
    });
    const result = await runExtraction(opts);
    expect(result.stopped).toBe(true);
    expect(result.fatalError).toBeUndefined();
    expect(result.sets[0].records).toEqual(Array.from({ length: 10 }, (_, i) => expectedProduct(i + 1)));
    expect(result.stats).toMatchObject({ pageCount: 1, dataCount: 10, errorCount: 0 });
    expect(site.hits.get('/catalog?page=3&ms=150&v=stop')).toBeUndefined();
    expect(opts.logs.some((l) => l.message.startsWith('Extraction stopped'))).toBe(true);
  });

  it('aborts in-flight requests on stop', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await runExtraction(
      options(
        { startUrl: `${site.url}/hang`, list: { selector: 'x', fields: [{ name: 'n' }] } },
        { signal: controller.signal },
      ),
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toMatchObject({ stopped: true, failedPages: [], stats: { errorCount: 0, inputCount: 1 } });
    expect(result.fatalError).toBeUndefined();
  });

  it('does nothing when already stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runExtraction(options(catalog({}, '&v=prestopped'), { signal: controller.signal }));
    expect(result.stopped).toBe(true);
    expect(result.stats.inputCount).toBe(0);
    expect(site.hits.get('/catalog?page=1&v=prestopped')).toBeUndefined();
  });

  it('fails the run after definition timeoutSeconds, keeping the records so far', async () => {
    const result = await runExtraction(options(catalog({ timeoutSeconds: 1 }, '&ms=400&v=timeout')));
    expect(result.fatalError?.code).toBe('RUN_TIMEOUT');
    expect(failureText(result.fatalError)).toBe('run timed out after 1 s');
    expect(result.stopped).toBe(false);
    expect(result.sets[0].records).toHaveLength(20);
    expect(result.stats.dataCount).toBe(20);
  });
});

describe('proxy', () => {
  it('routes requests through the proxy', async () => {
    const tunnels: string[] = [];
    const proxy = http.createServer((_, res) => res.writeHead(405).end());
    proxy.on('connect', (req, clientSocket, head) => {
      tunnels.push(`${req.url} ${req.headers['proxy-authorization'] ?? ''}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      upstream.on('error', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    const proxyPort = (proxy.address() as AddressInfo).port;
    try {
      const opts = options(catalog({ next: undefined }, '&v=proxy'), {
        proxyUrl: `http://user:pr0xy-pass@127.0.0.1:${proxyPort}`,
      });
      const result = await runExtraction(opts);
      expect(result.sets[0].records).toHaveLength(10);
      const sitePort = new URL(site.url).port;
      expect(tunnels[0]).toBe(`127.0.0.1:${sitePort} Basic ${Buffer.from('user:pr0xy-pass').toString('base64')}`);
      expect(JSON.stringify(opts.logs)).not.toContain('pr0xy-pass');
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('failure codes of a start page', () => {
  it('PROXY_FAILED: the proxy cannot be reached', async () => {
    const result = await runExtraction(
      options(catalog({ next: undefined }, '&v=proxy-down'), { proxyUrl: 'http://127.0.0.1:1', maxRetries: 0 }),
    );
    expect(result.fatalError?.code).toBe('PROXY_FAILED');
  });

  it('RESPONSE_TOO_LARGE: the start page is larger than the engine accepts', async () => {
    const result = await runExtraction(options(catalog({ next: undefined }, '&v=large'), { maxBodyBytes: 100 }));
    expect(result.fatalError?.code).toBe('RESPONSE_TOO_LARGE');
  });
});

describe('failed pages: HTML kept only when asked, and capped', () => {
  const blockedTwice = () => ({
    startUrl: `${site.url}/blocked`,
    list: { selector: '.product', fields: [{ name: 'n' }] },
  });

  it('keeps none with failedPageHtml null (logMode Text), and cuts it to maxBytes for at most maxPages pages', async () => {
    const none = await runExtraction(options(blockedTwice(), { inputRows: [{}, {}], failedPageHtml: null }));
    expect(none.failedPages).toHaveLength(2);
    expect(none.failedPages.every((p) => p.html === undefined)).toBe(true);

    const capped = await runExtraction(
      options(blockedTwice(), { inputRows: [{}, {}], failedPageHtml: { maxPages: 1, maxBytes: 20 } }),
    );
    expect(capped.failedPages).toHaveLength(2);
    expect(capped.failedPages.filter((p) => p.html !== undefined)).toHaveLength(1);
    expect(Buffer.byteLength(capped.failedPages.find((p) => p.html !== undefined)!.html!)).toBeLessThanOrEqual(20);
  });
});
