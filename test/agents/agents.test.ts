// One Agent through HTTP: create, read, update (versions), definition, restore, archive, input
// parameters, and the access rules of Spaces and roles on every route.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDefinitionSecrets } from '../../src/services/agents/definition-secrets.js';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let orgA: BootstrapResult;
let orgB: BootstrapResult;
let privateSpaceId: number;
let member: { userId: number; apiKey: string }; // member of org A, no membership of the private Space
let reader: { userId: number; apiKey: string }; // reader of the private Space
let editor: { userId: number; apiKey: string }; // editor of the private Space

type Json = Record<string, unknown>;

const definition = (over: Json = {}): Json => ({
  startUrl: 'https://example.com/list?q={{query}}',
  parameters: [
    { name: 'query', defaultValue: 'books' },
    { name: 'token', defaultValue: 's3cret', encrypted: true, description: 'API token' },
  ],
  list: { selector: '.item', fields: [{ name: 'title', selector: 'h2' }] },
  ...over,
});
// Semantically invalid: a required export column that no field produces.
const invalidDefinition = () => definition({ export: { format: 'csv', columns: [{ name: 'sku', required: true }] } });

function expectBadRequest(res: LightMyRequestResponse, errorCode = 'VALIDATION_FAILED'): Json {
  expect(res.statusCode).toBe(400);
  const body = res.json();
  expect(body).toEqual({
    statusCode: 400,
    statusDescription: 'Bad Request',
    message: expect.any(String),
    severity: 0,
    errorCode,
  });
  return body;
}

function expectProblem(res: LightMyRequestResponse, status: number, errorCode: string): Json {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.any(String),
    errorCode,
  });
  return body;
}

async function call(method: 'GET' | 'POST' | 'PUT', url: string, key: string | null, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: key ? auth(key) : {},
    ...(payload !== undefined && { payload: payload as Json }),
  });
}

