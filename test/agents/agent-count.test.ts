// totalRecordCount of GET /api/v1/agent/all stays exact while Agents are created (one by one and in
// bulk), archived, unarchived, moved between Spaces (also concurrently, both ways) and deleted: it is
// read from "AgentCount", which triggers keep (migration agent_list_counts), from an index-only
// count (status filter) or from the matching set (name filter). And the unpaged array, streamed in
// batches, is byte for byte the paged arrays joined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { createAgentsRepository, type BulkAgent } from '../../src/services/agents/agents.repository.js';
import { UNPAGED_BATCH } from '../../src/services/agents/agents.service.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let org: BootstrapResult;
let other: BootstrapResult;
let s1: number;
let s2: number;
let hidden: number; // private, not the reader's
let reader: string;

type Json = Record<string, unknown>;
const definition = {
  startUrl: 'https://example.com/?q={{query}}',
  parameters: [{ name: 'query', defaultValue: 'x' }],
  list: { selector: '.item', fields: [{ name: 'title' }] },
};

const get = (url: string, key = org.apiKey) => ctx.app.inject({ method: 'GET', url, headers: auth(key) });
const post = (url: string, payload?: Json) =>
  ctx.app.inject({ method: 'POST', url, headers: auth(org.apiKey), ...(payload && { payload }) });
const move = (id: number, spaceId: number) =>
  ctx.app.inject({ method: 'PUT', url: `/api/v1/agent/${id}`, headers: auth(org.apiKey), payload: { spaceId } });

async function create(name: string, spaceId: number, configType = 1, key = org.apiKey): Promise<number> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(key),
    payload: { name, spaceId, configType, definition },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** The filters of the API contract, each with the SQL that counts its Agents the slow, obvious way. */
function queries(): Array<{ q: string; key?: string; where: string }> {
  const base = `"organizationId" = ${org.organizationId} AND NOT "isArchived"`;
  return [
    { q: '', where: base },
    { q: `spaceId=${s1}`, where: `${base} AND "spaceId" = ${s1}` },
    { q: `spaceId=${s2}`, where: `${base} AND "spaceId" = ${s2}` },
    { q: 'configType=2', where: `${base} AND "configType" = 2` },
    { q: `configType=1&spaceId=${s2}`, where: `${base} AND "configType" = 1 AND "spaceId" = ${s2}` },
    { q: 'status=10', where: `${base} AND "status" = 10` },
    { q: `status=10&spaceId=${s1}`, where: `${base} AND "status" = 10 AND "spaceId" = ${s1}` },
    { q: 'name=beta', where: `${base} AND "name" ILIKE '%beta%'` },
    { q: 'name=beta&configType=1', where: `${base} AND "name" ILIKE '%beta%' AND "configType" = 1` },
    { q: `spaceId=${hidden}`, where: `${base} AND "spaceId" = ${hidden}` },
    // The reader reads the default-access Space and s2, not the hidden one.
    { q: '', key: reader, where: `${base} AND "spaceId" IN (${s1}, ${s2})` },
    { q: 'configType=1', key: reader, where: `${base} AND "spaceId" IN (${s1}, ${s2}) AND "configType" = 1` },
    { q: 'status=10', key: reader, where: `${base} AND "spaceId" IN (${s1}, ${s2}) AND "status" = 10` },
  ];
}

