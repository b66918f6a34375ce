// Readiness probes of the stores, for /health/ready.
import type { Redis } from 'ioredis';
import { isSchemaMissing } from './failures.js';
import { defaultMigrationsDir, listMigrations } from './migrate.js';
import type { Db } from './prisma.js';

export type ProbeResult = 'ok' | 'down';
export type MigrationsProbe = 'ok' | 'pending' | 'down';

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), ms))]);

export async function probeStores(
  db: Db,
  redis: Pick<Redis, 'ping'>,
  timeoutMs = 2000,
): Promise<{ postgres: ProbeResult; redis: ProbeResult }> {
  const [postgres, redisState] = await Promise.all([
    within(db.$queryRawUnsafe('SELECT 1'), timeoutMs).then(
      () => 'ok' as const,
      () => 'down' as const,
    ),
    within(redis.ping(), timeoutMs).then(
      () => 'ok' as const,
      () => 'down' as const,
    ),
  ]);
  return { postgres, redis: redisState };
}

// The migrations this build ships with; they cannot change while the process runs.
let shipped: string[] | undefined;

/** 'pending' when a migration this build ships with is not applied (or none ever was). */
export async function probeMigrations(db: Db, timeoutMs = 2000): Promise<MigrationsProbe> {
  shipped ??= listMigrations(defaultMigrationsDir).map((m) => m.name);
  try {
    const rows = await within(
      db.$queryRawUnsafe<Array<{ migration_name: string }>>(
        'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      ),
      timeoutMs,
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return shipped.every((name) => applied.has(name)) ? 'ok' : 'pending';
  } catch (err) {
    if (isSchemaMissing(err)) return 'pending';
    return 'down';
  }
}
