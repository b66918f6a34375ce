// A browser Agent behind a login through the API with a real worker: the run process asks the worker's
// browser pool to fill the login form and render the pages (the request and the Run's cookies travel
// with each page), and the password, an encrypted parameter, is in no Run file and no API answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, waitForRun } from '../helpers/runs.js';
import { startSessionSite, SITE_PASSWORD, SITE_USER, type SessionSite } from '../helpers/session-site.js';
import { auth } from '../helpers/app.js';

const suite = useBrowserSuite({});
let site: SessionSite;
beforeAll(async () => {
  site = await startSessionSite();
});
afterAll(async () => site?.close());

const seen: string[] = [];
async function get(url: string) {
  const res = await suite.ctx.app.inject({ method: 'GET', url, headers: auth(suite.org.apiKey) });
  seen.push(res.body);
  return res;
}

describe('a browser Agent behind a login', () => {
  it('logs in in Chromium, crawls with the session; the password is nowhere', async () => {
    const agent = await createAgent(suite.ctx.app, suite.org.apiKey, suite.org.spaceId, {
      startUrl: `${site.url}/list`,
      render: 'browser',
      parameters: [
        { name: 'user', defaultValue: SITE_USER },
        { name: 'password', defaultValue: SITE_PASSWORD, encrypted: true },
      ],
      login: {
        url: `${site.url}/login`,
        fields: { username: '{{user}}', password: '{{password}}' },
        successSelector: 'a.logout',
      },
      list: { selector: 'div.item', fields: [{ name: 'name', selector: 'span.name' }] },
      next: { selector: 'a.next' },
      export: { format: 'json' },
    });
    // The worker announces Chromium with its first heartbeat: until then the start is refused.
    const runId = await waitFor(async () => {
      const res = await suite.ctx.app.inject({
        method: 'POST',
        url: `/api/v1/agent/${agent.id}/start`,
        headers: auth(suite.org.apiKey),
        payload: {},
      });
      return res.statusCode === 202 ? (res.json().id as number) : null;
    }, 30_000);
    await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 90_000);
    const run = (await get(`/api/v1/agent/${agent.id}/run/${runId}/status`)).json();
    expect(run).toMatchObject({ status: 10, recordsExtracted: 6 });
    const files = (await get(`/api/v1/agent/${agent.id}/run/${runId}/files`)).json() as Array<{
      id: number;
      name: string;
    }>;
    const bodies: Record<string, string> = {};
    for (const f of files)
      bodies[f.name] = (await get(`/api/v1/agent/${agent.id}/run/${runId}/file/${f.id}/download`)).body;
    expect(JSON.parse(bodies['data.json'])).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ name: `Item ${n}` })));
    expect(bodies['run.log']).toContain(`Login: RENDER ${site.url}/login`);
    await get(`/api/v1/agent/${agent.id}/run/${runId}/log`);
    await get(`/api/v1/analytics/agents/${agent.id}/runs/${runId}/diagnostics`);
    for (const text of seen) expect(text).not.toContain(SITE_PASSWORD);
    expect(suite.worker!.output()).not.toContain(SITE_PASSWORD);
    const post = site.requests.find((r) => r.method === 'POST' && r.path === '/session')!;
    expect(new URLSearchParams(post.body).get('password')).toBe(SITE_PASSWORD);
  });
});
