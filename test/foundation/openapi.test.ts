// The live OpenAPI description is valid OpenAPI 3 (checked by an independent validator) and
// documents every route with its error responses.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let doc: any;
beforeAll(async () => {
  ctx = await createTestContext();
  const res = await ctx.app.inject({ method: 'GET', url: '/swagger/v1/swagger.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => ctx?.close());

describe('OpenAPI description', () => {
  it('is valid OpenAPI 3 titled with version v1', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('v1');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('declares both security schemes', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('names the model and error schemas', () => {
    for (const name of ['ProblemDetails', 'BadRequestError', 'ErrorCode', 'User', 'ApiKey', 'CreatedApiKey']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    expect(doc.components.schemas.ErrorCode.anyOf ?? doc.components.schemas.ErrorCode.enum).toBeDefined();
  });

  it('documents every /api route with a summary, a tag, a success and its error responses', () => {
    const ops: Array<[string, string, any]> = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) ops.push([method, path, op]);
    }
    const apiOps = ops.filter(([, p]) => p.startsWith('/api/'));
    expect(apiOps.length).toBeGreaterThan(0);
    for (const [method, path, op] of apiOps) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const codes = Object.keys(op.responses);
      expect(
        codes.some((c) => c.startsWith('2')),
        where,
      ).toBe(true);
      expect(codes, where).toContain('401');
      expect(codes, where).toContain('429');
      for (const c of codes.filter((c) => /^[45]/.test(c))) {
        const schema = op.responses[c].content?.['application/json']?.schema;
        const ref = schema?.$ref ?? '';
        expect(ref, `${where} ${c}`).toMatch(c === '400' ? /BadRequestError$/ : /ProblemDetails$/);
      }
    }
  });

  it('redirects /swagger to /swagger/, whose page and assets load', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/swagger' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/swagger/');
    const page = await ctx.app.inject({ method: 'GET', url: '/swagger/' });
    for (const src of page.body.match(/src="\.\/([^"]+)"/g) ?? []) {
      const asset = await ctx.app.inject({ method: 'GET', url: `/swagger/${src.slice(7, -1)}` });
      expect(asset.statusCode, src).toBe(200);
    }
  });

  it('serves the Swagger UI at /swagger', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/swagger/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });
});
