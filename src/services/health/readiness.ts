// Readiness of an API process (GET /health/ready): PostgreSQL and Redis answer, and every migration
// this build ships with is applied, and the store of Run files can be written. The probes themselves belong to the data layer (db/health.ts).
import type { Redis } from 'ioredis';
import { probeMigrations, probeStores } from '../../db/health.js';
import type { Db } from '../../db/prisma.js';

export async function readiness(db: Db, redis: Pick<Redis, 'ping'>, storageWritable: () => Promise<boolean>) {
  const [stores, migrations, writable] = await Promise.all([
    probeStores(db, redis),
    probeMigrations(db),
    storageWritable(),
  ]);
  const checks = { ...stores, migrations, storage: writable ? ('ok' as const) : ('down' as const) };
  return { ok: checks.postgres === 'ok' && checks.redis === 'ok' && migrations === 'ok' && writable, checks };
}
