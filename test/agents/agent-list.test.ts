// GET /api/v1/agent/all and /agent/search through HTTP: every filter, sort and paging combination,
// two organizations, a private Space and a reader-only member.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let orgA: BootstrapResult;
let orgB: BootstrapResult;
let spaceA1: number; // default access
let spaceA2: number; // private, the reader's
let spaceA3: number; // private, nobody's
let reader: { userId: number; apiKey: string };

interface Seeded {
  id: number;
  name: string;
  description: string;
  spaceId: number;
  configType: number;
  status: number | null;
  lastActivity: Date;
  created: Date;
  updated: Date;
}
const agentsA: Seeded[] = [];
let archivedId: number;
let otherOrgId: number;

type Json = Record<string, unknown>;
const definition = (query = 'books'): Json => ({
  startUrl: 'https://example.com/list?q={{query}}',
  parameters: [
    { name: 'query', defaultValue: query },
    { name: 'key', defaultValue: 'k', encrypted: true },
  ],
  list: { selector: '.item', fields: [{ name: 'title' }] },
});

function expectBadRequest(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toEqual({
    statusCode: 400,
    statusDescription: 'Bad Request',
    message: expect.any(String),
    severity: 0,
    errorCode: 'VALIDATION_FAILED',
  });
}

function expectProblem(res: LightMyRequestResponse, status: number, errorCode: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.any(String),
    errorCode,
  });
}

const get = (url: string, key = orgA.apiKey) => ctx.app.inject({ method: 'GET', url, headers: auth(key) });
const ids = (res: LightMyRequestResponse) => {
  const body = res.json();
  return (Array.isArray(body) ? body : body.agents).map((a: Json) => a.id as number);
};

// Names sort in the database's collation (C or a locale), so their rank comes from the database.
const nameRank = new Map<string, number>();

/** The expected order, computed in JS the way the API documents it (nulls last ascending). */
function expected(rows: Seeded[], column: keyof Seeded, descending = false): number[] {
  const value = (r: Seeded) => {
    const v = r[column];
    if (column === 'name') return nameRank.get(v as string) ?? Number.NaN;
    return v instanceof Date ? v.getTime() : v;
  };
  const cmp = (a: Seeded, b: Seeded) => {
    const va = value(a);
    const vb = value(b);
    let c = 0;
    if (va === null && vb !== null) c = 1;
    else if (vb === null && va !== null) c = -1;
    else if (va !== null && vb !== null) c = va < vb ? -1 : va > vb ? 1 : 0;
    if (c === 0) c = a.id - b.id;
    return descending ? -c : c;
  };
  return [...rows].sort(cmp).map((r) => r.id);
}

