// A unique violation is translated once, in the data layer (src/db/prisma.ts),
// into 409 CONFLICT for every repository, including inside transactions and under races.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UniqueViolationError } from '../../src/db/prisma.js';
import { createIdentityRepository } from '../../src/services/identity/identity.repository.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';

let ctx: TestContext;
let key: string;
let organizationId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const org = await ctx.bootstrap();
  key = org.apiKey;
  organizationId = org.organizationId;
});
afterAll(async () => ctx?.close());

describe('unique violations', () => {
  it('two concurrent proxy pools with one name: one 201, one 409 CONFLICT', async () => {
    const create = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/proxy-pools',
        headers: auth(key),
        payload: { name: 'Same', proxies: ['http://93.184.216.34:3128'] },
      });
    const results = await Promise.all([create(), create(), create()]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    for (const res of results.filter((r) => r.statusCode === 409)) {
      expect(expectProblem(res, 409, 'CONFLICT').detail).toBe(
        'A proxy pool with this name already exists in the organization.',
      );
    }
  });

  it('a taken email is 409 CONFLICT from the unique key', async () => {
    const create = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: auth(key),
        payload: { email: 'twice@example.com' },
      });
    expect((await create()).statusCode).toBe(201);
    expect(expectProblem(await create(), 409, 'CONFLICT').detail).toBe('A user with this email already exists.');
  });

  it('is translated inside a transaction too, for any repository', async () => {
    const repo = createIdentityRepository(ctx.db);
    const error = await repo
      .transaction(async (tx) => {
        await repo.createSpace({ organizationId, name: 'Dup', isDefaultAccess: false }, tx);
        await repo.createSpace({ organizationId, name: 'Dup', isDefaultAccess: false }, tx);
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect(error).toMatchObject({
      statusCode: 409,
      errorCode: 'CONFLICT',
      message: 'A space with this name already exists in the organization.',
    });
  });
});
