// The extraction language through the HTTP API with a real worker: save-time 400s naming the field path,
// XPath + regex + nested multiple fields and maxRecords on the fixture site's catalog, JSON pages with
// jsonPath and next.jsonPath, and hostile JSON pages (50 MB, nested 100,000 deep) that fail alone while
// the worker goes on serving Runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let api: http.Server;
let apiUrl = '';

const deepJson = '{"items":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
beforeAll(async () => {
  ({ ctx, org } = env);
  // A JSON API of two pages, and two hostile JSON answers.
  api = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (url.pathname === '/items') {
      const page = Number(url.searchParams.get('page'));
      const items = [1, 2, 3].map((i) => ({
        id: page * 10 + i,
        name: ` Item ${page}-${i} `,
        price: { amount: `${i}.50 EUR` },
        tags: ['a', 'b'],
      }));
      return json(JSON.stringify({ items, next: page < 2 ? `/items?page=${page + 1}` : null }));
    }
    if (url.pathname === '/huge') return json(`{"items":[${'"x",'.repeat(13_000_000)}"x"]}`);
    if (url.pathname === '/deep') return json(deepJson);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve())));

const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method, url, headers: auth(org.apiKey), ...(payload !== undefined ? { payload } : {}) });

async function runToEnd(definition: unknown) {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition);
  const start = await call('POST', `/api/v1/agent/${agent.id}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id, undefined, 60_000);
  const files = (await call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json() as Array<{
    id: number;
    fileType: string;
  }>;
  const read = async (type: string) => {
    const file = files.find((f) => f.fileType === type);
    return file ? (await call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/file/${file.id}/download`)).body : null;
  };
  return { run, read };
}

describe('save-time problems of the extraction language', () => {
  const save = (fields: unknown[]) =>
    call('POST', '/api/v1/agent', {
      name: 'bad',
      spaceId: org.spaceId,
      definition: { startUrl: 'https://a.example/', list: { selector: 'li', fields } },
    });
  const expect400 = async (fields: unknown[], message: RegExp) => {
    const res = await save(fields);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION_FAILED',
      message: expect.stringMatching(message),
    });
  };

  it('an XPath that does not compile', () =>
    expect400([{ name: 'a', xpath: '//div[' }], /definition\.list\.fields\[0\]\.xpath: invalid XPath '\/\/div\['/));
  it('a regular expression that does not compile, in a nested field', () =>
    expect400(
      [{ name: 'o', selector: 'p', fields: [{ name: 'a', transform: ['trim', { regex: '(a' }] }] }],
      /definition\.list\.fields\[0\]\.fields\[0\]\.transform\[1\]\.regex: invalid regular expression '\(a'/,
    ));
  it('a date format that reads no date', () =>
    expect400(
      [{ name: 'a', transform: { date: 'qqqq' } }],
      /definition\.list\.fields\[0\]\.transform\.date: date format 'qqqq'/,
    ));
  it('fields nested past 3 levels', () =>
    expect400(
      [{ name: 'l1', fields: [{ name: 'l2', fields: [{ name: 'l3', fields: [{ name: 'l4' }] }] }] }],
      /definition\.list\.fields\[0\]\.fields\[0\]\.fields\[0\]\.fields: fields nest at most 3 levels deep/,
    ));
});

describe('Runs of the extraction language', () => {
  it('XPath, regex, a nested multiple field and maxRecords on the catalog, exported as CSV', async () => {
    const { run, read } = await runToEnd({
      startUrl: `${env.site.url}/catalog?page=1`,
      maxRecords: 15,
      list: {
        xpath: "//div[@class='product']",
        fields: [
          { name: 'title', xpath: './a/text()' },
          {
            name: 'n',
            selector: 'a.title',
            attribute: 'href',
            transform: [{ regex: '/product/(\\d+)', group: 1 }, 'number'],
          },
          {
            name: 'parts',
            xpath: './*',
            multiple: true,
            fields: [
              { name: 'tag', xpath: 'name()' },
              { name: 'text', attribute: 'ownText', transform: 'uppercase' },
            ],
          },
          { name: 'words', selector: 'a.title', transform: { split: ' ' } },
        ],
      },
      next: { xpath: "//a[@class='next']/@href", maxPages: 10 },
      export: {
        format: 'csv',
        columns: [{ name: 'title' }, { name: 'n' }, { name: 'parts.1.text' }, { name: 'words' }, { name: 'parts' }],
      },
    });
    expect(run).toMatchObject({ status: 10, recordsExtracted: 15, recordsExported: 15, errorMessage: null });
    const csv = (await read('Csv'))!.split('\r\n');
    expect(csv[0]).toBe('title,n,parts.1.text,words,parts');
    expect(csv[1]).toBe(
      'Product 1,1,$1.25,Product; 1,"[{""tag"":""a"",""text"":""PRODUCT 1""},{""tag"":""span"",""text"":""$1.25""}]"',
    );
    expect(csv.length).toBe(17);
    expect(await read('Log')).toContain('[Info] reached maxRecords (15); the Run stops extracting');
  });

  it('JSON pages: list.jsonPath, field jsonPaths with transforms, next.jsonPath; JSON keeps arrays', async () => {
    const { run, read } = await runToEnd({
      startUrl: `${apiUrl}/items?page=1`,
      list: {
        jsonPath: '$.items[*]',
        fields: [
          { name: 'id', jsonPath: '$.id' },
          { name: 'name', jsonPath: '$.name', transform: 'trim' },
          { name: 'price', jsonPath: '$.price.amount', transform: 'number' },
          { name: 'tags', jsonPath: '$.tags[*]', multiple: true },
        ],
      },
      next: { jsonPath: '$.next' },
      export: { format: 'json' },
    });
    expect(run).toMatchObject({ status: 10, recordsExtracted: 6, errorMessage: null });
    const records = JSON.parse((await read('Json'))!);
    expect(records[0]).toEqual({ id: 11, name: 'Item 1-1', price: 1.5, tags: ['a', 'b'] });
    expect(records.map((r: { id: number }) => r.id)).toEqual([11, 12, 13, 21, 22, 23]);
  });

  it('a 50 MB JSON page and one nested 100,000 deep fail alone; the worker goes on', async () => {
    const { run, read } = await runToEnd({
      startUrl: `${apiUrl}/{{path}}?page=2`,
      parameters: [{ name: 'path' }],
      inputs: [{ path: 'huge' }, { path: 'deep' }, { path: 'items' }],
      list: { jsonPath: '$.items[*]', fields: [{ name: 'id', jsonPath: '$.id' }] },
      export: { format: 'json' },
    });
    expect(run).toMatchObject({ status: 9, recordsExtracted: 3 });
    const log = (await read('Log'))!;
    expect(log).toContain(`[Error] GET ${apiUrl}/huge?page=2 failed: response body exceeds 16777216 bytes`);
    expect(log).toContain(
      `[Error] Page ${apiUrl}/deep?page=2 failed: the page could not be processed (its JSON is nested deeper than 256 levels)`,
    );
    const again = await runToEnd({
      startUrl: `${apiUrl}/items?page=2`,
      list: { jsonPath: '$.items[*]', fields: [{ name: 'id', jsonPath: '$.id' }] },
      export: { format: 'json' },
    });
    expect(again.run).toMatchObject({ status: 10, recordsExtracted: 3 });
  });
});