async function create(key: string, body: Json): Promise<number> {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/agent', headers: auth(key), payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgA = await ctx.bootstrap({ org: 'A' });
  orgB = await ctx.bootstrap({ org: 'B' });
  spaceA1 = orgA.spaceId;
  const mk = async (name: string) =>
    (
      await ctx.app.inject({ method: 'POST', url: '/api/v1/spaces', headers: auth(orgA.apiKey), payload: { name } })
    ).json().id;
  spaceA2 = await mk('Team');
  spaceA3 = await mk('Hidden');
  const user = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: auth(orgA.apiKey),
    payload: { email: 'reader@example.com', name: 'Reader' },
  });
  const key = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/users/${user.json().id}/api-keys`,
    headers: auth(orgA.apiKey),
    payload: {},
  });
  reader = { userId: user.json().id, apiKey: key.json().key };
  await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/spaces/${spaceA2}/members`,
    headers: auth(orgA.apiKey),
    payload: { userId: reader.userId, role: 'reader' },
  });

  // Names chosen for case, wildcard and tie cases; statuses, types and dates set directly so that
  // every sort has ties and nulls to break.
  const specs: Array<{
    name: string;
    description?: string;
    space: number;
    configType: number;
    status: number | null;
    day: number;
  }> = [
    { name: 'Alpha books', description: 'Book shop', space: spaceA1, configType: 1, status: 10, day: 5 },
    { name: 'alpha News', space: spaceA1, configType: 2, status: null, day: 3 },
    { name: 'Beta 100% deals', space: spaceA2, configType: 3, status: 6, day: 5 },
    { name: 'Beta_under', space: spaceA2, configType: 4, status: 10, day: 1 },
    { name: 'BetaXunder', description: 'has 100 percent', space: spaceA3, configType: 1, status: 9, day: 8 },
    { name: 'Gamma jobs', description: 'Careers scraper', space: spaceA3, configType: 1, status: null, day: 2 },
    { name: 'Gamma jobs', space: spaceA1, configType: 3, status: 6, day: 2 },
    { name: 'Zeta', space: spaceA2, configType: 2, status: 1, day: 9 },
  ];
  const base = Date.UTC(2026, 0, 1);
  for (const [i, s] of specs.entries()) {
    const id = await create(orgA.apiKey, {
      name: s.name,
      description: s.description ?? '',
      spaceId: s.space,
      configType: s.configType,
      definition: definition(`q${i}`),
    });
    const lastActivity = new Date(base + s.day * 86_400_000);
    const created = new Date(base + ((i * 3) % 5) * 86_400_000);
    const updated = new Date(base + ((i * 7) % 4) * 86_400_000);
    await ctx.db.agent.update({ where: { id }, data: { status: s.status, lastActivity, created, updated } });
    agentsA.push({
      id,
      name: s.name,
      description: s.description ?? '',
      spaceId: s.space,
      configType: s.configType,
      status: s.status,
      lastActivity,
      created,
      updated,
    });
  }
  const ranks = await ctx.db.$queryRaw<Array<{ name: string; r: number }>>`
    SELECT "name", (dense_rank() OVER (ORDER BY "name"))::int AS "r" FROM "Agent" WHERE "id" = ANY(${agentsA.map((a) => a.id)}::int[])`;
  for (const { name, r } of ranks) nameRank.set(name, r);
  archivedId = await create(orgA.apiKey, {
    name: 'Alpha archived',
    description: 'Book archive',
    spaceId: spaceA1,
    definition: definition(),
  });
  await ctx.app.inject({ method: 'POST', url: `/api/v1/agent/${archivedId}/archive`, headers: auth(orgA.apiKey) });
  otherOrgId = await create(orgB.apiKey, {
    name: 'Alpha of B',
    description: 'Book',
    spaceId: orgB.spaceId,
    definition: definition(),
  });
});
afterAll(async () => ctx?.close());

describe('GET /api/v1/agent/all: shapes and paging', () => {
  it('answers a plain array without paging: readable, unarchived, own organization only', async () => {
    const res = await get('/api/v1/agent/all');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Array.isArray(body)).toBe(true);
    expect(ids(res)).toEqual(expected(agentsA, 'name'));
    expect(ids(res)).not.toContain(archivedId);
    expect(ids(res)).not.toContain(otherOrgId);
    expect(body[0]).toMatchObject({
      inputParameters: { query: expect.stringMatching(/^q\d$/), key: '********' },
      isArchived: false,
    });
  });

  it('answers { agents, totalRecordCount } with both paging parameters', async () => {
    const all = expected(agentsA, 'name');
    const p1 = await get('/api/v1/agent/all?pageIndex=1&recordsPerPage=3');
    expect(p1.statusCode).toBe(200);
    expect(Object.keys(p1.json()).sort()).toEqual(['agents', 'totalRecordCount']);
    expect(p1.json().totalRecordCount).toBe(all.length);
    expect(ids(p1)).toEqual(all.slice(0, 3));
    expect(ids(await get('/api/v1/agent/all?pageIndex=3&recordsPerPage=3'))).toEqual(all.slice(6, 9));
    const beyond = await get('/api/v1/agent/all?pageIndex=9&recordsPerPage=3');
    expect(beyond.json()).toEqual({ agents: [], totalRecordCount: all.length });
  });

  it('keeps the plain array when only one paging parameter is given', async () => {
    for (const q of ['pageIndex=2', 'recordsPerPage=2']) {
      const res = await get(`/api/v1/agent/all?${q}`);
      expect(res.statusCode).toBe(200);
      expect(Array.isArray(res.json())).toBe(true);
      expect(res.json()).toHaveLength(agentsA.length);
    }
  });

  it('clamps recordsPerPage to 1000', async () => {
    const res = await get('/api/v1/agent/all?pageIndex=2&recordsPerPage=5000');
    expect(res.json()).toEqual({ agents: [], totalRecordCount: agentsA.length });
    expect(ids(await get('/api/v1/agent/all?pageIndex=1&recordsPerPage=5000'))).toHaveLength(agentsA.length);
    const last = await get('/api/v1/agent/all?pageIndex=2147483647&recordsPerPage=2147483647');
    expect(last.json()).toEqual({ agents: [], totalRecordCount: agentsA.length });
  });

  it('refuses paging values below 1 and non-integers', async () => {
    for (const q of [
      'pageIndex=2147483648&recordsPerPage=5',
      'pageIndex=0&recordsPerPage=5',
      'pageIndex=1&recordsPerPage=0',
      'pageIndex=-1',
      'recordsPerPage=0',
      'pageIndex=x&recordsPerPage=5',
      'pageIndex=1.5&recordsPerPage=5',
    ]) {
      expectBadRequest(await get(`/api/v1/agent/all?${q}`));
    }
  });
});

