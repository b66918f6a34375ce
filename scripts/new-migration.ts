// Writes prisma/migrations/<timestamp>_<name>/migration.sql with Prisma's own SQL for the change from
// the committed schema.prisma (git HEAD, or nothing for the first migration) to the working copy,
// computed by the WASM schema engine. Usage: npm run db:new-migration -- <name>
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { defaultMigrationsDir } from '../src/db/migrate.js';
import { openSchemaEngine } from '../src/db/schema-engine.js';

const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]/gi, '_');
if (!name) {
  console.error('usage: npm run db:new-migration -- <name>');
  process.exit(1);
}
const schema = fs.readFileSync(path.resolve('prisma/schema.prisma'), 'utf8');
let previous: string | null = null;
try {
  previous = execFileSync('git', ['show', 'HEAD:prisma/schema.prisma'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
} catch {
  previous = null;
}
const hasMigrations =
  fs.existsSync(defaultMigrationsDir) && fs.readdirSync(defaultMigrationsDir).some((d) => /^\d{14}_/.test(d));
const engine = await openSchemaEngine(
  process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  schema,
);
const sql = hasMigrations && previous ? await engine.scriptBetween(previous) : await engine.scriptFromEmpty();
engine.close();
if (!sql.trim() || /empty migration/i.test(sql)) {
  console.error('schema.prisma has no change against the committed one; nothing written');
} else {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const dir = path.join(defaultMigrationsDir, `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
  console.error(`wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
}
