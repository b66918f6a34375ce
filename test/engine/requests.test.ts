// Requests and sessions in the engine, over HTTP, against a site behind a login: the login form with its
// CSRF token, the Run's cookie jar across pages and inputs, POST forms and JSON, headers, initial cookies,
// userAgent, and a login redirect to a private address refused by the SSRF guard.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/address-class.js';
import { runExtraction } from '../../src/engine/crawler.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { validateDefinition } from '../../src/engine/definition-validate.js';
import { HttpClient } from '../../src/engine/http.js';
import { RunCookieJar } from '../../src/engine/cookies.js';
import { logIn } from '../../src/engine/login.js';
import { startSessionSite, SITE_KEY, SITE_PASSWORD, SITE_USER, type SessionSite } from '../helpers/session-site.js';

let site: SessionSite;
let away: SessionSite;
beforeAll(async () => {
  [site, away] = await Promise.all([startSessionSite(), startSessionSite()]);
});
beforeEach(() => {
  site.requests.length = 0;
  away.requests.length = 0;
});
afterAll(async () => Promise.all([site?.close(), away?.close()]));

const loginDefinition = (over: Partial<AgentDefinition> = {}): AgentDefinition => ({
  startUrl: `${site.url}/list`,
  parameters: [
    { name: 'user', defaultValue: SITE_USER },
    { name: 'password', defaultValue: SITE_PASSWORD, encrypted: true },
  ],
  login: {
    url: `${site.url}/login`,
    fields: { username: '{{user}}', password: '{{password}}' },
    successSelector: 'a.logout',
    failureText: 'Invalid password',
  },
  list: { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] },
  next: { selector: 'a.next' },
  follow: { selector: 'a', fields: [{ name: 'title', selector: 'h1' }] },
  ...over,
});

async function run(definition: AgentDefinition, inputRows: Array<Record<string, string>> = []) {
  const lines: string[] = [];
  const result = await runExtraction({
    definition,
    inputRows,
    allowPrivateTargets: true,
    maxRetries: 0,
    log: (level, message) => lines.push(`[${level}] ${message}`),
  });
  return { result, lines, records: result.sets.flatMap((s) => s.records) };
}

describe('login over HTTP', () => {
  it('fills the form with its CSRF token, keeps the session cookie for list and detail pages', async () => {
    const { result, records, lines } = await run(loginDefinition());
    expect(result.fatalError).toBeUndefined();
    expect(records).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ name: `Item ${n}`, title: `Item ${n}` })));
    const post = site.requests.find((r) => r.method === 'POST' && r.path === '/session')!;
    const form = new URLSearchParams(post.body);
    expect(form.get('csrf')).toMatch(/^[0-9a-f]{16}$/);
    expect(form.get('username')).toBe(SITE_USER);
    expect(post.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(post.headers.cookie).toMatch(/^pre=/);
    // The redirect after the login went to /account with the new session cookie.
    const account = site.requests.find((r) => r.path === '/account')!;
    expect(account.method).toBe('GET');
    expect(account.headers.cookie).toMatch(/sid=/);
    for (const r of site.requests.filter((x) => x.path.startsWith('/item/') || x.path.startsWith('/list')))
      expect(r.headers.cookie).toMatch(/sid=/);
    expect(lines.join('\n')).not.toContain(SITE_PASSWORD);
    expect(lines.join('\n')).not.toContain(encodeURIComponent(SITE_PASSWORD));
  });

  it('a wrong password fails the Run with LOGIN_FAILED and no list page is asked for', async () => {
    const def = loginDefinition();
    def.parameters![1].defaultValue = 'wrong password';
    const { result, lines } = await run(def);
    expect(result.fatalError).toEqual({
      code: 'LOGIN_FAILED',
      params: { reason: expect.stringContaining("successSelector 'a.logout' matched nothing") },
    });
    expect(lines.some((l) => l.startsWith('[Fatal] login failed: '))).toBe(true);
    expect(site.requests.some((r) => r.path.startsWith('/list'))).toBe(false);
  });

  it('a form whose enctype is multipart/form-data is sent multipart; the evidence counts the login requests', async () => {
    const def = loginDefinition({ follow: undefined, next: undefined });
    def.login = { ...def.login!, url: `${site.url}/login-multipart` };
    const { result, records } = await run(def);
    expect(result.fatalError).toBeUndefined();
    expect(records).toHaveLength(3);
    const post = site.requests.find((r) => r.path === '/session-multipart')!;
    expect(post.headers['content-type']).toMatch(/^multipart\/form-data; boundary=-+CloudExtractionService[0-9a-f]+$/);
    expect(post.body).toContain(`Content-Disposition: form-data; name="password"\r\n\r\n${SITE_PASSWORD}\r\n`);
    expect(post.body).toMatch(/name="csrf"\r\n\r\n[0-9a-f]{16}\r\n/);
    // The login page and the form's submission (its redirect to /account included), apart from the pages.
    expect(result.evidence.loginRequests).toBe(2);
    expect(result.evidence.requests).toBe(1);
    expect(JSON.stringify(result.evidence)).not.toContain(SITE_PASSWORD);
  });

  it('without success checks: logged in when the login form is gone; the submit selector picks the form', async () => {
    const def = loginDefinition({ follow: undefined, next: undefined });
    def.login = { url: `${site.url}/login`, fields: def.login!.fields, submit: 'form#login button' };
    const { result, records } = await run(def);
    expect(result.fatalError).toBeUndefined();
    expect(records).toHaveLength(3);
  });

  it('a login page without the form fails with its reason', async () => {
    const def = loginDefinition();
    def.login = { url: `${site.url}/gated-nothing`, fields: { username: 'x' } };
    const { result } = await run(def);
    expect(result.fatalError?.code).toBe('LOGIN_FAILED');
    expect(String(result.fatalError?.params.reason)).toContain('the login page');
  });
});

