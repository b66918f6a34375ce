// Spaces through HTTP: listing, lookup by id and name, their Agents, creation and membership, with
// two organizations, a private Space and a reader-only member.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let orgA: BootstrapResult;
let orgB: BootstrapResult;
let member: { userId: number; apiKey: string };
let sales: Json & { id: number };
let salesEu: Json & { id: number };
let presales: Json & { id: number };

type Json = Record<string, unknown>;

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
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.any(String),
    errorCode,
  });
}

const req = (method: 'GET' | 'POST', url: string, key: string | null, payload?: Json) =>
  ctx.app.inject({ method, url, headers: key ? auth(key) : {}, ...(payload && { payload }) });

async function createSpace(key: string, body: Json) {
  const res = await req('POST', '/api/v1/spaces', key, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json & { id: number };
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgA = await ctx.bootstrap({ org: 'A' });
  orgB = await ctx.bootstrap({ org: 'B' });
  const user = await req('POST', '/api/v1/users', orgA.apiKey, { email: 'member@example.com', name: 'Member' });
  const key = await req('POST', `/api/v1/users/${user.json().id}/api-keys`, orgA.apiKey, {});
  member = { userId: user.json().id, apiKey: key.json().key };
  // Created out of name order, so listing by name is visible.
  presales = await createSpace(orgA.apiKey, { name: 'Presales' });
  salesEu = await createSpace(orgA.apiKey, { name: 'Sales EU', description: 'Europe' });
  sales = await createSpace(orgA.apiKey, { name: 'Sales' });
});
afterAll(async () => ctx?.close());

describe('POST /api/v1/spaces', () => {
  it('creates a Space with the Space model', async () => {
    const res = await req('POST', '/api/v1/spaces', orgA.apiKey, {
      name: ' Research ',
      description: 'R&D',
      isDefaultAccess: true,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      name: 'Research',
      description: 'R&D',
      organizationId: orgA.organizationId,
      created: expect.stringMatching(/Z$/),
      updated: expect.stringMatching(/Z$/),
      isDefaultAccess: true,
    });
    expect(presales).toMatchObject({ description: '', isDefaultAccess: false });
  });

  it('refuses duplicates in the organization, ignoring case, but not across organizations', async () => {
    expectProblem(await req('POST', '/api/v1/spaces', orgA.apiKey, { name: 'Sales' }), 409, 'CONFLICT');
    expectProblem(await req('POST', '/api/v1/spaces', orgA.apiKey, { name: 'sALES' }), 409, 'CONFLICT');
    // LIKE wildcards play no part in the comparison.
    await createSpace(orgA.apiKey, { name: 'Sale_' });
    await createSpace(orgA.apiKey, { name: 'S%' });
    await createSpace(orgB.apiKey, { name: 'Sales' });
  });

  it('is for organization administrators only and validates the body', async () => {
    expectProblem(await req('POST', '/api/v1/spaces', member.apiKey, { name: 'Mine' }), 403, 'FORBIDDEN');
    expectProblem(await req('POST', '/api/v1/spaces', null, { name: 'Mine' }), 401, 'UNAUTHENTICATED');
    expectBadRequest(await req('POST', '/api/v1/spaces', orgA.apiKey, {}));
    expectBadRequest(await req('POST', '/api/v1/spaces', orgA.apiKey, { name: '' }));
    expectBadRequest(await req('POST', '/api/v1/spaces', orgA.apiKey, { name: 'x', owner: 1 }));
    expectBadRequest(await req('POST', '/api/v1/spaces', orgA.apiKey, { name: 'x', isDefaultAccess: 'maybe' }));
  });
});

