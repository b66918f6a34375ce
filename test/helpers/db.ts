// Each test file gets its own PostgreSQL database, cloned from a template that the committed
// migrations built once (by our own migrate command), and dropped when the file ends.
import crypto from 'node:crypto';
import pg from 'pg';
import { defaultMigrationsDir, listMigrations, migrate } from '../../src/db/migrate.js';

export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export function dbUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The template belongs to one test run (its name carries the run id and a digest of the
 * migrations), so a run never drops or clones another concurrent run's template.
 */
export function templateName(): string {
  const digest = crypto.createHash('sha256');
  for (const m of listMigrations(defaultMigrationsDir)) digest.update(m.name).update(m.checksum);
  return `cxs_test_tpl_${runId()}_${digest.digest('hex').slice(0, 12)}`;
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Builds the migrated template if it is missing (serialized across processes by an advisory lock). */
export async function ensureTemplate(): Promise<string> {
  const name = templateName();
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock(424242)');
    try {
      const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) {
        await c.query(`CREATE DATABASE ${name}`);
        try {
          await migrate(dbUrl(name));
        } catch (err) {
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          throw err;
        }
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(424242)');
    }
  });
  return name;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Set by the global setup so a run's teardown drops only its own databases. */
const runId = () => process.env.CXS_TEST_RUN ?? 'adhoc';

function newName(): string {
  return `cxs_test_${runId()}_${crypto.randomBytes(4).toString('hex')}`;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = await ensureTemplate();
  const name = newName();
  await withAdmin(async (c) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (err) {
        // Two clones starting at once may see each other on the template; try again shortly.
        if (attempt < 20 && /being accessed by other users/.test((err as Error).message)) {
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
          continue;
        }
        throw err;
      }
    }
  });
  return {
    name,
    url: dbUrl(name),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A fresh empty database (for migration tests). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = newName();
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: dbUrl(name),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Drops the databases of one run (and its template), after the whole suite; never another run's. */
export async function dropRunDatabases(run: string): Promise<void> {
  await withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2',
      [`cxs_test_${run}\\_%`, `cxs_test_tpl_${run}\\_%`],
    );
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  });
}