describe('sessions', () => {
  it('a Run resumed from a checkpoint logs in again (the jar is not in the checkpoint)', async () => {
    const lines: string[] = [];
    const result = await runExtraction({
      definition: loginDefinition({ follow: undefined }),
      inputRows: [],
      allowPrivateTargets: true,
      maxRetries: 0,
      log: (level, message) => lines.push(`[${level}] ${message}`),
      resume: {
        version: 1,
        sets: [
          { inputsDone: 0, current: { url: `${site.url}/list?page=2`, pageNumber: 2, visited: [`${site.url}/list`] } },
        ],
        stats: { pageCount: 1, dataCount: 3, exportCount: 0, errorCount: 0, inputCount: 1, traffic: 0 },
        startFailures: [null],
      },
    });
    expect(result.fatalError).toBeUndefined();
    expect(result.sets[0].records).toEqual([4, 5, 6].map((n) => ({ name: `Item ${n}` })));
    expect(site.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /login',
      'POST /session',
      'GET /account',
      'GET /list?page=2',
    ]);
  });

  it('follow.request headers go with detail pages', async () => {
    const def = loginDefinition({ next: undefined });
    def.follow = { ...def.follow!, request: { headers: { 'X-Detail': 'yes' } } };
    const { records } = await run(def);
    expect(records).toHaveLength(3);
    for (const r of site.requests) expect(r.headers['x-detail']).toBe(r.path.startsWith('/item/') ? 'yes' : undefined);
  });
});