/** Every filter's totalRecordCount equals a plain count, on page 1 and past the last page. */
async function expectExactCounts() {
  for (const { q, key, where } of queries()) {
    const [{ n }] = await ctx.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "Agent" WHERE ${where}`,
    );
    for (const page of [1, 100000]) {
      const res = await get(`/api/v1/agent/all?pageIndex=${page}&recordsPerPage=2&${q}`, key);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().totalRecordCount, `${q} (${key ? 'reader' : 'admin'}), page ${page}`).toBe(n);
    }
  }
  // And the counter rows are exactly what a recount gives.
  const drift = await ctx.db.$queryRaw<unknown[]>`
    SELECT * FROM (
      SELECT "organizationId", "spaceId", "configType", count(*)::int AS "agents" FROM "Agent" WHERE NOT "isArchived" GROUP BY 1, 2, 3
    ) t FULL JOIN (SELECT * FROM "AgentCount" WHERE "agents" <> 0) c USING ("organizationId", "spaceId", "configType")
    WHERE t."agents" IS DISTINCT FROM c."agents"`;
  expect(drift).toEqual([]);
}

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap({ org: 'Counted' });
  other = await ctx.bootstrap({ org: 'Other' });
  s1 = org.spaceId;
  s2 = (await post('/api/v1/spaces', { name: 'Second' })).json().id;
  hidden = (await post('/api/v1/spaces', { name: 'Hidden' })).json().id;
  const user = await post('/api/v1/users', { email: 'count-reader@example.com', name: 'Reader' });
  reader = (await post(`/api/v1/users/${user.json().id}/api-keys`, {})).json().key;
  await post(`/api/v1/spaces/${s2}/members`, { userId: user.json().id, role: 'reader' });
});
afterAll(async () => ctx?.close());

describe('totalRecordCount of agent/all', () => {
  const ids: number[] = [];

  it('counts created Agents per filter', async () => {
    await expectExactCounts();
    for (const [i, [space, type]] of [
      [s1, 1],
      [s1, 2],
      [s2, 1],
      [s2, 3],
      [s1, 1],
      [s2, 2],
      [hidden, 1],
      [hidden, 4],
    ].entries()) {
      ids.push(await create(`${i % 2 ? 'Beta' : 'Alpha'} ${i}`, space, type));
    }
    await create('Elsewhere', other.spaceId, 1, other.apiKey);
    // Statuses are not counted by the triggers; a status filter counts from the index.
    await ctx.db.agent.updateMany({ where: { id: { in: ids.slice(0, 3) } }, data: { status: 10 } });
    await expectExactCounts();
  });

  it('stays exact through archive, a second archive, unarchive and moves', async () => {
    expect((await post(`/api/v1/agent/${ids[0]}/archive`)).statusCode).toBe(200);
    expect((await post(`/api/v1/agent/${ids[0]}/archive`)).statusCode).toBe(200);
    await expectExactCounts();
    expect((await move(ids[1], s2)).statusCode).toBe(200);
    await expectExactCounts();
    expect((await move(ids[2], hidden)).statusCode).toBe(200);
    await expectExactCounts();
    // A move of an archived Agent changes no count; unarchiving it counts it in its new Space.
    expect((await move(ids[0], s2)).statusCode).toBe(200);
    await expectExactCounts();
    expect((await post(`/api/v1/agent/${ids[0]}/unarchive`)).statusCode).toBe(200);
    await expectExactCounts();
  });

  it('stays exact under concurrent moves in both directions (no deadlock on the counter rows)', async () => {
    const a = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(`Mover ${i}`, [s1, s2, hidden][i % 3], 1 + (i % 2))),
    );
    for (let round = 0; round < 3; round++) {
      const res = await Promise.all(a.map((id, i) => move(id, [s1, s2, hidden][(i + round + 1) % 3])));
      expect(res.map((r) => r.statusCode)).toEqual(a.map(() => 200));
    }
    await expectExactCounts();
  });

  it('counts a bulk insert (one statement) and deletions, also by cascade', async () => {
    const repo = createAgentsRepository(ctx.db);
    const at = new Date();
    const rows: BulkAgent[] = Array.from({ length: 50 }, (_, i) => ({
      organizationId: org.organizationId,
      spaceId: i % 2 ? s1 : s2,
      userId: org.userId,
      userName: 'bulk',
      name: `Bulk ${i}`,
      description: '',
      configType: 1 + (i % 4),
      startUrl: '',
      validationStatus: 3,
      status: i % 3 ? null : 10,
      lastActivity: at,
      created: at,
      updated: at,
      definition,
      comments: '',
      fileSize: 1,
    }));
    const bulk = await repo.transaction((tx) => repo.bulkCreateAgents(rows, tx));
    await expectExactCounts();
    await ctx.db.agent.deleteMany({ where: { id: { in: bulk.slice(0, 20) } } });
    await expectExactCounts();
    // Deleting a Space deletes its Agents and its counter rows.
    const s3 = (await post('/api/v1/spaces', { name: 'Doomed' })).json().id;
    await create('Doomed 1', s3);
    await create('Doomed 2', s3, 4);
    await expectExactCounts();
    await ctx.db.space.delete({ where: { id: s3 } });
    await expectExactCounts();
    expect(await ctx.db.agentCount.count({ where: { spaceId: s3 } })).toBe(0);
  });
});

describe('the unpaged array of agent/all', () => {
  it('is streamed with the bytes of the paged arrays, over several batches', async () => {
    const repo = createAgentsRepository(ctx.db);
    const at = new Date();
    const n = UNPAGED_BATCH + 7;
    const rows: BulkAgent[] = Array.from({ length: n }, (_, i) => ({
      organizationId: other.organizationId,
      spaceId: other.spaceId,
      userId: other.userId,
      userName: 'bulk',
      name: `Streamed ${String(i).padStart(5, '0')}`,
      description: 'd "quoted" \\ \u00e9',
      configType: 1,
      startUrl: '',
      validationStatus: 3,
      status: null,
      lastActivity: at,
      created: at,
      updated: at,
      definition,
      comments: '',
      fileSize: 1,
    }));
    await repo.transaction((tx) => repo.bulkCreateAgents(rows, tx), { timeout: 60_000 });
    const whole = await get('/api/v1/agent/all?sortColumn=created&sortOrder=1', other.apiKey);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('application/json; charset=utf-8');
    const parts: string[] = [];
    for (let page = 1; ; page++) {
      const res = await get(
        `/api/v1/agent/all?sortColumn=created&sortOrder=1&pageIndex=${page}&recordsPerPage=1000`,
        other.apiKey,
      );
      const body = res.body;
      const inner = body.slice(body.indexOf('[') + 1, body.lastIndexOf(']'));
      if (inner === '') break;
      parts.push(inner);
    }
    expect(whole.body).toBe(`[${parts.join(',')}]`);
    expect(whole.json()).toHaveLength(n + 1);

    const none = await get('/api/v1/agent/all?name=no-such-agent', other.apiKey);
    expect(none.statusCode).toBe(200);
    expect(none.body).toBe('[]');
  });
});
