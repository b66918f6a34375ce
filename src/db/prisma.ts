// The Prisma client over node-postgres (driver adapter): no engine binary at run time. Database
// errors that are the caller's doing are translated here, once, for every repository: a unique
// violation becomes a ConflictError (409 CONFLICT) whichever query or transaction hit it.
//
// `$rows` runs one read statement straight on the same pg pool, for the hottest reads (one per API
// request): Prisma's query machinery costs about 100-150 µs of CPU per statement, more than the
// statement itself (docs/benchmarks.md, "HTTP hot paths"). Its rows have Prisma's types (timestamps
// as UTC Dates, int8 as BigInt, numeric as Decimal, json parsed); a test holds it to that. The
// single-row reads every request makes are named prepared statements: PostgreSQL parses and plans
// them once per connection instead of once per request.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { ConflictError } from '../lib/errors.js';
import { DatabaseUnreachableError, isPgConnectionFailure } from './failures.js';

export type Db = PrismaClient & {
  /**
   * One read statement on the pool, bypassing Prisma (hot paths only; writes go through Prisma).
   * `prepared` names a statement whose text never changes (a lookup by key, whose plan does not
   * depend on the values), prepared once per connection.
   */
  $rows<T>(query: Prisma.Sql, opts?: { prepared?: string }): Promise<T[]>;
};
export type { Prisma } from '../generated/prisma/client.js';
/** Exact decimals (money, credits): Prisma's Decimal, for code outside the data layer. */
export const Decimal = Prisma.Decimal;
export type Decimal = Prisma.Decimal;

// Prisma's DateTime columns are `timestamp(3)` (no time zone) holding UTC.
const OID_TIMESTAMP = 1114;
const OID_INT8 = 20;
const OID_NUMERIC = 1700;
const parseTimestamp = (v: string) => new Date(`${v.replace(' ', 'T')}Z`);
const parseInt8 = (v: string) => BigInt(v);
const parseNumeric = (v: string) => new Prisma.Decimal(v);
const PRISMA_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === OID_TIMESTAMP) return parseTimestamp;
    if (oid === OID_INT8) return parseInt8;
    if (oid === OID_NUMERIC) return parseNumeric;
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

/** PostgreSQL's "cached plan must not change result type": a prepared `*` after a migration. */
const FEATURE_NOT_SUPPORTED = '0A000';

/** What a duplicate means to the caller, per model whose unique keys a request can collide with. */
const DUPLICATE_MESSAGES: Record<string, string> = {
  User: 'A user with this email already exists.',
  Space: 'A space with this name already exists in the organization.',
  ProxyPool: 'A proxy pool with this name already exists in the organization.',
};

/** A unique violation (Prisma P2002; 23505 from a raw query), as the ConflictError callers get. */
export class UniqueViolationError extends ConflictError {
  constructor(readonly model: string | undefined) {
    super((model && DUPLICATE_MESSAGES[model]) ?? 'The change conflicts with an existing record (a unique value is already taken).');
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } } } | null;
  if (e?.code === 'P2002') return true;
  const cause = e?.meta?.driverAdapterError?.cause;
  return e?.code === 'P2010' && (e.meta?.code === '23505' || cause?.originalCode === '23505' || cause?.kind === 'UniqueConstraintViolation');
}

/** Translates the errors the data layer owns; everything else passes through unchanged. */
function translateDatabaseError(err: unknown, model?: string): unknown {
  const modelName = model ?? ((err as { meta?: { modelName?: unknown } } | null)?.meta?.modelName as string | undefined);
  return isUniqueViolation(err) ? new UniqueViolationError(modelName) : err;
}

export function createPrisma(databaseUrl: string, opts: { max?: number } = {}): Db {
  // A connection attempt to an unreachable host gives up after 5 s (pg's default waits forever),
  // so requests answer 503 instead of hanging.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.max ?? 10, connectionTimeoutMillis: 5_000 });
  // An idle connection that breaks (the server restarted) must not crash the process.
  pool.on('error', () => undefined);
  const adapter = new PrismaPg(pool);
  // Under a burst, a transaction waits for a free connection rather than failing after Prisma's
  // default 2 s; past this it fails and the API answers 503 with Retry-After.
  const client = new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
  // Prepared statement names in use: a name whose plan went stale (the table changed shape under a
  // running instance) is replaced by a new one, prepared afresh on each connection.
  const preparedNames = new Map<string, string>();
  let renamed = 0;
  const translated = client.$extends({
    client: {
      async $rows<T>(query: Prisma.Sql, opts?: { prepared?: string }): Promise<T[]> {
        const run = (name: string | undefined) => pool.query({ name, text: query.text, values: query.values, types: PRISMA_TYPES });
        const prepared = opts?.prepared;
        try {
          try {
            return (await run(prepared && (preparedNames.get(prepared) ?? prepared))).rows as T[];
          } catch (err) {
            if (!prepared || (err as { code?: unknown }).code !== FEATURE_NOT_SUPPORTED) throw err;
            // Once: any other "feature not supported" fails again, and is the caller's to see.
            const fresh = `${prepared}-${++renamed}`;
            preparedNames.set(prepared, fresh);
            return (await run(fresh)).rows as T[];
          }
        } catch (err) {
          throw isPgConnectionFailure(err) ? new DatabaseUnreachableError(err) : err;
        }
      },
    },
    query: {
      async $allOperations({ model, args, query }) {
        try {
          // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Prisma types every operation's result as any here
          return await query(args);
        } catch (err) {
          throw translateDatabaseError(err, model);
        }
      },
    },
  });
  // The query extension changes no types: the extended client is the PrismaClient it wraps plus $rows.
  return translated as unknown as Db;
}

/** Prisma errors that mean "the database is saturated right now": safe to retry. */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  return code === 'P2024' || code === 'P2028' || /Unable to start a transaction in the given time|Timed out fetching a new connection/.test(message);
}