describe('POST /api/v1/spaces/{spaceId}/members', () => {
  it('adds a member, changes the role (upsert) and grants access accordingly', async () => {
    const space = await createSpace(orgA.apiKey, { name: 'Members only' });
    expectProblem(await req('GET', `/api/v1/spaces/${space.id}`, member.apiKey), 403, 'FORBIDDEN');

    const add = await req('POST', `/api/v1/spaces/${space.id}/members`, orgA.apiKey, {
      userId: member.userId,
      role: 'reader',
    });
    expect(add.statusCode).toBe(200);
    expect(add.json()).toEqual({ spaceId: space.id, userId: member.userId, role: 'reader' });
    expect((await req('GET', `/api/v1/spaces/${space.id}`, member.apiKey)).statusCode).toBe(200);
    const definition = { startUrl: 'https://example.com/', list: { selector: 'li', fields: [{ name: 'x' }] } };
    expectProblem(
      await req('POST', '/api/v1/agent', member.apiKey, { name: 'a', spaceId: space.id, definition }),
      403,
      'FORBIDDEN',
    );

    const promote = await req('POST', `/api/v1/spaces/${space.id}/members`, orgA.apiKey, {
      userId: member.userId,
      role: 'editor',
    });
    expect(promote.json()).toEqual({ spaceId: space.id, userId: member.userId, role: 'editor' });
    expect(
      (await req('POST', '/api/v1/agent', member.apiKey, { name: 'a', spaceId: space.id, definition })).statusCode,
    ).toBe(201);
    expect(await ctx.db.spaceMembership.count({ where: { spaceId: space.id } })).toBe(1);
  });

  it('answers 404 for users and Spaces of another organization, 403 for members, 400 for bad bodies', async () => {
    const url = `/api/v1/spaces/${sales.id}/members`;
    expectProblem(await req('POST', url, orgA.apiKey, { userId: orgB.userId, role: 'reader' }), 404, 'NOT_FOUND');
    expectProblem(await req('POST', url, orgA.apiKey, { userId: 999_999, role: 'reader' }), 404, 'NOT_FOUND');
    expectProblem(
      await req('POST', `/api/v1/spaces/${orgB.spaceId}/members`, orgA.apiKey, {
        userId: member.userId,
        role: 'reader',
      }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await req('POST', url, member.apiKey, { userId: member.userId, role: 'editor' }), 403, 'FORBIDDEN');
    expectBadRequest(await req('POST', url, orgA.apiKey, { userId: member.userId, role: 'owner' }));
    expectBadRequest(await req('POST', url, orgA.apiKey, { userId: member.userId }));
    expectBadRequest(
      await req('POST', '/api/v1/spaces/abc/members', orgA.apiKey, { userId: member.userId, role: 'reader' }),
    );
  });
});

describe('GET /api/v1/spaces and /spaces/{spaceId}', () => {
  it('lists every Space of the organization for an admin, by name', async () => {
    const res = await req('GET', '/api/v1/spaces', orgA.apiKey);
    expect(res.statusCode).toBe(200);
    const names = res.json().map((s: Json) => s.name);
    expect(names).toEqual(expect.arrayContaining(['Default', 'Presales', 'Sales', 'Sales EU']));
    const rows = await ctx.db.$queryRaw<
      Array<{ name: string }>
    >`SELECT "name" FROM "Space" WHERE "organizationId" = ${orgA.organizationId} ORDER BY "name", "id"`;
    expect(names).toEqual(rows.map((r) => r.name));
    expect(res.json().every((s: Json) => s.organizationId === orgA.organizationId)).toBe(true);
  });

  it('lists default-access Spaces and memberships for a member', async () => {
    const fresh = await req('POST', '/api/v1/users', orgA.apiKey, { email: 'fresh@example.com' });
    const key = (await req('POST', `/api/v1/users/${fresh.json().id}/api-keys`, orgA.apiKey, {})).json().key;
    await req('POST', `/api/v1/spaces/${salesEu.id}/members`, orgA.apiKey, { userId: fresh.json().id, role: 'reader' });
    const defaults = await ctx.db.space.findMany({
      where: { organizationId: orgA.organizationId, isDefaultAccess: true },
    });
    const names = (await req('GET', '/api/v1/spaces', key)).json().map((s: Json) => s.name);
    expect([...names].sort()).toEqual([...defaults.map((s) => s.name), 'Sales EU'].sort());
  });

  it('gets one Space, with 404 for another organization and 403 when unreachable', async () => {
    const res = await req('GET', `/api/v1/spaces/${salesEu.id}`, orgA.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(salesEu);
    expectProblem(await req('GET', `/api/v1/spaces/${salesEu.id}`, orgB.apiKey), 404, 'NOT_FOUND');
    expectProblem(await req('GET', '/api/v1/spaces/999999', orgA.apiKey), 404, 'NOT_FOUND');
    expectProblem(await req('GET', `/api/v1/spaces/${presales.id}`, member.apiKey), 403, 'FORBIDDEN');
    expectBadRequest(await req('GET', '/api/v1/spaces/1.5', orgA.apiKey));
    expectProblem(await req('GET', `/api/v1/spaces/${salesEu.id}`, null), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/v1/spaces/search', () => {
  it('prefers the exact case-insensitive match, then the first containing one by name', async () => {
    const find = async (name: string, key = orgA.apiKey) =>
      req('GET', `/api/v1/spaces/search?name=${encodeURIComponent(name)}`, key);
    expect((await find('sales')).json()).toEqual(sales);
    expect((await find('SALES eu')).json()).toEqual(salesEu);
    expect((await find('eu')).json()).toEqual(salesEu);
    // 'Presales' and 'Sale_' and 'Sales...' contain 'ale'; 'Presales' is first by name.
    expect((await find('ale')).json().name).toBe('Presales');
    expect((await find('_')).json().name).toBe('Sale_');
    expect((await find('%')).json().name).toBe('S%');
    expectProblem(await find('nothing like it'), 404, 'NOT_FOUND');
  });

  it('searches only Spaces the caller can read', async () => {
    const find = (name: string, key: string) =>
      req('GET', `/api/v1/spaces/search?name=${encodeURIComponent(name)}`, key);
    expect((await find('sales', orgB.apiKey)).json().organizationId).toBe(orgB.organizationId);
    expectProblem(await find('Presales', member.apiKey), 404, 'NOT_FOUND');
    expectProblem(await find('Presales', orgB.apiKey), 404, 'NOT_FOUND');
    expectBadRequest(await req('GET', '/api/v1/spaces/search', orgA.apiKey));
    expectBadRequest(await req('GET', '/api/v1/spaces/search?name=', orgA.apiKey));
  });
});

describe('GET /api/v1/spaces/{spaceId}/agents', () => {
  it('lists the SpaceAgents of a Space by name, archived ones hidden', async () => {
    const space = await createSpace(orgA.apiKey, { name: 'Catalogue' });
    const definition = { startUrl: 'https://example.com/', list: { selector: 'li', fields: [{ name: 'x' }] } };
    const invalid = { ...definition, export: { columns: [{ name: 'missing', required: true }] } };
    const mk = async (name: string, def: Json, configType = 1) => {
      const res = await req('POST', '/api/v1/agent', orgA.apiKey, {
        name,
        spaceId: space.id,
        description: `${name} desc`,
        configType,
        definition: def,
      });
      return res.json().id as number;
    };
    const b = await mk('Bravo', definition, 3);
    const a = await mk('Alpha', invalid);
    const gone = await mk('Archived', definition);
    await req('POST', `/api/v1/agent/${gone}/archive`, orgA.apiKey);
    await ctx.db.agent.update({ where: { id: b }, data: { status: 9 } });
    await req('POST', `/api/v1/spaces/${space.id}/members`, orgA.apiKey, { userId: member.userId, role: 'reader' });

    const res = await req('GET', `/api/v1/spaces/${space.id}/agents`, member.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: a,
        name: 'Alpha',
        description: 'Alpha desc',
        configType: 1,
        status: null,
        validationStatus: 2,
        lastActivity: expect.stringMatching(/Z$/),
      },
      {
        id: b,
        name: 'Bravo',
        description: 'Bravo desc',
        configType: 3,
        status: 9,
        validationStatus: 3,
        lastActivity: expect.stringMatching(/Z$/),
      },
    ]);
    expectProblem(await req('GET', `/api/v1/spaces/${space.id}/agents`, orgB.apiKey), 404, 'NOT_FOUND');
    expectProblem(await req('GET', `/api/v1/spaces/${presales.id}/agents`, member.apiKey), 403, 'FORBIDDEN');
    expectBadRequest(await req('GET', '/api/v1/spaces/x/agents', orgA.apiKey));
    expect((await req('GET', `/api/v1/spaces/${presales.id}/agents`, orgA.apiKey)).json()).toEqual([]);
  });
});
