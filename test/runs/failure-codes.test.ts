// One Run per failure code, met as a user meets it: an Agent started through the HTTP API, executed by a
// real worker against the fixture site, and the code read from the Run's diagnostics (and never from its
// message). Codes that need another deployment (a private target refused, a full volume) are tested
// where that deployment is (engine and reliability suites).
import { beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, errorCodeOf, useRunEnvironment, waitForRun } from '../helpers/runs.js';

// A small page CPU budget and the standard parser, so that the deep page below goes over it.
const env = useRunEnvironment({ env: { ENGINE_PAGE_CPU_SECONDS: '1', ENGINE_FAST_PARSE: 'false' } });
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, org } = env));

const list = { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] };

/** Starts an Agent of `definition` (with `start` options) and waits for its Run's end. */
async function runOf(definition: Record<string, unknown>, start: Record<string, unknown> = {}) {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, { list, ...definition });
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agent.id}/start`,
    headers: auth(org.apiKey),
    payload: start,
  });
  expect(res.statusCode, res.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, res.json().id, undefined, 60_000);
  return { run, errorCode: await errorCodeOf(ctx.app, org.apiKey, agent.id, run.id) };
}

describe('Run failure codes', () => {
  it('START_PAGE_HTTP_ERROR: the start page answers 500', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/status/500` });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('START_PAGE_HTTP_ERROR');
  });

  it('BLOCKED: the start page answers 403', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/blocked` });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('BLOCKED');
  });

  it('START_PAGE_UNREACHABLE: nothing listens at the start URL', async () => {
    const { run, errorCode } = await runOf({ startUrl: 'http://127.0.0.1:1/' });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('START_PAGE_UNREACHABLE');
  });

  it('LIST_MATCHED_NOTHING: a redesigned page answers 200 and the list matches nothing (Completed)', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/empty-list` });
    expect(run.status).toBe(9);
    expect(errorCode).toBe('LIST_MATCHED_NOTHING');
  });

  it('PAGE_CPU_BUDGET: the start page takes longer than the page budget to process', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/deep?levels=20000` });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('PAGE_CPU_BUDGET');
  });

  it('RESPONSE_TOO_LARGE: the start page is larger than the engine accepts', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/huge` });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('RESPONSE_TOO_LARGE');
  });

  it('RUN_TIMEOUT: the Run reaches its timeoutSeconds', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/hang`, timeoutSeconds: 1 });
    expect(run.status).toBe(6);
    expect(errorCode).toBe('RUN_TIMEOUT');
  });

  it('PROXY_FAILED: the proxy of the Run’s pool cannot be reached', async () => {
    const pool = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(org.apiKey),
      payload: { name: 'Down', proxies: ['http://127.0.0.1:1'] },
    });
    expect(pool.statusCode, pool.body).toBe(201);
    const { run, errorCode } = await runOf(
      { startUrl: `${env.site.url}/catalog?page=1` },
      { proxyPoolId: pool.json().id },
    );
    expect(run.status).toBe(6);
    expect(errorCode).toBe('PROXY_FAILED');
  });

  it('REQUIRED_FIELDS_MISSING: every record misses a required field (Completed)', async () => {
    const { run, errorCode } = await runOf({
      startUrl: `${env.site.url}/catalog?page=1`,
      list: { selector: 'div.product', fields: [{ name: 'gone', selector: 'span.nothing', required: true }] },
    });
    expect(run.status).toBe(9);
    expect(errorCode).toBe('REQUIRED_FIELDS_MISSING');
  });

  it('FIELDS_EMPTY: every field of every record is empty (Completed)', async () => {
    const { run, errorCode } = await runOf({
      startUrl: `${env.site.url}/catalog?page=1`,
      list: { selector: 'div.product', fields: [{ name: 'gone', selector: 'span.nothing' }] },
    });
    expect(run.status).toBe(9);
    expect(errorCode).toBe('FIELDS_EMPTY');
  });

  it('START_URL_INVALID: the start URL is not http(s) once its parameter is substituted', async () => {
    const { run, errorCode } = await runOf(
      { startUrl: '{{target}}', parameters: [{ name: 'target', defaultValue: `${env.site.url}/catalog` }] },
      { inputParameters: JSON.stringify({ target: 'ftp://example.com/' }) },
    );
    expect(run.status).toBe(6);
    expect(errorCode).toBe('START_URL_INVALID');
  });

  it('a Run that ends normally has no code', async () => {
    const { run, errorCode } = await runOf({ startUrl: `${env.site.url}/catalog?page=1` });
    expect(run.status).toBe(10);
    expect(errorCode).toBeNull();
  });
});
