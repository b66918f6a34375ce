// Requests and sessions rendered in Chromium: the login form filled and submitted in the browser (its CSRF
// token kept by the page itself), the session cookie shared with later pages through the Run's jar, a
// POST search form, a header-gated page, initial cookies, userAgent; and a render "auto" Run that logs in
// over HTTP and hands the session to the browser.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeSharedBrowserPool } from '../../src/engine/browser/index.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction } from '../../src/engine/index.js';
import { startSessionSite, SITE_KEY, SITE_PASSWORD, SITE_USER, type SessionSite } from '../helpers/session-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browser = { executablePath: CHROMIUM, maxPages: 4, maxRssMb: 4096 };
let site: SessionSite;

beforeAll(async () => {
  site = await startSessionSite();
});
beforeEach(() => {
  site.requests.length = 0;
});
afterAll(async () => {
  await closeSharedBrowserPool();
  await site?.close();
});

async function run(definition: AgentDefinition, inputRows: Array<Record<string, string>> = []) {
  const logs: string[] = [];
  const result = await runExtraction({
    definition,
    inputRows,
    allowPrivateTargets: true,
    browser,
    maxRetries: 0,
    log: (level, message) => logs.push(`${level} ${message}`),
  });
  return { ...result, logs, records: result.sets.flatMap((s) => s.records) };
}

const loginDefinition = (password: string, render: 'browser' | 'auto' = 'browser'): AgentDefinition => ({
  startUrl: `${site.url}/list`,
  render,
  parameters: [
    { name: 'user', defaultValue: SITE_USER },
    { name: 'password', defaultValue: password, encrypted: true },
  ],
  userAgent: 'BrowserBot/3.0',
  login: {
    url: `${site.url}/login`,
    fields: { username: '{{user}}', password: '{{password}}' },
    submit: 'form#login button',
    successSelector: 'a.logout',
    failureText: 'Invalid password',
  },
  list: { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] },
  next: { selector: 'a.next' },
  follow: { selector: 'a', fields: [{ name: 'title', selector: 'h1' }] },
});

describe('login in Chromium', () => {
  it('fills and submits the form; list and detail pages carry the session', async () => {
    const out = await run(loginDefinition(SITE_PASSWORD));
    expect(out.fatalError).toBeUndefined();
    expect(out.records).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ name: `Item ${n}`, title: `Item ${n}` })));
    const post = site.requests.find((r) => r.method === 'POST' && r.path === '/session')!;
    expect(new URLSearchParams(post.body).get('csrf')).toMatch(/^[0-9a-f]{16}$/);
    for (const r of site.requests.filter((x) => /^\/(list|item)/.test(x.path))) {
      expect(r.headers.cookie).toMatch(/sid=/);
      expect(r.headers['user-agent']).toBe('BrowserBot/3.0');
    }
    expect(out.logs.join('\n')).not.toContain(SITE_PASSWORD);
    // The login page rendered and its form submitted in it: two requests, apart from the pages.
    expect(out.evidence.loginRequests).toBe(2);
    expect(JSON.stringify(out.evidence)).not.toContain(SITE_PASSWORD);
  });

  it('a wrong password fails with LOGIN_FAILED', async () => {
    const out = await run(loginDefinition('nope-nope'));
    expect(out.fatalError?.code).toBe('LOGIN_FAILED');
    expect(String(out.fatalError?.params.reason)).toContain('a.logout');
    expect(site.requests.some((r) => r.path.startsWith('/list'))).toBe(false);
  });

  it('render auto: logs in over HTTP and crawls with the session', async () => {
    const out = await run(loginDefinition(SITE_PASSWORD, 'auto'));
    expect(out.fatalError).toBeUndefined();
    expect(out.records).toHaveLength(6);
  });
});

describe('requests in Chromium', () => {
  it('a POST search form, a header-gated page and initial cookies', async () => {
    const search = await run(
      {
        startUrl: `${site.url}/search`,
        render: 'browser',
        parameters: [{ name: 'q' }],
        request: { method: 'POST', body: { form: { q: '{{q}}' } } },
        list: { selector: 'div.result', fields: [{ name: 'q', selector: 'span.q' }] },
      },
      [{ q: 'green tea' }],
    );
    expect(search.records.map((r) => r.q)).toEqual(['green tea 1', 'green tea 2', 'green tea 3']);
    expect(site.requests.find((r) => r.method === 'POST')?.body).toBe('q=green+tea');

    const list = { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] };
    const gated = await run({
      startUrl: `${site.url}/gated`,
      render: 'browser',
      request: { headers: { 'X-Api-Key': SITE_KEY } },
      list,
    });
    expect(gated.records).toEqual([{ name: 'Gated' }]);

    const consent = await run({
      startUrl: `${site.url}/consent`,
      render: 'browser',
      request: { cookies: [{ name: 'consent', value: 'yes' }] },
      list,
    });
    expect(consent.records).toEqual([{ name: 'Consented' }]);
  });
});
