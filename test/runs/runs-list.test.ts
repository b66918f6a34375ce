// GET /api/v1/runs: Runs across the caller's Agents, newest first, with filters and paging, and
// only what the caller can read (another organization's Runs never appear). No worker runs here,
// so every started Run stays Queuing.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let orgA: BootstrapResult;
let orgB: BootstrapResult;
let memberKey: string;
let privateSpaceId: number;
const agents: Record<'shared' | 'private' | 'other', number> = { shared: 0, private: 0, other: 0 };
const runs: Record<'shared1' | 'shared2' | 'private' | 'other', number> = {
  shared1: 0,
  shared2: 0,
  private: 0,
  other: 0,
};

const get = (url: string, key: string | null) => ctx.app.inject({ method: 'GET', url, headers: key ? auth(key) : {} });
const ids = (res: LightMyRequestResponse) => (res.json() as Array<{ id: number }>).map((r) => r.id);
const definition = {
  startUrl: 'https://example.com/',
  list: { selector: 'div', fields: [{ name: 'text', selector: 'p' }] },
  export: { format: 'csv' },
};

async function createAgent(key: string, spaceId: number, name: string) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(key),
    payload: { name, spaceId, definition },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}
async function start(key: string, agentId: number) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agentId}/start`,
    headers: auth(key),
    payload: { isExclusive: false },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().id as number;
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgA = await ctx.bootstrap({ org: 'A' });
  orgB = await ctx.bootstrap({ org: 'B' });
  const user = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: auth(orgA.apiKey),
    payload: { email: 'member@example.com', name: 'Member' },
  });
  const key = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/users/${user.json().id}/api-keys`,
    headers: auth(orgA.apiKey),
    payload: {},
  });
  memberKey = key.json().key;
  const space = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/spaces',
    headers: auth(orgA.apiKey),
    payload: { name: 'Private', isDefaultAccess: false },
  });
  privateSpaceId = space.json().id;
  agents.shared = await createAgent(orgA.apiKey, orgA.spaceId, 'Shared');
  agents.private = await createAgent(orgA.apiKey, privateSpaceId, 'Private');
  agents.other = await createAgent(orgB.apiKey, orgB.spaceId, 'Other');
  runs.shared1 = await start(orgA.apiKey, agents.shared);
  runs.private = await start(orgA.apiKey, agents.private);
  runs.other = await start(orgB.apiKey, agents.other);
  runs.shared2 = await start(orgA.apiKey, agents.shared);
});
afterAll(async () => ctx?.close());

