// The committed migrations, applied by our own migrate command, produce exactly the database that
// Prisma's schema engine derives from schema.prisma; and they are recorded in `_prisma_migrations`
// the way `prisma migrate deploy` records them.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, listMigrations, migrate } from '../../src/db/migrate.js';
import { openSchemaEngine } from '../../src/db/schema-engine.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/db.js';

const created: TestDatabase[] = [];

// Constraints written by hand in a migration (Prisma's schema language cannot express them), by name.
const HAND_WRITTEN_CONSTRAINTS = ['CreditGrant_remaining_nonnegative', 'Organization_creditsLowThreshold_nonnegative'];
// Columns included in an index by hand in a migration (Prisma's schema language cannot say INCLUDE), by
// index name: apart from that clause the index is Prisma's.
const HAND_WRITTEN_INCLUDES: Record<string, string> = { AgentRecordState_pkey: ' INCLUDE ("valuesHash")' };
// Columns stored uncompressed by hand in a migration (Prisma's schema language cannot say STORAGE EXTERNAL).
const HAND_WRITTEN_EXTERNAL = [
  'RunChangeStage.keys',
  'RunChangeStage.listHashes',
  'RunChangeStage.values',
  'RunChangeStage.valuesHashes',
];
afterAll(async () => {
  for (const d of created) await d.drop();
});

async function catalog(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const columns = await c.query(`
      SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
             character_maximum_length, numeric_precision, numeric_scale, datetime_precision
      FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
      ORDER BY table_name, column_name`);
    const constraints = await c.query(`
      SELECT rel.relname AS table_name, con.conname, con.contype, pg_get_constraintdef(con.oid) AS def
      FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
      WHERE n.nspname = 'public' AND rel.relname <> '_prisma_migrations'
      ORDER BY 1, 2`);
    const indexes = await c.query(`
      SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1, 2`);
    const enums = await c.query(`
      SELECT t.typname, e.enumlabel FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid ORDER BY 1, e.enumsortorder`);
    const external = await c.query(`
      SELECT rel.relname || '.' || att.attname AS name FROM pg_attribute att
      JOIN pg_class rel ON rel.oid = att.attrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
      JOIN pg_type t ON t.oid = att.atttypid
      WHERE n.nspname = 'public' AND att.attnum > 0 AND NOT att.attisdropped AND att.attstorage <> t.typstorage
      ORDER BY 1`);
    return {
      columns: columns.rows,
      constraints: constraints.rows,
      indexes: indexes.rows,
      enums: enums.rows,
      storage: external.rows.map((r) => r.name as string),
    };
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  it("records each migration in _prisma_migrations with Prisma's checksum, and is idempotent", async () => {
    const db = await createEmptyDatabase();
    created.push(db);
    const first = await migrate(db.url);
    const files = listMigrations(defaultMigrationsDir);
    expect(first.applied).toEqual(files.map((f) => f.name));
    const again = await migrate(db.url);
    expect(again.applied).toEqual([]);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query(
      'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    await c.end();
    expect(rows).toHaveLength(files.length);
    rows.forEach((r, i) => {
      expect(r.migration_name).toBe(files[i].name);
      expect(r.checksum).toBe(files[i].checksum);
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.applied_steps_count).toBe(1);
      expect(r.rolled_back_at).toBeNull();
    });
    expect(fs.readFileSync(path.join(defaultMigrationsDir, 'migration_lock.toml'), 'utf8')).toContain(
      'provider = "postgresql"',
    );
  });

  it('produces exactly the database Prisma derives from schema.prisma', async () => {
    const migrated = await createEmptyDatabase();
    const reference = await createEmptyDatabase();
    created.push(migrated, reference);
    await migrate(migrated.url);
    const schema = fs.readFileSync(path.resolve('prisma/schema.prisma'), 'utf8');
    const engine = await openSchemaEngine(reference.url, schema);
    const sql = await engine.scriptFromEmpty();
    engine.close();
    const c = new pg.Client({ connectionString: reference.url });
    await c.connect();
    await c.query(sql);
    await c.end();
    const [a, b] = await Promise.all([catalog(migrated.url), catalog(reference.url)]);
    expect(a.columns.length).toBeGreaterThan(50);
    const handWritten = a.constraints.filter((c) => HAND_WRITTEN_CONSTRAINTS.includes(c.conname));
    expect(handWritten.map((c) => c.conname).sort()).toEqual([...HAND_WRITTEN_CONSTRAINTS].sort());
    a.constraints = a.constraints.filter((c) => !HAND_WRITTEN_CONSTRAINTS.includes(c.conname));
    for (const [name, clause] of Object.entries(HAND_WRITTEN_INCLUDES)) {
      const index = a.indexes.find((i) => i.indexname === name);
      expect(index?.indexdef.endsWith(clause)).toBe(true);
      index.indexdef = index.indexdef.slice(0, -clause.length);
      // A primary key's constraint says the same.
      const constraint = a.constraints.find((c) => c.conname === name);
      if (constraint) {
        expect(constraint.def.endsWith(clause)).toBe(true);
        constraint.def = constraint.def.slice(0, -clause.length);
      }
    }
    expect(a.storage).toEqual(HAND_WRITTEN_EXTERNAL);
    expect(b.storage).toEqual([]);
    a.storage = [];
    expect(a).toEqual(b);
  });
});
