// Proxy pools: admin endpoints (URLs sealed, never returned) and a Run whose requests go through
// the pool's proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, startWorker, waitForRun } from '../helpers/runs.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';

let ctx: TestContext;
let site: FixtureSite;
let worker: Awaited<ReturnType<typeof startWorker>>;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let proxy: ForwardProxy;
let proxyUrl: string;

beforeAll(async () => {
  ctx = await createTestContext();
  site = await startFixtureSite();
  worker = await startWorker(ctx.env);
  org = await ctx.bootstrap();
  proxy = await startForwardProxy();
  proxyUrl = `http://user:proxy-pass-777@127.0.0.1:${proxy.port}`;
});
afterAll(async () => {
  await worker?.stop();
  await site?.close();
  await proxy?.close();
  await ctx?.close();
});

describe('proxy pools', () => {
  it('creates and lists pools without ever returning the proxy URLs', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(org.apiKey),
      payload: { name: 'Pool A', proxies: [proxyUrl] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Pool A', proxyCount: 1, organizationId: org.organizationId });
    expect(res.body).not.toContain('proxy-pass-777');
    const list = await ctx.app.inject({ method: 'GET', url: '/api/v1/proxy-pools', headers: auth(org.apiKey) });
    expect(list.json()).toHaveLength(1);
    expect(list.body).not.toContain('127.0.0.1');
    const row = await ctx.db.proxyPool.findFirstOrThrow({ where: { organizationId: org.organizationId } });
    expect(row.proxies).not.toContain('proxy-pass-777');
  });

  it("validates input, refuses members, and hides other organizations' pools", async () => {
    expectBadRequest(
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(org.apiKey),
        payload: { name: 'Bad', proxies: ['socks://x'] },
      }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(org.apiKey),
        payload: { name: 'Empty', proxies: [] },
      }),
      'VALIDATION_FAILED',
    );
    expectProblem(
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(org.apiKey),
        payload: { name: 'Pool A', proxies: [proxyUrl] },
      }),
      409,
      'CONFLICT',
    );
    const member = (
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: auth(org.apiKey),
        payload: { email: 'pm@example.com' },
      })
    ).json();
    const key = (
      await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${member.id}/api-keys`,
        headers: auth(org.apiKey),
        payload: {},
      })
    ).json().key;
    expectProblem(
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(key),
        payload: { name: 'M', proxies: [proxyUrl] },
      }),
      403,
      'FORBIDDEN',
    );
    const other = await ctx.bootstrap();
    const pool = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/proxy-pools', headers: auth(org.apiKey) })
    ).json()[0];
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: `/api/v1/proxy-pools/${pool.id}`, headers: auth(other.apiKey) }),
      404,
      'NOT_FOUND',
    );
  });

  it("routes a Run's requests through the pool, and a pool of another organization is refused", async () => {
    const pool = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/proxy-pools', headers: auth(org.apiKey) })
    ).json()[0];
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Proxied');
    proxy.proxied.length = 0;
    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(org.apiKey),
      payload: { proxyPoolId: pool.id },
    });
    expect(start.statusCode).toBe(202);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id);
    expect(run).toMatchObject({ status: 10, recordsExtracted: 30 });
    expect(proxy.proxied.length).toBeGreaterThan(0);
    const files = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/agent/${agent.id}/run/${run.id}/files`,
        headers: auth(org.apiKey),
      })
    ).json();
    const log = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/agent/${agent.id}/run/${run.id}/file/${files.find((f: { fileType: string }) => f.fileType === 'Log').id}/download`,
      headers: auth(org.apiKey),
    });
    expect(log.body).not.toContain('proxy-pass-777');

    const other = await ctx.bootstrap();
    const otherAgent = await createAgent(ctx.app, other.apiKey, other.spaceId, catalogDefinition(site.url), 'Theirs');
    // One ownership rule everywhere: another organization's pool is not found (docs/decisions.md).
    const refused = expectProblem(
      await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/agent/${otherAgent.id}/start`,
        headers: auth(other.apiKey),
        payload: { proxyPoolId: pool.id },
      }),
      404,
      'NOT_FOUND',
    );
    expect(refused.detail).toBe(`Proxy pool ${pool.id} was not found.`);
    // 0 or less means unset.
    const unset = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${otherAgent.id}/start`,
      headers: auth(other.apiKey),
      payload: { proxyPoolId: 0 },
    });
    expect(unset.statusCode).toBe(202);
    await waitForRun(ctx.app, other.apiKey, otherAgent.id, unset.json().id);
  });

  it('a pool of another organization, or none at all, answers the same 404 on every path that takes a proxyPoolId', async () => {
    const pool = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/proxy-pools', headers: auth(org.apiKey) })
    ).json()[0];
    const other = await ctx.bootstrap();
    const theirs = await createAgent(ctx.app, other.apiKey, other.spaceId, catalogDefinition(site.url), 'Theirs too');
    const schedule = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${theirs.id}/schedules`,
      headers: auth(other.apiKey),
      payload: { name: 'S', scheduleType: 0 },
    });
    expect(schedule.statusCode).toBe(201);
    for (const id of [pool.id, 2147483000]) {
      const paths: Array<['POST' | 'PUT', string, Record<string, unknown>]> = [
        [
          'POST',
          '/api/v1/agent',
          { name: 'With pool', spaceId: other.spaceId, definition: catalogDefinition(site.url), proxyPoolId: id },
        ],
        ['PUT', `/api/v1/agent/${theirs.id}`, { proxyPoolId: id }],
        ['POST', `/api/v1/agent/${theirs.id}/start`, { proxyPoolId: id }],
        ['POST', `/api/v1/spaces/${other.spaceId}/run-all`, { proxyPoolId: id }],
        ['POST', `/api/v1/agent/${theirs.id}/schedules`, { name: 'S', scheduleType: 0, proxyPoolId: id }],
        ['PUT', `/api/v1/agent/${theirs.id}/schedules/${schedule.json().id}`, { proxyPoolId: id }],
        [
          'POST',
          '/api/v1/agent-builder/start',
          { prompt: 'Get every product please', url: `${site.url}/`, proxyPoolId: id },
        ],
      ];
      for (const [method, url, payload] of paths) {
        const res = await ctx.app.inject({ method, url, headers: auth(other.apiKey), payload });
        const problem = expectProblem(res, 404, 'NOT_FOUND');
        expect(problem.detail, `${method} ${url}`).toBe(`Proxy pool ${id} was not found.`);
      }
    }
    // Nothing was changed by the refused requests.
    const kept = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/agent/${theirs.id}/schedules/${schedule.json().id}`,
      headers: auth(other.apiKey),
    });
    expect(kept.json().proxyPoolId).toBeNull();
  });
});