describe('GET /api/v1/runs', () => {
  it("lists the organization's Runs across Agents, newest first, for an admin", async () => {
    const res = await get('/api/v1/runs', orgA.apiKey);
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([runs.shared2, runs.private, runs.shared1]);
    expect(res.json()[0]).toMatchObject({
      id: runs.shared2,
      configId: agents.shared,
      organizationId: orgA.organizationId,
      status: 4,
    });
    expect(ids(await get('/api/v1/runs', orgB.apiKey))).toEqual([runs.other]);
  });

  it('shows a member only the Runs of Spaces they can read', async () => {
    expect(ids(await get('/api/v1/runs', memberKey))).toEqual([runs.shared2, runs.shared1]);
    const res = await get(`/api/v1/runs?agentId=${agents.private}`, memberKey);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, errorCode: 'FORBIDDEN' });
    expect((await get(`/api/v1/runs?spaceId=${privateSpaceId}`, memberKey)).statusCode).toBe(403);
  });

  it('filters by agent, space, status, schedule and creation dates', async () => {
    expect(ids(await get(`/api/v1/runs?agentId=${agents.shared}`, orgA.apiKey))).toEqual([runs.shared2, runs.shared1]);
    expect(ids(await get(`/api/v1/runs?spaceId=${privateSpaceId}`, orgA.apiKey))).toEqual([runs.private]);
    expect(ids(await get('/api/v1/runs?status=4', orgA.apiKey))).toHaveLength(3);
    expect(ids(await get('/api/v1/runs?status=10', orgA.apiKey))).toEqual([]);
    expect(ids(await get('/api/v1/runs?scheduleId=1', orgA.apiKey))).toEqual([]);
    // int64 like the Schedule's id: beyond 2^53 it names no Schedule, so no Run.
    expect(ids(await get('/api/v1/runs?scheduleId=9223372036854775807', orgA.apiKey))).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(ids(await get(`/api/v1/runs?endDate=${today}`, orgA.apiKey))).toHaveLength(3);
    expect(ids(await get(`/api/v1/runs?endDate=${yesterday}`, orgA.apiKey))).toEqual([]);
    expect(
      ids(
        await get(
          `/api/v1/runs?startDate=${yesterday}&endDate=${today}&agentId=${agents.shared}&status=4`,
          orgA.apiKey,
        ),
      ),
    ).toEqual([runs.shared2, runs.shared1]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(ids(await get(`/api/v1/runs?startDate=${encodeURIComponent(future)}`, orgA.apiKey))).toEqual([]);
  });

  it("names each Run's Agent, and filters by a case-insensitive part of the Agent's name", async () => {
    const all = (await get('/api/v1/runs', orgA.apiKey)).json() as Array<{ id: number; agentName: string }>;
    expect(all.map((r) => [r.id, r.agentName])).toEqual([
      [runs.shared2, 'Shared'],
      [runs.private, 'Private'],
      [runs.shared1, 'Shared'],
    ]);
    expect(ids(await get('/api/v1/runs?agentName=HARE', orgA.apiKey))).toEqual([runs.shared2, runs.shared1]);
    expect(ids(await get('/api/v1/runs?agentName=riv&status=4', orgA.apiKey))).toEqual([runs.private]);
    // Combined with what the caller can read: a member never sees the private Space's Runs.
    expect(ids(await get('/api/v1/runs?agentName=riv', memberKey))).toEqual([]);
    expect(ids(await get('/api/v1/runs?agentName=Other', orgA.apiKey))).toEqual([]);
    const paged = (await get('/api/v1/runs?agentName=shared&pageIndex=1&recordsPerPage=1', orgA.apiKey)).json();
    expect(paged).toMatchObject({ runs: [{ id: runs.shared2, agentName: 'Shared' }], totalRecordCount: 2 });
  });

  it('pages like the other lists', async () => {
    const first = await get('/api/v1/runs?pageIndex=1&recordsPerPage=2', orgA.apiKey);
    expect(first.json()).toEqual({
      runs: [expect.objectContaining({ id: runs.shared2 }), expect.objectContaining({ id: runs.private })],
      totalRecordCount: 3,
    });
    const second = await get('/api/v1/runs?pageIndex=2&recordsPerPage=2', orgA.apiKey);
    expect(second.json()).toEqual({ runs: [expect.objectContaining({ id: runs.shared1 })], totalRecordCount: 3 });
    expect(ids(await get('/api/v1/runs?maxRecords=1', orgA.apiKey))).toEqual([runs.shared2]);
  });

  it('answers 404 for an Agent of another organization, 400 for bad filters, 401 without credentials', async () => {
    const other = await get(`/api/v1/runs?agentId=${agents.other}`, orgA.apiKey);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
    for (const q of [
      'startDate=yesterday',
      'status=13',
      'agentId=0',
      'pageIndex=0&recordsPerPage=5',
      'maxRecords=0',
      'startDate=2026-02-01&endDate=2026-01-01',
      'agentName=',
      `agentName=${'x'.repeat(201)}`,
    ]) {
      const res = await get(`/api/v1/runs?${q}`, orgA.apiKey);
      expect(res.statusCode, q).toBe(400);
      expect(res.json(), q).toEqual({
        statusCode: 400,
        statusDescription: 'Bad Request',
        message: expect.any(String),
        severity: 0,
        errorCode: 'VALIDATION_FAILED',
      });
    }
    const anon = await get('/api/v1/runs', null);
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ status: 401, errorCode: 'UNAUTHENTICATED' });
  });
});