describe('GET /api/v1/agent/all: sorting', () => {
  const columns: Array<[string, keyof Seeded]> = [
    ['name', 'name'],
    ['lastActivity', 'lastActivity'],
    ['created', 'created'],
    ['updated', 'updated'],
    ['status', 'status'],
    ['configType', 'configType'],
  ];
  for (const [param, column] of columns) {
    it(`sorts by ${param} both ways, ties broken by id`, async () => {
      expect(ids(await get(`/api/v1/agent/all?sortColumn=${param}`))).toEqual(expected(agentsA, column));
      expect(ids(await get(`/api/v1/agent/all?sortColumn=${param}&sortOrder=0`))).toEqual(expected(agentsA, column));
      expect(ids(await get(`/api/v1/agent/all?sortColumn=${param}&sortOrder=1`))).toEqual(
        expected(agentsA, column, true),
      );
      const paged = await get(`/api/v1/agent/all?sortColumn=${param}&sortOrder=1&pageIndex=2&recordsPerPage=3`);
      expect(ids(paged)).toEqual(expected(agentsA, column, true).slice(3, 6));
    });
  }

  it('matches sortColumn case-insensitively and defaults to name ascending', async () => {
    expect(ids(await get('/api/v1/agent/all?sortColumn=LASTACTIVITY&sortOrder=1'))).toEqual(
      expected(agentsA, 'lastActivity', true),
    );
    expect(ids(await get('/api/v1/agent/all?sortOrder=1'))).toEqual(expected(agentsA, 'name', true));
  });

  it('refuses an unknown sortColumn or sortOrder', async () => {
    expectBadRequest(await get('/api/v1/agent/all?sortColumn=cost'));
    expectBadRequest(await get('/api/v1/agent/all?sortColumn=name;drop'));
    expectBadRequest(await get('/api/v1/agent/all?sortOrder=2'));
    expectBadRequest(await get('/api/v1/agent/all?sortOrder=desc'));
  });
});

