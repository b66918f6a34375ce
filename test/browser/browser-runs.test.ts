// Browser rendering through the API with a real worker: each render value on a list built by
// script, the start refused while no worker can render, and a stop or a kill mid-render that leaves no Chromium.
import { describe, expect, it } from 'vitest';
import { descendants } from '../../src/engine/browser/pool.js';
import { expectProblem } from '../helpers/assertions.js';
import { chromiumUnder, inject as injectAs, scriptAgent, useBrowserSuite } from '../helpers/browser-suite.js';
import { waitFor } from '../helpers/process.js';
import { startWorker, waitForRun } from '../helpers/runs.js';
import { SCRIPT_ITEMS } from '../helpers/script-site.js';

// No worker at first: the first test starts one once it has seen the start refused.
const suite = useBrowserSuite();
const inject = (method: 'GET' | 'POST', url: string) => injectAs(suite, method, url);
const agentFor = (extra: Record<string, unknown>, path = '/xhr') => scriptAgent(suite, path, extra);

async function runToEnd(agentId: number, started?: number) {
  let runId = started;
  if (runId === undefined) {
    const start = await inject('POST', `/api/v1/agent/${agentId}/start`);
    expect(start.statusCode, start.body).toBe(202);
    runId = start.json().id as number;
  }
  const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agentId, runId, undefined, 90_000);
  const files = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/files`)).json() as Array<{
    id: number;
    name: string;
  }>;
  const log = files.find((f) => f.name === 'run.log');
  const text = log ? (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${log.id}/download`)).body : '';
  return { run, log: text, runId };
}

describe('browser Runs through the API', () => {
  it('refuses to start a browser Agent while no worker has announced Chromium', async () => {
    const agent = await agentFor({ render: 'browser' });
    const res = await inject('POST', `/api/v1/agent/${agent.id}/start`);
    expectProblem(res, 422, 'BROWSER_UNAVAILABLE');
    expect(res.json().detail).toContain('CHROMIUM_PATH');
  });

  it('http extracts nothing from a list loaded by XHR; browser and auto extract every item', async () => {
    suite.worker = await startWorker(suite.ctx.env);
    const browserAgent = await agentFor({ render: 'browser', waitFor: 'li.item' });
    // The worker announces Chromium with its first heartbeat: until then the start is refused.
    const started = await waitFor(async () => {
      const res = await inject('POST', `/api/v1/agent/${browserAgent.id}/start`);
      return res.statusCode === 202 ? (res.json().id as number) : null;
    }, 30_000);

    const http = await runToEnd((await agentFor({})).id);
    expect(http.run.recordsExtracted).toBe(0);
    expect(http.log).toContain(`GET ${suite.site.url}/xhr -> 200`);

    const rendered = await runToEnd(browserAgent.id, started);
    expect(rendered.run).toMatchObject({ status: 10, recordsExtracted: SCRIPT_ITEMS });
    expect(rendered.log).toContain(`RENDER ${suite.site.url}/xhr -> 200`);

    const auto = await runToEnd((await agentFor({ render: 'auto', waitFor: 'li.item' })).id);
    expect(auto.run).toMatchObject({ status: 10, recordsExtracted: SCRIPT_ITEMS });
    expect(auto.log).toContain('rendering it in the browser');
  });

  it('a stop mid-render closes the page: the Run ends Stopped long before the page would time out', async () => {
    const agent = await agentFor({ render: 'browser', waitFor: 'li.item', pageTimeoutSeconds: 120 }, '/never');
    const start = await inject('POST', `/api/v1/agent/${agent.id}/start`);
    expect(start.statusCode, start.body).toBe(202);
    const runId = start.json().id as number;
    const hits = suite.site.hits.get('/never') ?? 0;
    await waitFor(async () => (suite.site.hits.get('/never') ?? 0) > hits || null, 60_000);
    const stop = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`);
    expect(stop.statusCode, stop.body).toBe(200);
    const stoppedAt = Date.now();
    // The page is closed with the Run's browser context as the stop arrives: the Run exports what it
    // has (nothing) and ends Stopped, long before the page's 120 s timeout.
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 30_000);
    expect(run.status).toBe(8);
    expect(run.recordsExtracted).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(60_000);
    const { log } = await runToEnd(agent.id, runId);
    expect(log).toContain(`${suite.site.url}/never`);
  });

  it('a kill mid-render ends the Run and its Chromium processes go away', async () => {
    // The worker's browser pool keeps its browser between Runs (retired after 60 s idle): those processes
    // were there before this Run; none started for it (its page's renderer) may outlive the kill.
    const before = new Set(chromiumUnder(suite.worker!.child.pid!));
    const agent = await agentFor({ render: 'browser', waitFor: 'li.item', pageTimeoutSeconds: 120 }, '/never');
    const start = await inject('POST', `/api/v1/agent/${agent.id}/start`);
    expect(start.statusCode, start.body).toBe(202);
    const runId = start.json().id as number;
    const hits = suite.site.hits.get('/never') ?? 0;
    await waitFor(async () => (suite.site.hits.get('/never') ?? 0) > hits || null, 60_000);
    expect(descendants(suite.worker!.child.pid!).length).toBeGreaterThan(1);
    expect((await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`)).statusCode).toBeLessThan(300);
    await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 30_000);
    expect([8, 9]).toContain(run.status);
    // The worker closes the killed Run's browser context: its page's processes end; none is left behind.
    await waitFor(async () => chromiumUnder(suite.worker!.child.pid!).every((pid) => before.has(pid)) || null, 30_000);
  });
});
