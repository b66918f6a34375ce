// Db.$rawTransaction sends BEGIN with the first statement and COMMIT with the one marked `last`, in
// the same round trips (src/db/transaction-edges.ts). Counted at the PostgreSQL protocol through a
// proxy; what commits and what rolls back is read back from another connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, UniqueViolationError, type Db } from '../../src/db/prisma.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { startStatementCounter, type PgCounter } from '../helpers/statement-counter.js';

let ctx: TestContext;
let counter: PgCounter;
let db: Db;

beforeAll(async () => {
  ctx = await createTestContext();
  counter = await startStatementCounter(ctx.config.databaseUrl);
  db = createPrisma(counter.url, { max: 1 });
  // A deferred unique constraint fails at COMMIT, not at the statement.
  await ctx.db.$executeRawUnsafe(
    'CREATE TABLE edge_probe (id int PRIMARY KEY, v int, CONSTRAINT edge_probe_v UNIQUE (v) DEFERRABLE INITIALLY DEFERRED)',
  );
});
afterAll(async () => {
  await db?.$disconnect();
  await counter?.close();
  await ctx?.close();
});

const insert = (id: number, v = id) =>
  Prisma.sql`INSERT INTO edge_probe (id, v) VALUES (${id}::int, ${v}::int) RETURNING id`;
const ids = async () =>
  (await ctx.db.$queryRawUnsafe<Array<{ id: number }>>('SELECT id FROM edge_probe ORDER BY id')).map((r) => r.id);

async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; roundTrips: number }> {
  const before = counter.roundTrips();
  const result = await fn();
  return { result, roundTrips: counter.roundTrips() - before };
}

