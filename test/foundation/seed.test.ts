// runSeed (the `seed` CLI command): a new or existing organization filled with Spaces and Agents
// whose definitions, versions and Runs hang together, readable through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSeed } from '../../src/tools/seed.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('runSeed', () => {
  it('bootstraps an organization with Spaces, Agents, version-1 definitions and some Runs', async () => {
    const lines: string[] = [];
    const result = await runSeed(ctx.config, { agents: 12, spaces: 3 }, (m) => lines.push(m));
    expect(result).toEqual({
      organizationId: expect.any(Number),
      spaceIds: expect.any(Array),
      agents: 12,
      apiKey: expect.stringMatching(/^cx_/),
    });
    expect(result.spaceIds).toHaveLength(3);
    expect(lines.at(-1)).toMatch(/seeded 12 agents in 3 spaces/);

    const agents = await ctx.db.agent.findMany({
      where: { organizationId: result.organizationId },
      include: { versions: true },
    });
    expect(agents).toHaveLength(12);
    expect(new Set(agents.map((a) => a.spaceId))).toEqual(new Set(result.spaceIds));
    for (const a of agents) {
      expect(a.versions).toHaveLength(1);
      expect(a.versions[0]).toMatchObject({
        version: 1,
        fileSize: Buffer.byteLength(JSON.stringify(a.versions[0].definition)),
      });
      expect(a.startUrl).toBe((a.versions[0].definition as { startUrl: string }).startUrl);
    }
    const runs = await ctx.db.run.findMany({ where: { organizationId: result.organizationId } });
    expect(runs).toHaveLength(4); // every third Agent
    for (const run of runs) {
      const agent = agents.find((a) => a.id === run.agentId);
      expect(agent).toMatchObject({ lastRunId: run.id, status: run.status });
    }
    expect(agents.filter((a) => a.status === null)).toHaveLength(8);

    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=5',
      headers: auth(result.apiKey as string),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().totalRecordCount).toBe(12);
    expect(res.json().agents[0].inputParameters).toEqual({ query: expect.any(String), token: '********' });
  });

  it('marks one Agent in fifty Invalid and spreads configTypes', async () => {
    const result = await runSeed(ctx.config, { agents: 100, spaces: 2 });
    const byStatus = await ctx.db.agent.groupBy({
      by: ['validationStatus'],
      where: { organizationId: result.organizationId },
      _count: true,
    });
    expect(Object.fromEntries(byStatus.map((g) => [g.validationStatus, g._count]))).toEqual({ 2: 2, 3: 98 });
    const byType = await ctx.db.agent.groupBy({
      by: ['configType'],
      where: { organizationId: result.organizationId },
      _count: true,
    });
    expect(Object.fromEntries(byType.map((g) => [g.configType, g._count]))).toEqual({ 1: 70, 2: 10, 3: 10, 4: 10 });
  });

  it('fills an existing organization without issuing a key', async () => {
    const org = await ctx.bootstrap();
    const result = await runSeed(ctx.config, { agents: 3, org: org.organizationId, spaces: 1 });
    expect(result).toEqual({ organizationId: org.organizationId, spaceIds: [expect.any(Number)], agents: 3 });
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/spaces/${result.spaceIds[0]}/agents`,
      headers: auth(org.apiKey),
    });
    expect(res.json()).toHaveLength(3);
    expect((await ctx.db.agent.findFirstOrThrow({ where: { spaceId: result.spaceIds[0] } })).userId).toBe(org.userId);
  });

  it('refuses bad options', async () => {
    await expect(runSeed(ctx.config, { agents: -1 })).rejects.toThrow(/--agents/);
    await expect(runSeed(ctx.config, { agents: Number.NaN })).rejects.toThrow(/--agents/);
    await expect(runSeed(ctx.config, { agents: 1, spaces: 0 })).rejects.toThrow(/--spaces/);
    await expect(runSeed(ctx.config, { agents: 1, org: 999_999 })).rejects.toThrow(/no organization/);
  });
});
