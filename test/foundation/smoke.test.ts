import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('smoke', () => {
  it('lists users with a bootstrap key', async () => {
    const org = await ctx.bootstrap();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(org.apiKey) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
  });
});