async function newUser(adminKey: string, role: 'admin' | 'member' = 'member') {
  const email = `u-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await call('POST', '/api/v1/users', adminKey, { email, name: `User ${email}`, role });
  expect(user.statusCode).toBe(201);
  const key = await call('POST', `/api/v1/users/${user.json().id}/api-keys`, adminKey, {});
  expect(key.statusCode).toBe(201);
  return { userId: user.json().id as number, apiKey: key.json().key as string };
}

async function createAgent(key: string, body: Json) {
  const res = await call('POST', '/api/v1/agent', key, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json & { id: number; version: number };
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgA = await ctx.bootstrap({ org: 'Org A' });
  orgB = await ctx.bootstrap({ org: 'Org B' });
  const space = await call('POST', '/api/v1/spaces', orgA.apiKey, { name: 'Private', isDefaultAccess: false });
  expect(space.statusCode).toBe(201);
  privateSpaceId = space.json().id;
  member = await newUser(orgA.apiKey);
  reader = await newUser(orgA.apiKey);
  editor = await newUser(orgA.apiKey);
  for (const [u, role] of [
    [reader, 'reader'],
    [editor, 'editor'],
  ] as const) {
    const m = await call('POST', `/api/v1/spaces/${privateSpaceId}/members`, orgA.apiKey, { userId: u.userId, role });
    expect(m.statusCode).toBe(200);
  }
});
afterAll(async () => ctx?.close());

describe('POST /api/v1/agent', () => {
  it('creates version 1 with the full Agent model', async () => {
    const res = await call('POST', '/api/v1/agent', orgA.apiKey, {
      name: '  Books  ',
      spaceId: orgA.spaceId,
      description: 'Book prices',
      documentation: 'How it works',
      icon: 'book',
      image: 'aGVsbG8=',
      configType: 4,
      definition: definition(),
      comments: 'first',
    });
    expect(res.statusCode).toBe(201);
    const agent = res.json();
    expect(agent).toEqual({
      id: expect.any(Number),
      name: 'Books',
      description: 'Book prices',
      documentation: 'How it works',
      icon: 'book',
      image: 'aGVsbG8=',
      agentTemplates: '',
      configType: 4,
      inputParameters: { query: 'books', token: '********' },
      isActive: true,
      isArchived: false,
      lastActivity: expect.stringMatching(/Z$/),
      proxyPoolId: null,
      spaceId: orgA.spaceId,
      startUrl: 'https://example.com/list?q={{query}}',
      status: null,
      userId: orgA.userId,
      validationStatus: 3,
      version: 1,
      created: expect.stringMatching(/Z$/),
      updated: expect.stringMatching(/Z$/),
      problems: [],
    });
    const versions = await call('GET', `/api/v1/agent/${agent.id}/versions`, orgA.apiKey);
    expect(versions.json()).toEqual([
      {
        userName: orgA.email,
        version: 1,
        created: expect.any(String),
        comments: 'first',
        fileSize: Buffer.byteLength(JSON.stringify(definition())),
      },
    ]);
  });

  it('defaults configType to 1 and accepts property names in any case', async () => {
    const res = await call('POST', '/api/v1/agent', orgA.apiKey, {
      Name: 'Cased',
      SPACEID: orgA.spaceId,
      Definition: { StartUrl: 'https://example.com/', List: { Selector: 'li', Fields: [{ Name: 'x' }] } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'Cased',
      configType: 1,
      validationStatus: 3,
      startUrl: 'https://example.com/',
      inputParameters: {},
    });
  });

  it('refuses a structurally invalid definition with every problem in the message', async () => {
    const res = await call('POST', '/api/v1/agent', orgA.apiKey, {
      name: 'Broken',
      spaceId: orgA.spaceId,
      definition: { list: { fields: [] }, bogus: true },
    });
    const body = expectBadRequest(res);
    expect(body.message).toContain('definition.startUrl');
    expect(body.message).toContain('definition.list.selector');
    expect(body.message).toContain('definition.bogus');
    const count = await ctx.db.agent.count({ where: { name: 'Broken' } });
    expect(count).toBe(0);
  });

  it('saves a semantically invalid definition with validationStatus 2', async () => {
    const agent = await createAgent(orgA.apiKey, {
      name: 'Invalid one',
      spaceId: orgA.spaceId,
      definition: invalidDefinition(),
    });
    expect(agent.validationStatus).toBe(2);
    const doc = await call('GET', `/api/v1/agent/${agent.id}/definition`, orgA.apiKey);
    expect(doc.statusCode).toBe(200);
    expect(doc.json().validationStatus).toBe(2);
    expect(doc.json().problems.join(' ')).toMatch(/sku/);
    const row = await ctx.db.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row.validationStatus).toBe(2);
  });

  it('validates the body', async () => {
    expectBadRequest(await call('POST', '/api/v1/agent', orgA.apiKey, { name: 'x', spaceId: orgA.spaceId }));
    expectBadRequest(
      await call('POST', '/api/v1/agent', orgA.apiKey, {
        name: 'x',
        spaceId: orgA.spaceId,
        definition: definition(),
        extra: 1,
      }),
    );
    expectBadRequest(
      await call('POST', '/api/v1/agent', orgA.apiKey, {
        name: '   ',
        spaceId: orgA.spaceId,
        definition: definition(),
      }),
    );
    expectBadRequest(
      await call('POST', '/api/v1/agent', orgA.apiKey, {
        name: 'x',
        spaceId: orgA.spaceId,
        configType: 5,
        definition: definition(),
      }),
    );
    expectBadRequest(
      await call('POST', '/api/v1/agent', orgA.apiKey, { name: 'x', spaceId: 'one', definition: definition() }),
    );
    expectBadRequest(
      await call('POST', '/api/v1/agent', orgA.apiKey, {
        name: 'x',
        spaceId: orgA.spaceId,
        image: 'not base64!',
        definition: definition(),
      }),
    );
    const malformed = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/agent',
      headers: { ...auth(orgA.apiKey), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expectBadRequest(malformed, 'MALFORMED_JSON');
  });

  it('needs editor access to the Space', async () => {
    expectProblem(
      await call('POST', '/api/v1/agent', orgB.apiKey, { name: 'x', spaceId: orgA.spaceId, definition: definition() }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await call('POST', '/api/v1/agent', orgA.apiKey, { name: 'x', spaceId: 999_999, definition: definition() }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await call('POST', '/api/v1/agent', member.apiKey, {
        name: 'x',
        spaceId: privateSpaceId,
        definition: definition(),
      }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await call('POST', '/api/v1/agent', reader.apiKey, {
        name: 'x',
        spaceId: privateSpaceId,
        definition: definition(),
      }),
      403,
      'FORBIDDEN',
    );
    await createAgent(editor.apiKey, { name: 'By editor', spaceId: privateSpaceId, definition: definition() });
    // Every member can write a default-access Space.
    await createAgent(member.apiKey, { name: 'By member', spaceId: orgA.spaceId, definition: definition() });
    expectProblem(
      await call('POST', '/api/v1/agent', null, { name: 'x', spaceId: orgA.spaceId, definition: definition() }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('checks the proxy pool', async () => {
    const poolB = await ctx.db.proxyPool.create({
      data: { organizationId: orgB.organizationId, name: 'B pool', proxies: '' },
    });
    const poolA = await ctx.db.proxyPool.create({
      data: { organizationId: orgA.organizationId, name: 'A pool', proxies: '' },
    });
    expectProblem(
      await call('POST', '/api/v1/agent', orgA.apiKey, {
        name: 'x',
        spaceId: orgA.spaceId,
        proxyPoolId: poolB.id,
        definition: definition(),
      }),
      404,
      'NOT_FOUND',
    );
    const agent = await createAgent(orgA.apiKey, {
      name: 'Proxied',
      spaceId: orgA.spaceId,
      proxyPoolId: poolA.id,
      definition: definition(),
    });
    expect(agent.proxyPoolId).toBe(poolA.id);
    const cleared = await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { proxyPoolId: 0 });
    expect(cleared.json().proxyPoolId).toBeNull();
  });
});

describe('GET /api/v1/agent/{agentId}', () => {
  let publicAgent: number;
  let privateAgent: number;
  beforeAll(async () => {
    publicAgent = (await createAgent(orgA.apiKey, { name: 'Public', spaceId: orgA.spaceId, definition: definition() }))
      .id;
    privateAgent = (
      await createAgent(orgA.apiKey, { name: 'Secret', spaceId: privateSpaceId, definition: definition() })
    ).id;
  });

  it('answers the Agent to anyone who can read its Space', async () => {
    for (const key of [orgA.apiKey, member.apiKey, reader.apiKey]) {
      const res = await call('GET', `/api/v1/agent/${publicAgent}`, key);
      expect(res.statusCode).toBe(200);
      expect(res.json().id).toBe(publicAgent);
    }
    expect((await call('GET', `/api/v1/agent/${privateAgent}`, reader.apiKey)).json().name).toBe('Secret');
  });

  it('answers 403, 404, 400 and 401 as the access rules say', async () => {
    expectProblem(await call('GET', `/api/v1/agent/${privateAgent}`, member.apiKey), 403, 'FORBIDDEN');
    expectProblem(await call('GET', `/api/v1/agent/${privateAgent}`, orgB.apiKey), 404, 'NOT_FOUND');
    expectProblem(await call('GET', '/api/v1/agent/987654', orgA.apiKey), 404, 'NOT_FOUND');
    expectBadRequest(await call('GET', '/api/v1/agent/abc', orgA.apiKey));
    expectBadRequest(await call('GET', '/api/v1/agent/0', orgA.apiKey));
    expectProblem(await call('GET', `/api/v1/agent/${publicAgent}`, null), 401, 'UNAUTHENTICATED');
    expectProblem(await call('GET', `/api/v1/agent/${publicAgent}`, 'cx_not_a_key'), 401, 'UNAUTHENTICATED');
  });

  it('guards every Agent route the same way', async () => {
    const routes: Array<['GET' | 'POST' | 'PUT', string, unknown?]> = [
      ['PUT', '', { name: 'x' }],
      ['GET', '/definition'],
      ['GET', '/versions'],
      ['POST', '/version/1/restore', { content: 'x' }],
      ['POST', '/archive'],
      ['POST', '/unarchive'],
      ['GET', '/input-parameters'],
    ];
    for (const [method, suffix, body] of routes) {
      const url = `/api/v1/agent/${privateAgent}${suffix}`;
      expectProblem(await call(method, url, orgB.apiKey, body), 404, 'NOT_FOUND');
      expectProblem(await call(method, url, member.apiKey, body), 403, 'FORBIDDEN');
      expectProblem(await call(method, url, null, body), 401, 'UNAUTHENTICATED');
      expectBadRequest(await call(method, `/api/v1/agent/x${suffix}`, orgA.apiKey, body));
    }
    // Readers read but do not write.
    for (const [method, suffix, body] of routes) {
      const res = await call(method, `/api/v1/agent/${privateAgent}${suffix}`, reader.apiKey, body);
      if (method === 'GET') expect(res.statusCode).toBe(200);
      else expectProblem(res, 403, 'FORBIDDEN');
    }
  });
});

describe('PUT /api/v1/agent/{agentId} and versions', () => {
  it('edits fields without a new version and bumps lastActivity and updated', async () => {
    const agent = await createAgent(orgA.apiKey, { name: 'Editable', spaceId: orgA.spaceId, definition: definition() });
    await new Promise((r) => setTimeout(r, 5));
    const res = await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, {
      name: 'Edited',
      description: 'd',
      documentation: 'doc',
      icon: 'i',
    });
    expect(res.statusCode).toBe(200);
    const edited = res.json();
    expect(edited).toMatchObject({ name: 'Edited', description: 'd', documentation: 'doc', icon: 'i', version: 1 });
    expect(Date.parse(edited.lastActivity)).toBeGreaterThan(Date.parse(agent.lastActivity as string));
    expect(Date.parse(edited.updated)).toBeGreaterThan(Date.parse(agent.updated as string));
  });

  it('makes a new active version for a new definition; the largest is active', async () => {
    const agent = await createAgent(orgA.apiKey, {
      name: 'Versioned',
      spaceId: orgA.spaceId,
      definition: definition(),
      comments: 'v1',
    });
    const def2 = definition({
      startUrl: 'https://example.org/{{query}}',
      parameters: [{ name: 'query', defaultValue: 'news' }],
    });
    const res = await call('PUT', `/api/v1/agent/${agent.id}`, editor.apiKey, { definition: def2, comments: 'v2' });
    // The editor of the private Space is a plain member: the default Space is writable by all.
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      version: 2,
      startUrl: 'https://example.org/{{query}}',
      inputParameters: { query: 'news' },
      validationStatus: 3,
    });
    const v3 = await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, {
      definition: invalidDefinition(),
      comments: 'v3',
    });
    expect(v3.json()).toMatchObject({ version: 3, validationStatus: 2 });

    const versions = (await call('GET', `/api/v1/agent/${agent.id}/versions`, orgA.apiKey)).json();
    expect(versions.map((v: Json) => v.version)).toEqual([3, 2, 1]);
    expect(versions.map((v: Json) => v.comments)).toEqual(['v3', 'v2', 'v1']);
    expect(versions[1]).toMatchObject({
      userName: expect.stringContaining('User u-'),
      fileSize: Buffer.byteLength(JSON.stringify(def2)),
    });
    expect(versions[0].userName).toBe(orgA.email);

    const active = (await call('GET', `/api/v1/agent/${agent.id}/definition`, orgA.apiKey)).json();
    expect(active).toMatchObject({ agentId: agent.id, version: 3, validationStatus: 2 });
    const old = await call('GET', `/api/v1/agent/${agent.id}/definition?version=2`, orgA.apiKey);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toEqual({ agentId: agent.id, version: 2, validationStatus: 1, problems: [], definition: def2 });
    expectProblem(await call('GET', `/api/v1/agent/${agent.id}/definition?version=99`, orgA.apiKey), 404, 'NOT_FOUND');
    expectBadRequest(await call('GET', `/api/v1/agent/${agent.id}/definition?version=abc`, orgA.apiKey));
    expectBadRequest(await call('GET', `/api/v1/agent/${agent.id}/definition?version=0`, orgA.apiKey));
  });

  it('refuses a broken definition and an empty or unknown body without touching the Agent', async () => {
    const agent = await createAgent(orgA.apiKey, { name: 'Stable', spaceId: orgA.spaceId, definition: definition() });
    expectBadRequest(await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { definition: { startUrl: 42 } }));
    expectBadRequest(await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, {}));
    expectBadRequest(await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { colour: 'red' }));
    expectBadRequest(await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { name: '' }));
    expect((await call('GET', `/api/v1/agent/${agent.id}`, orgA.apiKey)).json().version).toBe(1);
  });

  it('masks encrypted defaults and keeps them when the masked definition is sent back', async () => {
    const inputs = [{ query: 'a', token: 'row-secret' }];
    const agent = await createAgent(orgA.apiKey, {
      name: 'Secretive',
      spaceId: orgA.spaceId,
      definition: definition({ inputs }),
    });
    const doc = (await call('GET', `/api/v1/agent/${agent.id}/definition`, orgA.apiKey)).json();
    expect(JSON.stringify(doc)).not.toMatch(/s3cret|row-secret/);
    expect(doc.definition.inputs).toEqual([{ query: 'a', token: '********' }]);
    expect(doc.definition.parameters[1]).toEqual({
      name: 'token',
      defaultValue: '********',
      encrypted: true,
      description: 'API token',
    });
    const res = await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, {
      definition: doc.definition,
      comments: 'round trip',
    });
    expect(res.json().version).toBe(2);
    const stored = await ctx.db.agentVersion.findUniqueOrThrow({
      where: { agentId_version: { agentId: agent.id, version: 2 } },
    });
    // Sealed at rest, and the same secrets as before once opened.
    expect(JSON.stringify(stored.definition)).not.toMatch(/s3cret|row-secret/);
    const opened = openDefinitionSecrets(stored.definition, ctx.config.encryptionKey) as {
      parameters: Json[];
      inputs: Json[];
    };
    expect(opened.parameters[1].defaultValue).toBe('s3cret');
    expect(opened.inputs).toEqual(inputs);
    const params = await call('GET', `/api/v1/agent/${agent.id}/input-parameters`, orgA.apiKey);
    expect(params.statusCode).toBe(200);
    expect(params.json()).toEqual([
      { name: 'query', encrypted: false, defaultValue: 'books', description: null },
      { name: 'token', encrypted: true, defaultValue: '********', description: 'API token' },
    ]);
  });

  it('gives concurrent saves consecutive versions', async () => {
    const agent = await createAgent(orgA.apiKey, { name: 'Busy', spaceId: orgA.spaceId, definition: definition() });
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { definition: definition(), comments: `c${n}` }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const versions = (await call('GET', `/api/v1/agent/${agent.id}/versions`, orgA.apiKey)).json();
    expect(versions.map((v: Json) => v.version)).toEqual([5, 4, 3, 2, 1]);
  });

  it('moves an Agent only with editor access to both Spaces', async () => {
    const agent = await createAgent(member.apiKey, { name: 'Mover', spaceId: orgA.spaceId, definition: definition() });
    expectProblem(
      await call('PUT', `/api/v1/agent/${agent.id}`, member.apiKey, { spaceId: privateSpaceId }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { spaceId: orgB.spaceId }),
      404,
      'NOT_FOUND',
    );
    const moved = await call('PUT', `/api/v1/agent/${agent.id}`, editor.apiKey, { spaceId: privateSpaceId });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().spaceId).toBe(privateSpaceId);
    // Now in the private Space: the member lost access, the reader can read but not move it back.
    expectProblem(await call('GET', `/api/v1/agent/${agent.id}`, member.apiKey), 403, 'FORBIDDEN');
    expectProblem(
      await call('PUT', `/api/v1/agent/${agent.id}`, reader.apiKey, { spaceId: orgA.spaceId }),
      403,
      'FORBIDDEN',
    );
  });
});

describe('POST /api/v1/agent/{agentId}/version/{version}/restore', () => {
  it('creates a NEW version holding the old definition, with content as comments', async () => {
    const agent = await createAgent(orgA.apiKey, {
      name: 'Restorable',
      spaceId: orgA.spaceId,
      definition: definition(),
    });
    await call('PUT', `/api/v1/agent/${agent.id}`, orgA.apiKey, { definition: invalidDefinition() });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/version/1/restore`,
      headers: { ...auth(orgA.apiKey), 'content-type': 'application/json' },
      payload: '{"content":"back to the first"}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: agent.id, version: 3, validationStatus: 3 });
    const versions = (await call('GET', `/api/v1/agent/${agent.id}/versions`, orgA.apiKey)).json();
    expect(versions[0]).toMatchObject({ version: 3, comments: 'back to the first', fileSize: versions[2].fileSize });
    const v3 = await ctx.db.agentVersion.findUniqueOrThrow({
      where: { agentId_version: { agentId: agent.id, version: 3 } },
    });
    expect(openDefinitionSecrets(v3.definition, ctx.config.encryptionKey)).toEqual(definition());

    const noBody = await call('POST', `/api/v1/agent/${agent.id}/version/2/restore`, orgA.apiKey);
    expect(noBody.json()).toMatchObject({ version: 4, validationStatus: 2 });
    expect((await call('GET', `/api/v1/agent/${agent.id}/versions`, orgA.apiKey)).json()[0].comments).toBe(
      'Restored from version 2',
    );

    expectProblem(
      await call('POST', `/api/v1/agent/${agent.id}/version/42/restore`, orgA.apiKey, { content: 'x' }),
      404,
      'NOT_FOUND',
    );
    expectBadRequest(await call('POST', `/api/v1/agent/${agent.id}/version/x/restore`, orgA.apiKey, { content: 'x' }));
    expectBadRequest(
      await call('POST', `/api/v1/agent/${agent.id}/version/1/restore`, orgA.apiKey, { content: 'x', other: 1 }),
    );
  });
});