describe('requests', () => {
  const searchDef = (body: NonNullable<AgentDefinition['request']>['body'], path = '/search'): AgentDefinition => ({
    startUrl: `${site.url}${path}`,
    parameters: [{ name: 'q' }],
    request: { method: 'POST', body },
    list: {
      selector: 'div.result',
      fields: [
        { name: 'q', selector: 'span.q' },
        { name: 'type', selector: 'span.type' },
      ],
    },
  });

  it('a POST search form, one per input', async () => {
    const { records } = await run(searchDef({ form: { q: '{{q}}' } }), [{ q: 'red shoes' }, { q: 'a&b' }]);
    expect(records.map((r) => r.q)).toEqual(['red shoes 1', 'red shoes 2', 'red shoes 3', 'a&b 1', 'a&b 2', 'a&b 3']);
    expect(records[0].type).toBe('application/x-www-form-urlencoded');
    expect(site.requests.map((r) => r.body)).toEqual(['q=red+shoes', 'q=a%26b']);
  });

  it('a JSON POST', async () => {
    const { records } = await run(searchDef({ json: { q: '{{q}}', n: 2 } }, '/api/search'), [{ q: 'tea' }]);
    expect(records.map((r) => r.q)).toEqual(['tea 1', 'tea 2', 'tea 3']);
    expect(records[0].type).toBe('application/json');
    expect(site.requests[0].body).toBe('{"q":"tea","n":2}');
  });

  it('headers, initial cookies and userAgent', async () => {
    const base = {
      list: { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] },
      parameters: [{ name: 'key', defaultValue: SITE_KEY, encrypted: true }],
    };
    const gated = await run({
      ...base,
      startUrl: `${site.url}/gated`,
      request: { headers: { 'X-Api-Key': '{{key}}' } },
    });
    expect(gated.records).toEqual([{ name: 'Gated' }]);
    const refused = await run({ ...base, startUrl: `${site.url}/gated` });
    expect(refused.result.fatalError?.code).toBe('BLOCKED');
    const consent = await run({
      ...base,
      startUrl: `${site.url}/consent`,
      userAgent: 'TestBot/1.0',
      request: { cookies: [{ name: 'consent', value: 'yes' }] },
    });
    expect(consent.records).toEqual([{ name: 'Consented' }]);
    expect(site.requests.at(-1)?.headers['user-agent']).toBe('TestBot/1.0');
    expect(site.requests[0].headers['user-agent']).toMatch(/CloudExtractionService/);
  });
});

describe('the SSRF guard on login hops', () => {
  it('a login answered with a redirect to a private address is refused before the hop', async () => {
    const client = new HttpClient({
      maxConcurrency: 2,
      maxRetries: 0,
      signal: new AbortController().signal,
      allowPrivateTargets: false,
      // The login site counts as public; every other loopback port is private.
      isRefusedAddress: (address, port) => port !== site.port && isPrivateAddress(address),
      cookies: new RunCookieJar(),
    });
    try {
      const failure = await logIn({
        login: {
          url: `${site.url}/login-away?to=${encodeURIComponent(`${away.url}/account`)}`,
          fields: { username: SITE_USER, password: SITE_PASSWORD },
        },
        values: {},
        source: client,
        browser: false,
        headers: {},
        canStart: () => true,
        log: () => {},
      });
      expect(failure?.code).toBe('LOGIN_FAILED');
      expect(String(failure?.params.reason)).toContain(`refused to fetch ${away.url}/account`);
      expect(away.requests).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('validation', () => {
  const base: AgentDefinition = { startUrl: 'https://example.com/', list: { selector: 'li', fields: [{ name: 'a' }] } };
  it('names each problem with its place', () => {
    const { problems } = validateDefinition({
      ...base,
      request: { headers: { Host: 'x', 'Content-Length': '3', 'X-Ok': '{{nope}}' }, body: 'x' },
      follow: { selector: 'a', fields: [{ name: 'b' }], request: { headers: { Connection: 'close' } } },
      login: { url: 'ftp://x/', fields: {}, submit: 'a[' },
      userAgent: 'a\nb',
    });
    expect(problems).toEqual([
      'request.headers.Host: the Host header is set by the engine (framing or hop-by-hop) and cannot be given',
      'request.headers.Content-Length: the Content-Length header is set by the engine (framing or hop-by-hop) and cannot be given',
      "request.headers.X-Ok: placeholder '{{nope}}' names no declared parameter",
      "request.body: a body is sent only with method 'POST'",
      'follow.request.headers.Connection: the Connection header is set by the engine (framing or hop-by-hop) and cannot be given',
      "login.url: 'ftp://x/' is not an http(s) URL",
      'login.fields: name at least one form field to fill',
      expect.stringContaining("login.submit: invalid CSS selector 'a['"),
      'userAgent: cannot hold line breaks or control characters',
    ]);
  });
});
