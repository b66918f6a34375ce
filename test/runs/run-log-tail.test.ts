// GET /api/v1/agent/{agentId}/run/{runId}/log: the end of a Run's log while it runs and once it has
// ended, through the API with a real worker; its error answers.
import { describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const h = useRunEnvironment();
const get = (url: string, key: string | null = h.org.apiKey) =>
  h.ctx.app.inject({ method: 'GET', url, headers: key ? auth(key) : {} });
const logOf = (agentId: number, runId: number, query = '') => get(`/api/v1/agent/${agentId}/run/${runId}/log${query}`);

describe('the log of a Run', () => {
  it('is followed while the Run is active, then holds the whole end of the Run', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, {
      startUrl: `${h.site.url}/hang`,
      list: { selector: 'div.product', fields: [{ name: 'title' }] },
    });
    const start = await h.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(h.org.apiKey),
      payload: {},
    });
    expect(start.statusCode, start.body).toBe(202);
    const runId = start.json().id as number;
    // While the page hangs, the Run is active and its first line is already readable (Running is
    // reported within 250 ms of the first page, so the log may have lines while it still says Starting).
    const live = await waitFor(async () => {
      const res = await logOf(agent.id, runId);
      const body = res.json();
      return res.statusCode === 200 && body.totalLines > 0 && body.status === 1 ? body : null;
    }, 30_000);
    expect(live).toMatchObject({ runId, status: 1, active: true });
    expect(live.lines[0]).toMatch(new RegExp(`\\[Info\\] Run ${runId} started`));

    await h.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/run/${runId}/stop`,
      headers: auth(h.org.apiKey),
    });
    await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId, undefined, 60_000);
    const ended = (await logOf(agent.id, runId)).json();
    expect(ended).toMatchObject({ runId, status: 8, active: false });
    expect(ended.totalLines).toBeGreaterThan(live.totalLines);
    expect(ended.lines).toHaveLength(ended.totalLines);
  });

  it('answers the last N lines, the same as the end of the run.log file', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url));
    const runId = (
      await h.ctx.app.inject({
        method: 'POST',
        url: `/api/v1/agent/${agent.id}/start`,
        headers: auth(h.org.apiKey),
        payload: {},
      })
    ).json().id as number;
    expect((await waitForRun(h.ctx.app, h.org.apiKey, agent.id, runId)).status).toBe(10);
    const files = (await get(`/api/v1/agent/${agent.id}/run/${runId}/files`)).json() as Array<{
      id: number;
      name: string;
    }>;
    const logFile = files.find((f) => f.name === 'run.log')!;
    const whole = (await get(`/api/v1/agent/${agent.id}/run/${runId}/file/${logFile.id}/download`)).body;
    const wholeLines = whole.split('\n').filter((l) => l !== '');
    const tail = (await logOf(agent.id, runId, '?lines=2')).json();
    expect(tail).toMatchObject({ runId, status: 10, active: false, totalLines: wholeLines.length });
    expect(tail.lines).toEqual(wholeLines.slice(-2));
  });

  it('refuses a bad line count (400), an unknown Run (404) and a request without credentials (401)', async () => {
    const agent = await createAgent(h.ctx.app, h.org.apiKey, h.org.spaceId, catalogDefinition(h.site.url));
    expectBadRequest(await logOf(agent.id, 1, '?lines=0'), 'VALIDATION_FAILED');
    expectBadRequest(await logOf(agent.id, 1, '?lines=1001'), 'VALIDATION_FAILED');
    expectProblem(await logOf(agent.id, 999_999), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/agent/${agent.id}/run/1/log`, null), 401, 'UNAUTHENTICATED');
  });
});
