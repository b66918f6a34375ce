// The Prisma client over node-postgres (driver adapter): no engine binary at run time.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type Db = PrismaClient;
export type { Prisma } from '../generated/prisma/client.js';

export function createPrisma(databaseUrl: string, opts: { max?: number } = {}): PrismaClient {
  // A connection attempt to an unreachable host gives up after 5 s (pg's default waits forever),
  // so requests answer 503 instead of hanging.
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 10, connectionTimeoutMillis: 5_000 });
  // Under a burst, a transaction waits for a free connection rather than failing after Prisma's
  // default 2 s; past this it fails and the API answers 503 with Retry-After.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
}

/** Prisma errors that mean "the database is saturated right now": safe to retry. */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  return code === 'P2024' || code === 'P2028' || /Unable to start a transaction in the given time|Timed out fetching a new connection/.test(message);
}
