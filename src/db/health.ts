// Readiness probes of the stores, for /health/ready.
import type { Redis } from 'ioredis';
import type { Db } from './prisma.js';

export type ProbeResult = 'ok' | 'down';

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), ms))]);

export async function probeStores(db: Db, redis: Pick<Redis, 'ping'>, timeoutMs = 2000): Promise<{ postgres: ProbeResult; redis: ProbeResult }> {
  const [postgres, redisState] = await Promise.all([
    within(db.$queryRawUnsafe('SELECT 1'), timeoutMs).then(() => 'ok' as const, () => 'down' as const),
    within(redis.ping(), timeoutMs).then(() => 'ok' as const, () => 'down' as const),
  ]);
  return { postgres, redis: redisState };
}