describe('Db.$rawTransaction', () => {
  it('sends BEGIN with the first statement and COMMIT with the last: one round trip per statement', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const { result, roundTrips } = await counted(() =>
      db.$rawTransaction(async (tx) => {
        const a = await tx.rows<{ id: number }>(insert(1));
        const b = await tx.rows<{ id: number }>(insert(2));
        const c = await tx.rows<{ id: number }>(insert(3), { last: true });
        return [a, b, c];
      }),
    );
    // Each statement's own rows, none of BEGIN's or COMMIT's.
    expect(result).toEqual([[{ id: 1 }], [{ id: 2 }], [{ id: 3 }]]);
    expect(roundTrips).toBe(3);
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('commits in a round trip of its own when no statement is marked last', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const { roundTrips } = await counted(() =>
      db.$rawTransaction(async (tx) => {
        await tx.rows(insert(1));
        await tx.rows(insert(2));
      }),
    );
    expect(roundTrips).toBe(3);
    expect(await ids()).toEqual([1, 2]);
  });

  it('a single statement marked last is the whole transaction in one round trip', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const { roundTrips } = await counted(() => db.$rawTransaction((tx) => tx.rows(insert(7), { last: true })));
    expect(roundTrips).toBe(1);
    expect(await ids()).toEqual([7]);
  });

  it('rolls back everything when a later statement fails, and the connection stays usable', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(insert(1));
        await tx.rows(insert(1), { last: true }); // duplicate primary key
      }),
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
    await db.$rawTransaction((tx) => tx.rows(insert(2), { last: true }));
    expect(await ids()).toEqual([2]);
  });

  it('rolls back when the first statement (which carries BEGIN) fails', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(Prisma.sql`INSERT INTO edge_probe (id, v) VALUES (1, 1), (1, 2)`);
      }),
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
    await db.$rawTransaction((tx) => tx.rows(insert(3), { last: true }));
    expect(await ids()).toEqual([3]);
  });

  it('fails, with nothing committed, when the COMMIT sent with the last statement fails', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(insert(1, 5));
        await tx.rows(insert(2, 5), { last: true }); // the deferred unique check fails at COMMIT
      }),
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
  });

  it('keeps an unprepared first statement (over 128 parameters) inside the transaction', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const many = Array.from({ length: 150 }, (_, i) => Prisma.sql`(${i + 100}::int, ${i + 100}::int)`);
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(Prisma.sql`INSERT INTO edge_probe (id, v) VALUES ${Prisma.join(many)}`);
        await tx.rows(insert(100, 1), { last: true }); // duplicate primary key
      }),
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
    await db.$rawTransaction(async (tx) => {
      await tx.rows(Prisma.sql`INSERT INTO edge_probe (id, v) VALUES ${Prisma.join(many)}`, { last: true });
    });
    expect((await ids()).length).toBe(150);
  });

  it('refuses a statement after the last one, and what was committed stays', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(insert(1), { last: true });
        await tx.rows(insert(2));
      }),
    ).rejects.toThrow(/after the transaction committed/);
    expect(await ids()).toEqual([1]);
  });

  it("sends the statements given as `before` in the same round trip, and returns only the last one's rows", async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const { result, roundTrips } = await counted(() =>
      db.$rawTransaction((tx) =>
        tx.rows<{ id: number }>(Prisma.sql`SELECT id FROM edge_probe ORDER BY id`, {
          before: [insert(1), insert(2), Prisma.sql`SELECT 42 AS answer`],
          last: true,
        }),
      ),
    );
    expect(result).toEqual([{ id: 1 }, { id: 2 }]);
    expect(roundTrips).toBe(1);
    expect(await ids()).toEqual([1, 2]);
    // Prepared once on the connection (PostgreSQL plans it once): the same text again uses the same name.
    await db.$rawTransaction((tx) => tx.rows(Prisma.sql`SELECT 1`, { before: [insert(3)], last: true }));
    const prepared = await db.$rawTransaction((tx) =>
      tx.rows<{ statement: string }>(
        Prisma.sql`SELECT statement FROM pg_prepared_statements WHERE name LIKE ${'edge-q%'}`,
        { last: true },
      ),
    );
    expect(prepared.filter((p) => p.statement.includes('INSERT INTO edge_probe'))).toHaveLength(1);
  });

  it('a `before` statement that waits for a lock lets the next one see what committed meanwhile', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await ctx.db.$executeRawUnsafe('INSERT INTO edge_probe (id, v) VALUES (1, 10)');
    // Another transaction holds the row's lock and changes it; ours waits in its `before` statement.
    let release: () => void = () => {};
    const released = new Promise<void>((r) => (release = r));
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const other = ctx.db.$transaction(async (t) => {
      await t.$executeRawUnsafe('SELECT id FROM edge_probe WHERE id = 1 FOR UPDATE');
      await t.$executeRawUnsafe('UPDATE edge_probe SET v = 11 WHERE id = 1');
      locked();
      await released;
    });
    await isLocked;
    const ours = db.$rawTransaction((tx) =>
      tx.rows<{ v: number }>(Prisma.sql`SELECT v FROM edge_probe WHERE id = 1`, {
        before: [Prisma.sql`SELECT id FROM edge_probe WHERE id = ${1}::int FOR UPDATE`],
        last: true,
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    release();
    await other;
    expect(await ours).toEqual([{ v: 11 }]);
  });

  it('rolls back, and fails with its error, when a `before` statement fails', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction(async (tx) => {
        await tx.rows(insert(1));
        await tx.rows(insert(3), { before: [insert(2), insert(1)], last: true }); // duplicate primary key
      }),
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
    await db.$rawTransaction((tx) => tx.rows(insert(4), { before: [insert(5)], last: true }));
    expect(await ids()).toEqual([4, 5]);
  });

  it('sends the statements given as `after` in the same round trip, before the COMMIT, and returns only its own rows', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    const { result, roundTrips } = await counted(() =>
      db.$rawTransaction((tx) =>
        tx.rows<{ id: number }>(insert(1), {
          before: [insert(2)],
          after: [insert(3), Prisma.sql`SELECT id, v FROM edge_probe ORDER BY id`],
          last: true,
        }),
      ),
    );
    // The statement's own row: none of the `after` statements' rows (one of them returns three).
    expect(result).toEqual([{ id: 1 }]);
    expect(roundTrips).toBe(1);
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('rolls back, and fails with its error, when an `after` statement fails (after its own rows came)', async () => {
    await ctx.db.$executeRawUnsafe('DELETE FROM edge_probe');
    await expect(
      db.$rawTransaction((tx) => tx.rows(insert(1), { after: [insert(2), insert(1)], last: true })), // duplicate key
    ).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await ids()).toEqual([]);
    // The connection goes on, with the same statements.
    await db.$rawTransaction((tx) => tx.rows(insert(1), { after: [insert(2)], last: true }));
    expect(await ids()).toEqual([1, 2]);
  });
});
