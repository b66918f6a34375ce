// Builds the real app against a per-file database and an isolated Redis key prefix, and gives
// tests helpers to create organizations, users and keys the way an operator would.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createPrisma, type Db } from '../../src/db/prisma.js';
import type { Clock } from '../../src/lib/clock.js';
import { bootstrapOrganization, type BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  db: Db;
  database: TestDatabase;
  env: Record<string, string>;
  close(): Promise<void>;
  bootstrap(
    input?: Partial<{ org: string; email: string; password: string; credits: number }>,
  ): Promise<BootstrapResult>;
}

export async function testConfig(
  env: Record<string, string> = {},
): Promise<{ config: Config; database: TestDatabase; env: Record<string, string> }> {
  const database = await createTestDatabase();
  // A test that brings its own storage folder gets no temporary one (it would be left behind, empty).
  const storageDir = env.STORAGE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-test-'));
  const fullEnv: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `cxs-test-${crypto.randomBytes(4).toString('hex')}`,
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
    STORAGE_DIR: storageDir,
    ENGINE_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    // Two cores are shared by every test file: one warm run process per worker is enough.
    RUN_WARM_PROCESSES: '1',
    // Tests are not throttled unless they set the limits they test (test/foundation/rate-limit.test.ts).
    RATE_LIMIT_MAX: '1000000',
    LOGIN_RATE_LIMIT_MAX: '1000000',
    // Nor shed: many apps share two busy cores here (test/foundation/rate-limit.test.ts turns it on).
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
    // Many processes run side by side: no metrics listener unless a test asks for one (on a free port).
    METRICS_PORT: '0',
    ...env,
  };
  return { config: loadConfig(fullEnv), database, env: fullEnv };
}

export async function clearRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export async function createTestContext(
  opts: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestContext> {
  const { config, database, env } = await testConfig(opts.env);
  const app = await buildApp(config, { clock: opts.clock, logger: false });
  await app.ready();
  const db = createPrisma(config.databaseUrl, { max: 3 });
  let n = 0;
  return {
    app,
    config,
    db,
    database,
    env,
    async bootstrap(input = {}) {
      n += 1;
      const tag = crypto.randomBytes(3).toString('hex');
      return bootstrapOrganization(db, {
        org: input.org ?? `Org ${n}`,
        email: input.email ?? `admin-${tag}@example.com`,
        password: input.password ?? 'correct horse battery',
        credits: input.credits ?? 1000,
        apiKeyDays: 365,
        now: new Date(),
      });
    },
    async close() {
      await app.close();
      await db.$disconnect();
      await clearRedisPrefix(config.redisUrl, config.redisPrefix);
      await database.drop();
      fs.rmSync(config.storageDir, { recursive: true, force: true });
    },
  };
}

export const auth = (key: string) => ({ authorization: `ApiKey ${key}` });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * JSON requests through `app.inject` with an API key: `caller` is read at each call, so a test file can
 * build its `inject` before `beforeAll` has made the app and the organization.
 */
export function jsonInjector(caller: () => { app: FastifyInstance; apiKey: string }) {
  return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, key = caller().apiKey) =>
    caller().app.inject({
      method,
      url,
      headers: { ...auth(key), 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}
