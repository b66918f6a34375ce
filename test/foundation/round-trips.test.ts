// The hot reads cost one database statement each, and no Redis command, once the caller's credential
// is cached: the credential comes from the per-instance cache (trusted under the credentials epoch
// the instance holds from its subscription), the rate-limit step from the budget's batch, and the
// resource is read together with the caller's access to it. Counted at the PostgreSQL and Redis
// protocols (proxies in front of both), so any extra query or command, however issued, fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import type { FastifyInstance } from 'fastify';
import { createRunsRepository } from '../../src/services/runs/runs.repository.js';
import { auth, bearer, createTestContext, type TestContext } from '../helpers/app.js';
import { manualRunInput } from '../helpers/run-input.js';
import { catalogDefinition } from '../helpers/runs.js';
import {
  startRedisCommandCounter,
  startStatementCounter,
  type StatementCounter,
} from '../helpers/statement-counter.js';

let ctx: TestContext;
let counter: StatementCounter;
let redisCounter: StatementCounter;
let app: FastifyInstance;
let admin: Awaited<ReturnType<TestContext['bootstrap']>>;
let memberKey: string;
let agentId: number;
let privateAgentId: number;
let runId: number;
let token: string;

async function call(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) {
  return app.inject({ method, url, headers, payload: payload as object });
}

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.bootstrap({ password: 'correct horse battery' });
  counter = await startStatementCounter(ctx.config.databaseUrl);
  redisCounter = await startRedisCommandCounter(ctx.config.redisUrl);
  app = await buildApp({ ...ctx.config, databaseUrl: counter.url, redisUrl: redisCounter.url }, { logger: false });
  await app.ready();
  const definition = catalogDefinition('http://127.0.0.1:9');
  const created = await call('POST', '/api/v1/agent', auth(admin.apiKey), {
    name: 'Counted',
    spaceId: admin.spaceId,
    definition,
  });
  expect(created.statusCode, created.body).toBe(201);
  agentId = created.json().id;
  const space = await call('POST', '/api/v1/spaces', auth(admin.apiKey), { name: 'Private', isDefaultAccess: false });
  const hidden = await call('POST', '/api/v1/agent', auth(admin.apiKey), {
    name: 'Hidden',
    spaceId: space.json().id,
    definition,
  });
  privateAgentId = hidden.json().id;
  const member = await call('POST', '/api/v1/users', auth(admin.apiKey), {
    email: 'member-rt@example.com',
    name: 'Member',
    role: 'member',
  });
  memberKey = (await call('POST', `/api/v1/users/${member.json().id}/api-keys`, auth(admin.apiKey), {})).json().key;
  runId = (await createRunsRepository(ctx.db).createRun(manualRunInput(admin.organizationId, agentId), new Date())).id;
  const login = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'password', username: admin.email, password: 'correct horse battery' },
  });
  token = login.json().access_token;
});
afterAll(async () => {
  await app?.close();
  await counter?.close();
  await redisCounter?.close();
  await ctx?.close();
});

/**
 * Statements a request costs once its credential is cached and its budget has a batch (the first
 * requests cache the one and take the other). It must send no Redis command at all.
 */
async function statementsOf(url: string, headers: Record<string, string>, expectStatus = 200) {
  // Batches double (1, 2, 4, 8): after 8 requests the budget holds a batch with slots left.
  for (let i = 0; i < 8; i++) expect((await call('GET', url, headers)).statusCode).toBe(expectStatus);
  const before = counter.count();
  const redisBefore = redisCounter.count();
  const res = await call('GET', url, headers);
  expect(res.statusCode, res.body).toBe(expectStatus);
  expect(redisCounter.count() - redisBefore, 'Redis commands').toBe(0);
  return counter.count() - before;
}

describe('one database statement per authenticated read', () => {
  it.each([
    ['ApiKey', () => auth(admin.apiKey)],
    ['Bearer', () => bearer(token)],
  ])('GET /agent/{id} with %s', async (_scheme, headers) => {
    expect(await statementsOf(`/api/v1/agent/${agentId}`, headers())).toBe(1);
  });

  it.each([
    ['ApiKey', () => auth(admin.apiKey)],
    ['Bearer', () => bearer(token)],
  ])('GET /agent/{id}/run/{runId}/status with %s', async (_scheme, headers) => {
    expect(await statementsOf(`/api/v1/agent/${agentId}/run/${runId}/status`, headers())).toBe(1);
  });

  it('a member is answered, and refused a Space they cannot reach, with one statement too', async () => {
    expect(await statementsOf(`/api/v1/agent/${agentId}`, auth(memberKey))).toBe(1);
    expect(await statementsOf(`/api/v1/agent/${privateAgentId}`, auth(memberKey), 403)).toBe(1);
    expect(await statementsOf(`/api/v1/agent/${privateAgentId}/run/${runId}/status`, auth(memberKey), 403)).toBe(1);
    expect(await statementsOf(`/api/v1/agent/${agentId}/run/${runId + 1000}/status`, auth(memberKey), 404)).toBe(1);
  });
});

describe('Db.$rows (statements run on the pool, bypassing Prisma)', () => {
  it('a prepared read whose table changed shape under the running instance is prepared again, not failed', async () => {
    const url = `/api/v1/agent/${agentId}/run/${runId}/status`;
    expect((await call('GET', url, auth(admin.apiKey))).statusCode).toBe(200);
    // "cached plan must not change result type" on every pooled connection that prepared it.
    await ctx.db.$executeRawUnsafe('ALTER TABLE "Run" ADD COLUMN "shapeProbe" integer');
    try {
      for (let i = 0; i < 30; i++) expect((await call('GET', url, auth(admin.apiKey))).statusCode).toBe(200);
    } finally {
      await ctx.db.$executeRawUnsafe('ALTER TABLE "Run" DROP COLUMN "shapeProbe"');
    }
    for (let i = 0; i < 30; i++) expect((await call('GET', url, auth(admin.apiKey))).statusCode).toBe(200);
  });

  it('returns the values Prisma returns: UTC timestamps, int8 as BigInt, numeric as Decimal, json parsed, nulls', async () => {
    await ctx.db.run.update({
      where: { id: runId },
      data: {
        traffic: 12_345_678_901n,
        evidence: { statuses: { '200': 3 } },
        startTime: new Date('2026-03-29T01:30:00.123Z'),
      },
    });
    const [raw] = await ctx.db.$rows<Record<string, unknown>>(Prisma.sql`SELECT * FROM "Run" WHERE "id" = ${runId}`);
    const orm = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(raw).toEqual(orm);
    expect(raw.traffic).toBe(12_345_678_901n);
    expect((raw.startTime as Date).toISOString()).toBe('2026-03-29T01:30:00.123Z');
    const [grantRaw] = await ctx.db.$rows<Record<string, unknown>>(
      Prisma.sql`SELECT * FROM "CreditGrant" WHERE "organizationId" = ${admin.organizationId} ORDER BY "id" LIMIT 1`,
    );
    const grant = await ctx.db.creditGrant.findFirstOrThrow({
      where: { organizationId: admin.organizationId },
      orderBy: { id: 'asc' },
    });
    expect(grantRaw).toEqual(grant);
    expect(String(grantRaw.amount)).toBe(String(grant.amount));
  });
});
