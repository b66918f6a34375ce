// The change-tracking statements a Run's keys go through (changes.repository.ts) against PostgreSQL: a
// lookup answers each key's last values hash in the order asked (null for a key the Agent does not
// know, and for another Agent's key), and a key that is not a base64url hash is refused before any
// statement (the keys travel as one comma-joined text).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createAgent, startRun } from '../helpers/runs.js';
import { recordKeyOf, valuesHashOf } from '../../src/engine/index.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { createChangesRepository } from '../../src/services/changes/changes.repository.js';

let ctx: TestContext;
let runId: number;
let agentId: number;
const key = (sku: string) => recordKeyOf({ sku }, ['sku'])!;
const definition = {
  startUrl: 'http://127.0.0.1:9/list',
  list: {
    selector: 'li',
    fields: [
      { name: 'sku', selector: '.sku' },
      { name: 'price', selector: '.price' },
    ],
  },
  key: ['sku'],
  changes: { export: 'changed', trackDeletes: false },
};

beforeAll(async () => {
  ctx = await createTestContext();
  const org = await ctx.bootstrap({ org: 'Lookups' });
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition, 'Tracked');
  const other = await createAgent(ctx.app, org.apiKey, org.spaceId, definition, 'Other');
  runId = await startRun(ctx.app, org.apiKey, agent.id);
  agentId = agent.id;
  const seed = (agentId: number, sku: string, valuesHash: string) =>
    ctx.db.$executeRaw(Prisma.sql`
      INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "changedRunId")
      VALUES (${agentId}::int, ${key(sku)}, ${valuesHash}, ${valuesHash}, '{}'::jsonb, 0, 0)`);
  await seed(agent.id, 'A1', 'hashA1');
  await seed(agent.id, 'B2', 'hashB2');
  await seed(other.id, 'C3', 'hashC3');
});
afterAll(() => ctx?.close());

describe('change-tracking lookups', () => {
  it("answers each key's last values hash in the order asked, null for a key the Agent does not know", async () => {
    const repo = createChangesRepository(ctx.db);
    expect(await repo.lookup(runId, [key('B2'), key('Z9'), key('A1'), key('C3')])).toEqual([
      'hashB2',
      null,
      'hashA1',
      null,
    ]);
    expect(await repo.lookup(runId, [key('Z9')])).toEqual([null]);
  });

  it('refuses a key that is not a base64url hash, before any statement', async () => {
    const repo = createChangesRepository(ctx.db);
    await expect(repo.lookup(runId, [key('A1'), 'a,b'])).rejects.toThrow(/outside base64url/);
    await expect(repo.lookup(runId, [''])).rejects.toThrow(/outside base64url/);
  });
});

describe('staged records merged into the state', () => {
  it('keeps a value holding U+0000 (jsonb cannot) with U+FFFD in its place, and an escaped backslash as it is', async () => {
    // No worker runs in this file: the Run stays queued, and what is staged here is settled by hand.
    const repo = createChangesRepository(ctx.db);
    await repo.begin(runId, false);
    const records = [
      { sku: 'N1', price: 'x\u0000y' },
      { sku: 'N2', price: 'a backslash and u0000: \\u0000' },
    ];
    await repo.stage(runId, {
      batch: 1,
      keys: records.map((r) => key(r.sku)),
      valuesHashes: records.map((r) => valuesHashOf(r, ['price'])),
      listHashes: records.map((r) => valuesHashOf(r, ['price'])),
      values: records.map((r) => JSON.stringify(r)),
    });
    await ctx.db.$executeRaw`UPDATE "RunChangeTracking" SET succeeded = true WHERE "runId" = ${runId}`;
    await repo.mergeSettled(runId);
    const rows = await ctx.db.$queryRaw<Array<{ keyHash: string; values: { price: string } }>>`
      SELECT "keyHash", "values" FROM "AgentRecordState" WHERE "agentId" = ${agentId} AND "keyHash" IN (${key('N1')}, ${key('N2')})`;
    const price = (sku: string) => rows.find((r) => r.keyHash === key(sku))?.values.price;
    expect(price('N1')).toBe('x\ufffdy');
    expect(price('N2')).toBe('a backslash and u0000: \\u0000');
    expect(await repo.lookup(runId, [key('N1')])).toEqual([valuesHashOf(records[0], ['price'])]);
  });
});
