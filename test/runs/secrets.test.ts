// Encrypted input parameters end to end (docs/api-contract.md, input parameters): a `?name`
// value is used by the Run but appears in no API response, no Run file, not in clear in the database
// and not in the worker's output; a plain value is clear text in the log; TextAndHtml keeps failed pages.
import { beforeAll, describe, expect, it } from 'vitest';
import { isSealed, unseal } from '../../src/lib/crypto.js';
import { auth, type TestContext } from '../helpers/app.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));

/** Every response body and header set the tests saw, to search for leaked values. */
const seen: string[] = [];
async function inject(method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await ctx.app.inject({
    method,
    url,
    headers: { ...auth(org.apiKey), 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  seen.push(res.body, JSON.stringify(res.headers));
  return res;
}

/** The search agent: `token` is encrypted with a default, `q` is plain; the extracted field does not echo the query. */
const searchDefinition = () => ({
  startUrl: `${site.url}/search?q={{q}}&t={{token}}`,
  parameters: [
    { name: 'token', encrypted: true, defaultValue: 'agent-default-secret' },
    { name: 'q', defaultValue: 'default-q' },
  ],
  list: { selector: 'div.result', fields: [{ name: 'n', selector: 'span.n' }] },
  export: { format: 'csv' as const },
});

interface RunOutput {
  run: any;
  files: Array<{ id: number; name: string; fileType: string; fileSize: number }>;
  bodies: Record<string, { body: string; contentType: string; disposition: string }>;
  row: Awaited<ReturnType<TestContext['db']['run']['findUniqueOrThrow']>>;
}

/** Starts a Run, waits for its end and reads everything it exposes: status, list, files and each file. */
async function runToEnd(agentId: number, body: Record<string, unknown>): Promise<RunOutput> {
  const start = await inject('POST', `/api/v1/agent/${agentId}/start`, body);
  expect(start.statusCode, start.body).toBe(202);
  expect(start.json()).not.toHaveProperty('inputParameters');
  const runId = start.json().id;
  await waitForRun(ctx.app, org.apiKey, agentId, runId, undefined, 20_000);
  const run = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/status`)).json();
  await inject('GET', `/api/v1/agent/${agentId}/runs`);
  await inject('GET', `/api/v1/agent/${agentId}/runs?pageIndex=1&recordsPerPage=10`);
  const files = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/files`)).json();
  const bodies: RunOutput['bodies'] = {};
  for (const f of files) {
    const dl = await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${f.id}/download`);
    expect(dl.statusCode).toBe(200);
    bodies[f.name] = {
      body: dl.body,
      contentType: String(dl.headers['content-type']),
      disposition: String(dl.headers['content-disposition']),
    };
  }
  const row = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
  return { run, files, bodies, row };
}

function expectNowhere(secret: string, out: RunOutput) {
  for (const text of seen) expect(text).not.toContain(secret);
  for (const [name, f] of Object.entries(out.bodies)) expect(f.body, name).not.toContain(secret);
  expect(out.row.inputParameters ?? '').not.toContain(secret);
  expect(out.row.errorMessage ?? '').not.toContain(secret);
  expect(env.worker.output()).not.toContain(secret);
}

const names = (files: RunOutput['files']) => files.map((f) => [f.name, f.fileType]);

describe('encrypted input parameters in a real Run', () => {
  it('rule 1 and rule 2: `?q` is used but hidden and sealed; a plain `token` is clear text in the log', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, searchDefinition(), 'Secret search');
    const out = await runToEnd(agent.id, { inputParameters: '{"?q":"SECRET-Q-12345","token":"plain-token-value"}' });
    expect(out.run).toMatchObject({
      status: 10,
      recordsExtracted: 3,
      recordsExported: 3,
      errorMessage: null,
      logMode: 'Text',
    });
    // The secret value really reached the site (it was decrypted for the Run).
    expect(site.hits.get('/search?q=SECRET-Q-12345&t=plain-token-value')).toBe(1);

    expect(names(out.files)).toEqual([
      ['data.csv', 'Csv'],
      ['run.log', 'Log'],
    ]);
    expect(out.bodies['data.csv'].body).toBe('n\r\n1\r\n2\r\n3\r\n');
    const log = out.bodies['run.log'].body;
    expect(log).toContain(`Input 1: starting at ${site.url}/search?q=********&t=plain-token-value`);

    // At rest: `?q` sealed with the deployment key, `token` as sent.
    const stored = JSON.parse(out.row.inputParameters!) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual(['?q', 'token']);
    expect(isSealed(stored['?q'])).toBe(true);
    expect(unseal(ctx.config.encryptionKey, stored['?q'])).toBe('SECRET-Q-12345');
    expect(stored.token).toBe('plain-token-value');

    expectNowhere('SECRET-Q-12345', out);
    // Rule 2 overrides the Agent's encrypted default, which therefore was not used either.
    expectNowhere('agent-default-secret', out);
  });

  it('rule 3: an omitted parameter keeps the Agent default and its encryption', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, searchDefinition(), 'Default secret');
    const out = await runToEnd(agent.id, { inputParameters: '{"q":"visible-q"}' });
    expect(out.run).toMatchObject({ status: 10, recordsExported: 3 });
    expect(site.hits.get('/search?q=visible-q&t=agent-default-secret')).toBe(1);
    expect(out.bodies['run.log'].body).toContain(`Input 1: starting at ${site.url}/search?q=visible-q&t=********`);
    expect(out.row.inputParameters).toBe('{"q":"visible-q"}');
    await inject('GET', `/api/v1/agent/${agent.id}`);
    await inject('GET', `/api/v1/agent/${agent.id}/input-parameters`);
    expectNowhere('agent-default-secret', out);
  });

  it('rule 4: with both `q` and `?q` the `?q` entry is used, whatever the order, and the start succeeds', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, searchDefinition(), 'Both forms');
    for (const json of ['{"q":"plain-dup","?q":"SECRET-DUP-777"}', '{"?q":"SECRET-DUP-777","q":"plain-dup"}']) {
      const out = await runToEnd(agent.id, { InputParameters: json });
      expect(out.run).toMatchObject({ status: 10, recordsExported: 3 });
      expect(Object.keys(JSON.parse(out.row.inputParameters!))).toEqual(['?q']);
      expect(out.bodies['run.log'].body).toContain('/search?q=********&t=********');
      expectNowhere('SECRET-DUP-777', out);
      expectNowhere('plain-dup', out);
    }
    expect(site.hits.get('/search?q=SECRET-DUP-777&t=agent-default-secret')).toBe(2);
    expect([...site.hits.keys()].some((k) => k.includes('plain-dup'))).toBe(false);
  });
});

describe('logMode TextAndHtml keeps the HTML of failed pages', () => {
  it('a detail page answering 403: the Run completes with errors and the page is an Html file', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      {
        startUrl: `${site.url}/links?k={{key}}`,
        parameters: [{ name: 'key' }],
        list: { selector: 'div.product', fields: [{ name: 'title', selector: '.title' }] },
        follow: { selector: 'a.title', fields: [{ name: 'sku', selector: 'p.sku' }] },
        export: { format: 'json' },
      },
      'Links',
    );
    const out = await runToEnd(agent.id, { inputParameters: '{"?key":"SECRET-LINK-999"}', logMode: 'textandhtml' });
    expect(out.run).toMatchObject({
      status: 9,
      recordsExtracted: 3,
      recordsExported: 3,
      logMode: 'TextAndHtml',
      errorMessage: null,
    });
    expect(out.row.errorCount).toBe(1);
    expect(names(out.files)).toEqual([
      ['data.json', 'Json'],
      ['run.log', 'Log'],
      ['failed-page-1.html', 'Html'],
    ]);
    expect(out.bodies['data.json'].body).toBe(
      '[\n{"title":"Good link","sku":"SKU-1"},\n{"title":"Blocked link","sku":null},\n{"title":"No link","sku":null}\n]\n',
    );
    const html = out.bodies['failed-page-1.html'];
    expect(html.contentType).toBe('text/html; charset=utf-8');
    expect(html.disposition).toContain('attachment; filename="failed-page-1.html"');
    expect(html.body).toContain('<h1>Access denied</h1>');
    expect(out.files[2].fileSize).toBe(Buffer.byteLength(html.body));
    expect(out.bodies['run.log'].body).toContain(`HTML of failed page ${site.url}/blocked saved as failed-page-1.html`);
    expectNowhere('SECRET-LINK-999', out);
  });

  it('a start page answering 500: the Run fails with a masked errorMessage and the page is an Html file', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      {
        startUrl: `${site.url}/status/500?k={{key}}`,
        parameters: [{ name: 'key' }],
        list: { selector: 'div', fields: [{ name: 'x' }] },
      },
      'Failing',
    );
    const out = await runToEnd(agent.id, { inputParameters: '{"?key":"SECRET-500-abc"}', logMode: 'TextAndHtml' });
    expect(out.run.status).toBe(6);
    expect(out.run.errorMessage).toBe(
      `Start page ${site.url}/status/500?k=******** answered 500 Internal Server Error (after 3 attempts): the site is failing; try again later`,
    );
    expect(site.hits.get('/status/500?k=SECRET-500-abc')).toBe(3);
    expect(names(out.files)).toEqual([
      ['run.log', 'Log'],
      ['failed-page-1.html', 'Html'],
    ]);
    expect(out.bodies['failed-page-1.html'].contentType).toBe('text/html; charset=utf-8');
    expect(out.bodies['failed-page-1.html'].body).toContain('<h1>Status 500</h1>');
    expect(out.bodies['run.log'].body).toMatch(/\[Fatal\] Start page .*\/status\/500\?k=\*{8} answered 500/);
    expectNowhere('SECRET-500-abc', out);
  });

  it('logMode Text keeps no HTML', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/status/404`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Text only',
    );
    const out = await runToEnd(agent.id, {});
    expect(out.run).toMatchObject({ status: 6, logMode: 'Text' });
    expect(names(out.files)).toEqual([['run.log', 'Log']]);
  });
});
