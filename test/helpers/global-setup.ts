// Builds the migrated template database once before any test file, and after the run drops the
// run's databases and the template so nothing is left behind. A missing PostgreSQL or Redis stops
// the run here with one message instead of failing every test file.
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ADMIN_URL, dropRunDatabases, ensureTemplate } from './db.js';
import { buildForProcesses, removeBuild } from './process-build.js';
import { ensureS3Server, stopS3Server } from './s3-server.js';

const run = crypto.randomBytes(3).toString('hex');
let ready = false;
let s3Acquired = false;
let build: string | null = null;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Where each store is expected, for the message (no password shown). */
function shown(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

async function checkPostgres(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL is not reachable at ${shown(ADMIN_URL)} (${(err as Error).message}). Start it, or point TEST_DATABASE_ADMIN_URL at a server where this user may create databases.`;
  } finally {
    await c.end().catch(() => {});
  }
}

async function checkRedis(): Promise<string | null> {
  const r = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    retryStrategy: () => null,
  });
  let cause: Error | null = null;
  r.on('error', (err) => (cause ??= err));
  try {
    await r.connect();
    await r.ping();
    return null;
  } catch (err) {
    return `Redis is not reachable at ${shown(REDIS_URL)} (${(cause ?? (err as Error)).message}). Start it, or set REDIS_URL.`;
  } finally {
    r.disconnect();
  }
}

export async function setup() {
  const problems = (await Promise.all([checkPostgres(), checkRedis()])).filter((p): p is string => p !== null);
  if (problems.length) throw new Error(`The test suite needs PostgreSQL and Redis.\n${problems.join('\n')}`);
  // Test workers are forked after this and inherit the variable.
  process.env.CXS_TEST_RUN = run;
  s3Acquired = ensureS3Server();
  build = await buildForProcesses(run);
  process.env.CXS_TEST_BUILD = build;
  await ensureTemplate();
  ready = true;
}

export async function teardown() {
  if (ready) await dropRunDatabases(run);
  if (s3Acquired) stopS3Server();
  if (build) removeBuild(build);
}
