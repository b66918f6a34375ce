// GET /api/v1/agent/{agentId}/run/{runId}/status?waitForFinish=<seconds>: the long-poll answers once the
// Run is terminal or the time is up, through the API with a real worker; a bad value is refused.
import { describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import { catalogDefinition, createAgent, TERMINAL, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const h = useRunEnvironment();
const get = (url: string) => h.ctx.app.inject({ method: 'GET', url, headers: auth(h.org.apiKey) });
const start = async (agentId: number) => {
  const res = await h.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agentId}/start`,
    headers: auth(h.org.apiKey),
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().id as number;
};

describe('waiting for a Run to finish', () => {
  it('answers the terminal Run in one request when it ends within the wait', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url));
    const runId = await start(agent.id);
    const res = await get(`/api/v1/agent/${agent.id}/run/${runId}/status?waitForFinish=60`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: runId, status: 10 });
  });

  it('answers the Run as it is when the time is up, still active', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, {
      startUrl: `${h.site.url}/hang`,
      list: { selector: 'div.product', fields: [{ name: 'title' }] },
    });
    const runId = await start(agent.id);
    const began = Date.now();
    const res = await get(`/api/v1/agent/${agent.id}/run/${runId}/status?waitForFinish=2`);
    const waited = Date.now() - began;
    expect(res.statusCode, res.body).toBe(200);
    expect(TERMINAL).not.toContain(res.json().status);
    expect(waited).toBeGreaterThanOrEqual(1900);
    expect(waited).toBeLessThan(15_000);
    await h.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/run/${runId}/kill`,
      headers: auth(h.org.apiKey),
    });
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, undefined, 60_000);
    // A terminal Run is answered at once, whatever the wait asked.
    const again = Date.now();
    const ended = await get(`/api/v1/agent/${agent.id}/run/${runId}/status?waitForFinish=60`);
    expect(TERMINAL).toContain(ended.json().status);
    expect(Date.now() - again).toBeLessThan(5_000);
  });

  it('refuses a wait that is not a whole number of seconds from 0 to 60 (400)', async () => {
    // The query is validated before the Run is looked up: no Run is needed.
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url));
    const runId = 1;
    for (const bad of ['61', '-1', 'soon', '1.5'])
      expectBadRequest(
        await get(`/api/v1/agent/${agent.id}/run/${runId}/status?waitForFinish=${bad}`),
        'VALIDATION_FAILED',
      );
  });
});