describe('archive and unarchive', () => {
  it('hides an archived Agent, disables its Schedules and does not re-enable them', async () => {
    const agent = await createAgent(orgA.apiKey, {
      name: 'Archivable',
      spaceId: orgA.spaceId,
      definition: definition(),
    });
    const schedule = await ctx.db.schedule.create({
      data: {
        organizationId: orgA.organizationId,
        agentId: agent.id,
        name: 'nightly',
        scheduleType: 3,
        cronExpression: '0 3 * * *',
        isEnabled: true,
      },
    });
    const archived = await call('POST', `/api/v1/agent/${agent.id}/archive`, orgA.apiKey);
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ id: agent.id, isArchived: true });
    expect((await ctx.db.schedule.findUniqueOrThrow({ where: { id: schedule.id } })).isEnabled).toBe(false);
    const archivedAt = (await ctx.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).archivedAt;

    // Twice is fine, and still readable by id.
    const again = await call('POST', `/api/v1/agent/${agent.id}/archive`, orgA.apiKey);
    expect(again.statusCode).toBe(200);
    expect((await ctx.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).archivedAt).toEqual(archivedAt);
    expect((await call('GET', `/api/v1/agent/${agent.id}`, orgA.apiKey)).json().isArchived).toBe(true);

    const unarchived = await call('POST', `/api/v1/agent/${agent.id}/unarchive`, orgA.apiKey);
    expect(unarchived.statusCode).toBe(200);
    expect(unarchived.json()).toMatchObject({ id: agent.id, isArchived: false });
    expect((await ctx.db.schedule.findUniqueOrThrow({ where: { id: schedule.id } })).isEnabled).toBe(false);
    expect((await ctx.db.agent.findUniqueOrThrow({ where: { id: agent.id } })).archivedAt).toBeNull();
  });

  it('accepts the empty JSON body clients send on body-less POSTs', async () => {
    const agent = await createAgent(orgA.apiKey, {
      name: 'Empty body',
      spaceId: orgA.spaceId,
      definition: definition(),
    });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/archive`,
      headers: { ...auth(orgA.apiKey), 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().isArchived).toBe(true);
  });
});
