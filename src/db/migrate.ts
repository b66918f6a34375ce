// Applies the committed SQL migrations under prisma/migrations and records them in
// `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, same SHA-256 checksum of
// migration.sql), so a deployment with the native engine agrees with what we applied.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

// Prisma takes this advisory lock around migrations; sharing it keeps both tools from racing.
const PRISMA_ADVISORY_LOCK = 72707369;

export interface MigrationFileInfo {
  name: string;
  sql: string;
  checksum: string;
}

export function listMigrations(dir: string): MigrationFileInfo[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

export const defaultMigrationsDir = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../prisma/migrations',
);

export async function migrate(
  databaseUrl: string,
  opts: { dir?: string; log?: (msg: string) => void } = {},
): Promise<{ applied: string[] }> {
  const dir = opts.dir ?? defaultMigrationsDir;
  const log = opts.log ?? (() => {});
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed) {
      throw new Error(
        `migration ${failed.migration_name} failed earlier and must be resolved by hand before migrating again`,
      );
    }
    const done = new Map(
      rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => [r.migration_name, r.checksum]),
    );
    const applied: string[] = [];
    for (const m of listMigrations(dir)) {
      const prior = done.get(m.name);
      if (prior) {
        if (prior !== m.checksum) log(`warning: migration ${m.name} was modified after it was applied`);
        continue;
      }
      const id = crypto.randomUUID();
      await client.query(
        'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
        [id, m.checksum, m.name],
      );
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [
          id,
          String((err as Error).message),
        ]);
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [
        id,
      ]);
      applied.push(m.name);
      log(`applied migration ${m.name}`);
    }
    return { applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]).catch(() => {});
    await client.end();
  }
}
