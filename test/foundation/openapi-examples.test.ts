// The OpenAPI description as a developer uses it: every registered route is documented with a
// description and a unique camelCase operationId (good names in generated clients), every request
// body has an example, and the server accepts each documented example as it stands. Routes added
// later are covered too: the list of routes comes from the running app, not from this file.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let doc: any;
let apiKey: string;
// The credentials the /oauth/token example uses.
const EXAMPLE_ADMIN = { org: 'Acme', email: 'admin@acme.test', password: 'change-me-please' };

beforeAll(async () => {
  ctx = await createTestContext();
  apiKey = (await ctx.bootstrap(EXAMPLE_ADMIN)).apiKey;
  doc = (await ctx.app.inject({ method: 'GET', url: '/swagger/v1/swagger.json' })).json();
});
afterAll(async () => ctx?.close());

/** Every route the app registered, from Fastify's own route tree (HEAD is implied by GET). */
function registeredRoutes(): Array<{ method: string; path: string }> {
  const tree = ctx.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    if (!m[3]) continue;
    const path = stack.join('');
    for (const method of m[3].split(', ')) if (method !== 'HEAD') routes.push({ method, path });
  }
  return routes;
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
// Swagger UI's own pages and assets, the document itself, and the web console's page and assets
// (served when it is built) are not API operations.
const isSwaggerUi = (path: string) => path.startsWith('/swagger') || path.startsWith('/console');

function operations(): Array<{ method: string; path: string; op: any }> {
  const out: Array<{ method: string; path: string; op: any }> = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

describe('OpenAPI operations', () => {
  it('documents every registered route', () => {
    const routes = registeredRoutes().filter((r) => !isSwaggerUi(r.path));
    expect(routes.length).toBeGreaterThan(30);
    for (const r of routes) {
      expect(
        doc.paths[toOpenApiPath(r.path)]?.[r.method.toLowerCase()],
        `${r.method} ${r.path} is missing from the OpenAPI description (hidden?)`,
      ).toBeDefined();
    }
  });

  it('gives every operation a description and a unique camelCase operationId', () => {
    const seen = new Map<string, string>();
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.summary, `${where}: summary`).toBeTruthy();
      expect(op.description?.trim().length, `${where}: description`).toBeGreaterThan(10);
      expect(op.operationId, `${where}: operationId`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(seen.get(op.operationId), `${where}: operationId ${op.operationId} also used by`).toBeUndefined();
      seen.set(op.operationId, where);
    }
  });

  it('gives every request body an example', () => {
    for (const { method, path, op } of operations()) {
      if (!op.requestBody) continue;
      for (const [type, media] of Object.entries<any>(op.requestBody.content)) {
        const examples =
          media.example !== undefined ? [media.example] : Object.values<any>(media.examples ?? {}).map((e) => e.value);
        expect(examples.length, `${method} ${path} ${type}: example`).toBeGreaterThan(0);
      }
    }
  });

  it('gives every error response an example of its shape', () => {
    for (const { method, path, op } of operations()) {
      for (const [code, response] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(code) || path === '/oauth/token' || path === '/health/ready') continue;
        const example = response.content?.['application/json']?.example;
        expect(example, `${method} ${path} ${code}`).toBeDefined();
        if (code === '400') expect(example).toMatchObject({ statusCode: 400, errorCode: expect.any(String) });
        else
          expect(example).toMatchObject({
            status: Number(code),
            errorCode: expect.any(String),
            title: expect.any(String),
          });
      }
    }
    expect(doc.components.schemas.ProblemDetails.example).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
    expect(doc.components.schemas.BadRequestError.example).toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION_FAILED',
    });
  });

  it('shows the AgentDefinition schema in the Agent create and update bodies', () => {
    for (const [path, method] of [
      ['/api/v1/agent', 'post'],
      ['/api/v1/agent/{agentId}', 'put'],
    ]) {
      const body = doc.paths[path][method].requestBody.content['application/json'].schema;
      expect(body.properties.definition.allOf, `${method} ${path}`).toEqual([
        { $ref: '#/components/schemas/AgentDefinition' },
      ]);
    }
    expect(doc.components.schemas.AgentDefinition.properties).toHaveProperty('startUrl');
  });

  it('says how to send an API key', () => {
    expect(doc.components.securitySchemes.ApiKey.description).toContain('ApiKey <key>');
  });

  it('stays valid OpenAPI 3 for an independent validator', async () => {
    await SwaggerParser.validate(structuredClone(doc));
  });
});

describe('documented request examples', () => {
  it('are accepted by the server (no 400, no 5xx)', async () => {
    // One Agent, so that paths naming an Agent, its version 1 or Space 1 reach a real resource.
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/agent',
      headers: auth(apiKey),
      payload: doc.paths['/api/v1/agent'].post.requestBody.content['application/json'].example,
    });
    expect(created.statusCode, created.body).toBe(201);
    const agentId = created.json().id;
    let sent = 0;
    for (const { method, path, op } of operations()) {
      if (!op.requestBody) continue;
      const url = path.replace(/\{(\w+)\}/g, (_, name) => (name === 'agentId' ? String(agentId) : '1'));
      for (const [type, media] of Object.entries<any>(op.requestBody.content)) {
        const examples =
          media.example !== undefined ? [media.example] : Object.values<any>(media.examples ?? {}).map((e) => e.value);
        for (const example of examples) {
          const payload =
            type === 'application/x-www-form-urlencoded'
              ? new URLSearchParams(example).toString()
              : JSON.stringify(example);
          const res = await ctx.app.inject({
            method: method as 'POST',
            url,
            headers: { ...auth(apiKey), 'content-type': type },
            payload,
          });
          expect(res.statusCode, `${method} ${path} (${type}) answered ${res.statusCode}: ${res.body}`).not.toBe(400);
          expect(res.statusCode, `${method} ${path} (${type}): ${res.body}`).toBeLessThan(500);
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(12);
  });
});
