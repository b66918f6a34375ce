// Encrypted parameter defaults of an Agent definition are sealed at rest, masked in every answer,
// and opened only for the Run that uses them.
import { beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));

describe('encrypted defaults in a definition', () => {
  it('are sealed in the database, masked by the API, and used by the Run', async () => {
    const secret = 'seal-me-987';
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
      startUrl: `${site.url}/search?q={{q}}`,
      parameters: [{ name: 'q', encrypted: true, defaultValue: secret }],
      inputs: [{ q: secret }],
      list: { selector: 'div.result', fields: [{ name: 'n', selector: 'span.n' }] },
      export: { format: 'json' },
    });
    const stored = await ctx.db.agentVersion.findFirstOrThrow({ where: { agentId: agent.id } });
    expect(JSON.stringify(stored.definition)).not.toContain(secret);
    for (const url of [
      `/api/v1/agent/${agent.id}`,
      `/api/v1/agent/${agent.id}/definition`,
      `/api/v1/agent/${agent.id}/input-parameters`,
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: auth(org.apiKey) });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(secret);
      expect(res.body).toContain('********');
    }
    // An edit that sends the mask back keeps the secret.
    const def = (
      await ctx.app.inject({ method: 'GET', url: `/api/v1/agent/${agent.id}/definition`, headers: auth(org.apiKey) })
    ).json().definition;
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${agent.id}`,
      headers: auth(org.apiKey),
      payload: { definition: def, comments: 'round trip' },
    });
    expect(put.statusCode, put.body).toBe(200);

    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(org.apiKey),
      payload: {},
    });
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id);
    expect(run.status).toBe(10);
    expect(run.recordsExtracted).toBe(3);
    // The site saw the real value: the Run opened the sealed default.
    expect([...site.hits.keys()].some((k) => k.includes(`q=${secret}`))).toBe(true);
    const files = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/agent/${agent.id}/run/${run.id}/files`,
        headers: auth(org.apiKey),
      })
    ).json();
    for (const f of files) {
      const body = (
        await ctx.app.inject({
          method: 'GET',
          url: `/api/v1/agent/${agent.id}/run/${run.id}/file/${f.id}/download`,
          headers: auth(org.apiKey),
        })
      ).body;
      expect(body).not.toContain(secret);
    }
  });
});
