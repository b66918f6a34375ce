// Readiness of an API process (GET /health/ready): PostgreSQL and Redis answer, and every migration
// this build ships with is applied. The probes themselves belong to the data layer (db/health.ts).
import type { Redis } from 'ioredis';
import { probeMigrations, probeStores } from '../../db/health.js';
import type { Db } from '../../db/prisma.js';

export async function readiness(db: Db, redis: Pick<Redis, 'ping'>) {
  const [stores, migrations] = await Promise.all([probeStores(db, redis), probeMigrations(db)]);
  const checks = { ...stores, migrations };
  return { ok: checks.postgres === 'ok' && checks.redis === 'ok' && migrations === 'ok', checks };
}
