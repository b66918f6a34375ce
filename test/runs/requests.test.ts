// Agents with requests, cookies and a login, through the API with a real worker: a site whose list needs
// the session cookie of a login form with a CSRF token, the password an encrypted parameter that appears
// in no Run file and no API answer; a wrong password fails the Run with LOGIN_FAILED; the save-time 400s
// of bad request, login and userAgent values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, errorCodeOf, useRunEnvironment, waitForRun } from '../helpers/runs.js';
import { startSessionSite, SITE_KEY, SITE_PASSWORD, SITE_USER, type SessionSite } from '../helpers/session-site.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let site: SessionSite;
beforeAll(async () => {
  ({ ctx, org } = env);
  site = await startSessionSite();
});
afterAll(async () => site?.close());

/** Every answer the tests read, to search for the secret. */
const seen: string[] = [];
async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await ctx.app.inject({
    method,
    url,
    headers: { ...auth(org.apiKey), 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  seen.push(res.body);
  return res;
}

const definition = (password: string) => ({
  startUrl: `${site.url}/list`,
  parameters: [
    { name: 'user', defaultValue: SITE_USER },
    { name: 'password', defaultValue: password, encrypted: true },
    { name: 'key', defaultValue: SITE_KEY, encrypted: true },
  ],
  request: { headers: { 'X-Api-Key': '{{key}}' }, cookies: [{ name: 'consent', value: 'yes' }] },
  userAgent: 'AcmeBot/2.0',
  login: {
    url: `${site.url}/login`,
    fields: { username: '{{user}}', password: '{{password}}' },
    successSelector: 'a.logout',
  },
  list: { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] },
  next: { selector: 'a.next' },
  follow: { selector: 'a', fields: [{ name: 'title', selector: 'h1' }] },
  export: { format: 'json' as const },
});

/** Starts the Agent, waits for the Run's end and reads the Run, its diagnostics, its log and its files. */
async function runToEnd(agentId: number) {
  const start = await call('POST', `/api/v1/agent/${agentId}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const runId = start.json().id as number;
  await waitForRun(ctx.app, org.apiKey, agentId, runId, undefined, 30_000);
  const run = (await call('GET', `/api/v1/agent/${agentId}/run/${runId}/status`)).json();
  const diagnostics = (await call('GET', `/api/v1/analytics/agents/${agentId}/runs/${runId}/diagnostics`)).json();
  const log = (await call('GET', `/api/v1/agent/${agentId}/run/${runId}/log`)).body;
  const files = (await call('GET', `/api/v1/agent/${agentId}/run/${runId}/files`)).json() as Array<{
    id: number;
    name: string;
  }>;
  const bodies: Record<string, string> = {};
  for (const f of files)
    bodies[f.name] = (await call('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${f.id}/download`)).body;
  return { runId, run, diagnostics, log, bodies };
}

function expectNowhere(secret: string) {
  for (const text of seen) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(encodeURIComponent(secret));
    expect(text).not.toContain(new URLSearchParams({ p: secret }).toString().slice(2));
  }
  expect(env.worker.output()).not.toContain(secret);
}

describe('a site behind a login', () => {
  it('logs in with the CSRF token, keeps the session for list and detail pages; the password is nowhere', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition(SITE_PASSWORD), 'Behind login');
    const out = await runToEnd(agent.id);
    expect(out.run).toMatchObject({ status: 10, recordsExtracted: 6, recordsExported: 6, errorMessage: null });
    expect(JSON.parse(out.bodies['data.json'])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => ({ name: `Item ${n}`, title: `Item ${n}` })),
    );
    // What the site saw: the form's token, the session cookie on every page, the headers and the UA.
    const post = site.requests.find((r) => r.method === 'POST' && r.path === '/session')!;
    expect(new URLSearchParams(post.body).get('csrf')).toMatch(/^[0-9a-f]{16}$/);
    for (const r of site.requests.filter((x) => /^\/(list|item)/.test(x.path))) {
      expect(r.headers.cookie).toMatch(/sid=/);
      expect(r.headers.cookie).toContain('consent=yes');
      // The top-level request's headers go with list pages; detail pages take follow.request's.
      expect(r.headers['x-api-key']).toBe(r.path.startsWith('/list') ? SITE_KEY : undefined);
      expect(r.headers['user-agent']).toBe('AcmeBot/2.0');
    }
    expect(out.bodies['run.log']).toContain(`Login: GET ${site.url}/login`);
    expectNowhere(SITE_PASSWORD);
    expectNowhere(SITE_KEY);
  });

  it('a wrong password: Failure with LOGIN_FAILED, the message says why, the password is nowhere', async () => {
    const wrong = 'wrong-secret-password-42';
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition(wrong), 'Wrong password');
    const out = await runToEnd(agent.id);
    expect(out.run.status).toBe(6);
    expect(out.run.errorMessage).toMatch(/^login failed: successSelector 'a\.logout' matched nothing/);
    expect(out.diagnostics.errorCode).toBe('LOGIN_FAILED');
    expect(await errorCodeOf(ctx.app, org.apiKey, agent.id, out.runId)).toBe('LOGIN_FAILED');
    expect(out.log).toContain('login failed: ');
    expectNowhere(wrong);
  });
});

describe('save-time checks', () => {
  const base = {
    startUrl: 'https://example.com/',
    list: { selector: 'li', fields: [{ name: 'a' }] },
  };
  async function refused(over: Record<string, unknown>) {
    const res = await call('POST', '/api/v1/agent', {
      name: 'Bad',
      spaceId: org.spaceId,
      definition: { ...base, ...over },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      statusDescription: 'Bad Request',
      message: expect.any(String),
      severity: 0,
      errorCode: 'VALIDATION_FAILED',
    });
    return res.json().message as string;
  }

  it('refuses framing and hop-by-hop headers, naming the field', async () => {
    expect(await refused({ request: { headers: { Host: 'evil.example' } } })).toContain(
      'definition.request.headers.Host: the Host header is set by the engine',
    );
    expect(await refused({ request: { headers: { 'transfer-encoding': 'chunked' } } })).toContain(
      'definition.request.headers.transfer-encoding',
    );
    const follow = { selector: 'a', fields: [{ name: 'b' }], request: { headers: { Connection: 'close' } } };
    expect(await refused({ follow })).toContain('definition.follow.request.headers.Connection');
  });

  it('refuses a bad method, body, cookie, login and userAgent', async () => {
    expect(await refused({ request: { method: 'PUT' } })).toContain('definition.request.method');
    expect(await refused({ request: { body: 'x' } })).toContain(
      "definition.request.body: a body is sent only with method 'POST'",
    );
    expect(await refused({ request: { cookies: [{ name: 'a b', value: 'v' }] } })).toContain(
      "definition.request.cookies[0].name: 'a b' is not a valid cookie name",
    );
    expect(await refused({ login: { url: 'https://example.com/login', fields: { u: '{{nobody}}' } } })).toContain(
      "definition.login.fields.u: placeholder '{{nobody}}' names no declared parameter",
    );
    expect(await refused({ login: { fields: { u: 'x' } } })).toContain('definition.login.url');
    expect(await refused({ userAgent: '' })).toContain('definition.userAgent');
    expect(await refused({ userAgent: 'a\r\nX-Evil: 1' })).toContain('definition.userAgent: cannot hold line breaks');
  });
});