describe('GET /api/v1/agent/all: filters', () => {
  const where = (f: (a: Seeded) => boolean, column: keyof Seeded = 'name') => expected(agentsA.filter(f), column);

  it('filters by name, case-insensitive contains, wildcards taken literally', async () => {
    expect(ids(await get('/api/v1/agent/all?name=ALPHA'))).toEqual(
      where((a) => a.name.toLowerCase().includes('alpha')),
    );
    expect(ids(await get(`/api/v1/agent/all?name=${encodeURIComponent('%')}`))).toEqual(
      where((a) => a.name.includes('%')),
    );
    expect(ids(await get('/api/v1/agent/all?name=_'))).toEqual(where((a) => a.name.includes('_')));
    expect(ids(await get('/api/v1/agent/all?name=a_u'))).toEqual([agentsA[3].id]);
    expect(ids(await get('/api/v1/agent/all?name=nothing-like-this'))).toEqual([]);
  });

  it('filters by status (RunStatus) and refuses values outside 0..12', async () => {
    expect(ids(await get('/api/v1/agent/all?status=10'))).toEqual(where((a) => a.status === 10));
    expect(ids(await get('/api/v1/agent/all?status=0'))).toEqual([]);
    for (const v of ['13', '-1', 'Success']) expectBadRequest(await get(`/api/v1/agent/all?status=${v}`));
  });

  it('filters by spaceId, with 404 for another organization and 403 for an unreachable Space', async () => {
    expect(ids(await get(`/api/v1/agent/all?spaceId=${spaceA2}`))).toEqual(where((a) => a.spaceId === spaceA2));
    expectProblem(await get(`/api/v1/agent/all?spaceId=${orgB.spaceId}`), 404, 'NOT_FOUND');
    expectProblem(await get('/api/v1/agent/all?spaceId=999999'), 404, 'NOT_FOUND');
    expectProblem(await get(`/api/v1/agent/all?spaceId=${spaceA3}`, reader.apiKey), 403, 'FORBIDDEN');
    expectBadRequest(await get('/api/v1/agent/all?spaceId=abc'));
  });

  it('filters by configType as a number or a name', async () => {
    const cases: Array<[string, number]> = [
      ['1', 1],
      ['2', 2],
      ['3', 3],
      ['4', 4],
      ['Agent', 1],
      ['SharedFile', 2],
      ['shared', 2],
      ['TEMPLATE', 3],
      ['Template', 3],
      ['command', 4],
    ];
    for (const [param, n] of cases) {
      expect(ids(await get(`/api/v1/agent/all?configType=${param}`)), param).toEqual(where((a) => a.configType === n));
    }
    for (const bad of ['0', '5', 'Api', 'x']) expectBadRequest(await get(`/api/v1/agent/all?configType=${bad}`));
  });

  it('combines filters, sort and paging', async () => {
    const p = await get(
      `/api/v1/agent/all?name=A&spaceId=${spaceA1}&sortColumn=lastActivity&sortOrder=1&pageIndex=1&recordsPerPage=2`,
    );
    const inSpace1 = expected(
      agentsA.filter((a) => a.name.toLowerCase().includes('a') && a.spaceId === spaceA1),
      'lastActivity',
      true,
    );
    expect(inSpace1.length).toBeGreaterThan(2);
    expect(p.json().totalRecordCount).toBe(inSpace1.length);
    expect(ids(p)).toEqual(inSpace1.slice(0, 2));

    const q = await get(
      '/api/v1/agent/all?name=gamma&configType=Template&status=6&sortColumn=created&pageIndex=1&recordsPerPage=10',
    );
    expect(q.json().totalRecordCount).toBe(1);
    expect(ids(q)).toEqual(where((a) => a.name.startsWith('Gamma') && a.configType === 3 && a.status === 6));

    // Past the last page the total still counts the matches, with and without a status filter.
    const beyond = await get(
      `/api/v1/agent/all?name=A&spaceId=${spaceA1}&sortColumn=lastActivity&sortOrder=1&pageIndex=99&recordsPerPage=2`,
    );
    expect(beyond.json()).toEqual({ agents: [], totalRecordCount: inSpace1.length });
    const beyondQ = await get(
      '/api/v1/agent/all?name=gamma&configType=Template&status=6&sortColumn=created&pageIndex=9&recordsPerPage=10',
    );
    expect(beyondQ.json()).toEqual({ agents: [], totalRecordCount: 1 });
    const none = await get('/api/v1/agent/all?name=nothing-like-this&sortColumn=updated&pageIndex=1&recordsPerPage=5');
    expect(none.json()).toEqual({ agents: [], totalRecordCount: 0 });
  });

  it('shows a member only the Spaces they can read', async () => {
    const readable = (a: Seeded) => a.spaceId === spaceA1 || a.spaceId === spaceA2;
    expect(ids(await get('/api/v1/agent/all', reader.apiKey))).toEqual(where(readable));
    const page = await get('/api/v1/agent/all?pageIndex=1&recordsPerPage=2&sortColumn=status', reader.apiKey);
    expect(page.json().totalRecordCount).toBe(agentsA.filter(readable).length);
    expect(ids(page)).toEqual(expected(agentsA.filter(readable), 'status').slice(0, 2));
    expect(ids(await get('/api/v1/agent/all', orgB.apiKey))).toEqual([otherOrgId]);
  });

  it('answers 401 without credentials', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/agent/all' });
    expectProblem(res, 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/v1/agent/search', () => {
  it('matches name or description, case-insensitively, readable and unarchived only', async () => {
    const res = await get('/api/v1/agent/search?query=BOOK');
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual([agentsA[0].id]);
    expect(ids(await get('/api/v1/agent/search?query=percent'))).toEqual([agentsA[4].id]);
    expect(ids(await get('/api/v1/agent/search?query=100'))).toEqual(
      expected(
        agentsA.filter((a) => (a.name + a.description).includes('100')),
        'name',
      ),
    );
    expect(ids(await get(`/api/v1/agent/search?query=${encodeURIComponent('%')}`))).toEqual([agentsA[2].id]);
    expect(ids(await get('/api/v1/agent/search?query=Book', orgB.apiKey))).toEqual([otherOrgId]);
    // The reader cannot see spaceA3's 'Careers scraper'.
    expect(ids(await get('/api/v1/agent/search?query=careers', reader.apiKey))).toEqual([]);
    expect(ids(await get('/api/v1/agent/search?query=careers'))).toEqual([agentsA[5].id]);
  });

  it('limits with maxRecords (default 50, clamped to 1000)', async () => {
    expect(ids(await get('/api/v1/agent/search?query=a&maxRecords=2'))).toEqual(
      expected(
        agentsA.filter((a) => /a/i.test(a.name + a.description)),
        'name',
      ).slice(0, 2),
    );
    expect(ids(await get('/api/v1/agent/search?query=a&maxRecords=100000')).length).toBe(
      agentsA.filter((a) => /a/i.test(a.name + a.description)).length,
    );
    expectBadRequest(await get('/api/v1/agent/search?query=a&maxRecords=0'));
    expectBadRequest(await get('/api/v1/agent/search?query=a&maxRecords=x'));
    expectBadRequest(await get('/api/v1/agent/search'));
    expectBadRequest(await get('/api/v1/agent/search?query='));
  });
});

describe('archived Agents leave and come back', () => {
  it('disappears from all, search and space agents, and returns on unarchive', async () => {
    const target = agentsA[0];
    const listed = async () => ({
      all: ids(await get('/api/v1/agent/all')).includes(target.id),
      paged: ids(await get('/api/v1/agent/all?pageIndex=1&recordsPerPage=100')).includes(target.id),
      search: ids(await get('/api/v1/agent/search?query=alpha')).includes(target.id),
      space: (await get(`/api/v1/spaces/${target.spaceId}/agents`)).json().some((a: Json) => a.id === target.id),
    });
    expect(await listed()).toEqual({ all: true, paged: true, search: true, space: true });
    await ctx.app.inject({ method: 'POST', url: `/api/v1/agent/${target.id}/archive`, headers: auth(orgA.apiKey) });
    expect(await listed()).toEqual({ all: false, paged: false, search: false, space: false });
    expect((await get(`/api/v1/agent/${target.id}`)).json().isArchived).toBe(true);
    await ctx.app.inject({ method: 'POST', url: `/api/v1/agent/${target.id}/unarchive`, headers: auth(orgA.apiKey) });
    expect(await listed()).toEqual({ all: true, paged: true, search: true, space: true });
  });

  it('lists inputParameters of the active version', async () => {
    const target = agentsA[1];
    await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${target.id}`,
      headers: auth(orgA.apiKey),
      payload: { definition: definition('changed') },
    });
    const row = (await get('/api/v1/agent/all')).json().find((a: Json) => a.id === target.id);
    expect(row).toMatchObject({ version: 2, inputParameters: { query: 'changed', key: '********' } });
  });
});

describe('search text follows the Agent', () => {
  it('finds a renamed, redescribed or moved Agent as it is now, and keeps its text through other changes', async () => {
    const id = await create(orgB.apiKey, {
      name: 'Quokka finder',
      description: 'zebra-striped pages',
      spaceId: orgB.spaceId,
      definition: definition(),
    });
    const search = async (query: string) => ids(await get(`/api/v1/agent/search?query=${query}`, orgB.apiKey));
    const named = async (name: string) => ids(await get(`/api/v1/agent/all?name=${name}`, orgB.apiKey));
    expect(await search('quokka')).toEqual([id]);
    expect(await search('ZEBRA')).toEqual([id]);
    const put = (payload: Json) =>
      ctx.app.inject({ method: 'PUT', url: `/api/v1/agent/${id}`, headers: auth(orgB.apiKey), payload });
    expect((await put({ name: 'Wombat finder', description: 'tiger pages' })).statusCode).toBe(200);
    expect(await search('quokka')).toEqual([]);
    expect(await search('zebra')).toEqual([]);
    expect(await search('wombat')).toEqual([id]);
    expect(await search('tiger')).toEqual([id]);
    expect(await named('quokka')).toEqual([]);
    expect(await named('wombat')).toEqual([id]);
    // A change that names neither leaves the text as it was.
    expect((await put({ definition: definition('other') })).statusCode).toBe(200);
    expect(await search('tiger')).toEqual([id]);
    expect(await named('wombat')).toEqual([id]);
    // Moved to another Space, it is found in that Space only.
    const space = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/spaces',
      headers: auth(orgB.apiKey),
      payload: { name: 'Zoo' },
    });
    expect((await put({ spaceId: space.json().id })).statusCode).toBe(200);
    expect(await named(`wombat&spaceId=${space.json().id}`)).toEqual([id]);
    expect(await named(`wombat&spaceId=${orgB.spaceId}`)).toEqual([]);
  });
});
