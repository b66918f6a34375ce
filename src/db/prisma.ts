// The Prisma client over node-postgres (driver adapter): no engine binary at run time. Database
// errors that are the caller's doing are translated here, once, for every repository: a unique
// violation becomes a ConflictError (409 CONFLICT) whichever query or transaction hit it.
//
// `$rows` runs one read statement straight on the same pg pool, for the hottest reads (one per API
// request): Prisma's query machinery costs about 100-150 µs of CPU per statement, more than the
// statement itself (docs/benchmarks-history.md, "HTTP hot paths"). Its rows have Prisma's types (timestamps
// as UTC Dates, int8 as BigInt, numeric as Decimal, json parsed); a test holds it to that. The
// single-row reads every request makes are named prepared statements: PostgreSQL parses and plans
// them once per connection instead of once per request. `$rawTransaction` runs a transaction the same
// way, for the statements every Run makes (its start, its settlement); every other statement, Prisma's
// included, is a named prepared statement too (statementNames), within bounds.
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { ConflictError } from '../lib/errors.js';
import { trackDbPool } from '../lib/metrics-sources.js';
import { DatabaseUnreachableError, isPgConnectionFailure, isPoolWaitTimeout } from './failures.js';
import { edgeQuery, type TransactionEdges } from './transaction-edges.js';

// Dates given to raw statements are UTC, as Prisma writes them (the columns are timestamps without zone).
pg.defaults.parseInputDatesAsUTC = true;

export type Db = PrismaClient & {
  /**
   * One statement on the pool, bypassing Prisma (hot paths only: the reads every request makes, and
   * a Run's status changes).
   * `prepared` names a statement whose text never changes (a lookup by key, whose plan does not
   * depend on the values), prepared once per connection. `before`: statements run first in the same
   * round trip and implicit transaction, each in its own snapshot (a lock they wait for is seen taken),
   * whose rows are not returned.
   */
  $rows<T>(query: Prisma.Sql, opts?: { prepared?: string; before?: Prisma.Sql[] }): Promise<T[]>;
  /**
   * A transaction on one pooled connection, bypassing Prisma, for the per-Run hot paths (starting a
   * Run, ending and settling it): `fn` runs its statements with `tx.rows`, and the transaction
   * commits when `fn` resolves, rolls back when it throws. Rows have Prisma's types, as with `$rows`;
   * a unique violation is the same ConflictError, an unreachable database the same error.
   */
  $rawTransaction<T>(fn: (tx: RawTx) => Promise<T>): Promise<T>;
};
/** The statements of a `$rawTransaction`. */
export interface RawTx {
  /**
   * `last`: the transaction's last statement, sent with its COMMIT in one round trip (the transaction
   * commits with it; a statement after it is refused). The first statement carries the BEGIN.
   * `before`: statements run just before this one in the same round trip, each in its own snapshot (a
   * lock taken by one is then seen taken by the next: everything committed before it is visible), whose
   * rows are not returned. `after`: statements run just after this one in the same round trip (before
   * the COMMIT, with `last`), whose rows are not returned; one that fails fails the call.
   */
  rows<T>(query: Prisma.Sql, opts?: { last?: boolean; before?: Prisma.Sql[]; after?: Prisma.Sql[] }): Promise<T[]>;
}
export type { Prisma } from '../generated/prisma/client.js';
/** A transaction's client: the statement must run inside the caller's transaction. */
export type Tx = Prisma.TransactionClient;
/** A transaction's client or the pool: the statement may join the caller's transaction. */
export type DbOrTx = Prisma.TransactionClient | Db;
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
    super(
      (model && DUPLICATE_MESSAGES[model]) ??
        'The change conflicts with an existing record (a unique value is already taken).',
    );
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as {
    code?: unknown;
    meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } };
  } | null;
  if (e?.code === 'P2002') return true;
  const cause = e?.meta?.driverAdapterError?.cause;
  return (
    e?.code === 'P2010' &&
    (e.meta?.code === '23505' || cause?.originalCode === '23505' || cause?.kind === 'UniqueConstraintViolation')
  );
}

/** Translates the errors the data layer owns; everything else passes through unchanged. */
function translateDatabaseError(err: unknown, model?: string): unknown {
  const modelName =
    model ?? ((err as { meta?: { modelName?: unknown } } | null)?.meta?.modelName as string | undefined);
  return isUniqueViolation(err) ? new UniqueViolationError(modelName) : err;
}

/** A connection attempt to an unreachable host gives up after this long (pg's default waits forever). */
const CONNECT_TIMEOUT_MS = 5_000;
/** Default of the longest wait in line for a pooled connection (DATABASE_POOL_WAIT_MS for the API). */
export const DEFAULT_POOL_WAIT_MS = 10_000;

type PoolInternals = { options: pg.PoolConfig; newClient(waiter: unknown): void };

/**
 * pg-pool bounds both the wait in line for a connection and the making of a new one with its one
 * `connectionTimeoutMillis`. Here that option bounds the wait in line, and each new connection
 * (made synchronously in newClient, pg-pool's one place for it) gets CONNECT_TIMEOUT_MS instead,
 * so a short wait in line never cuts a connection that is still being made.
 */
class QueueBoundedPool extends pg.Pool {
  newClient(waiter: unknown): void {
    const options = (this as unknown as PoolInternals).options;
    const wait = options.connectionTimeoutMillis;
    options.connectionTimeoutMillis = CONNECT_TIMEOUT_MS;
    try {
      (pg.Pool.prototype as unknown as PoolInternals).newClient.call(this, waiter);
    } finally {
      options.connectionTimeoutMillis = wait;
    }
  }
}

/**
 * Statements with more parameters than this (long IN lists, each length its own text) are not kept
 * prepared. A settlement's usage-and-debit statement has 60-80 (eight per usage line); planned at each
 * execution it cost PostgreSQL more than the round trip it saved.
 */
const MAX_PREPARED_PARAMS = 128;
/** Distinct statement texts kept prepared per process; past this, new texts run unnamed. */
const MAX_PREPARED_TEXTS = 2_000;

/**
 * Names for Prisma's statements, so that node-postgres prepares each text once per connection and
 * PostgreSQL parses it once (an unnamed statement is parsed and analysed on every execution). A plan
 * gone stale (a table changed shape under a running instance) fails once with 0A000; the names then
 * change, so every statement is prepared afresh.
 */
function statementNames() {
  const names = new Map<string, string>();
  let generation = 0;
  return {
    // An empty name is an unnamed statement to node-postgres.
    name(query: { sql: string; args: unknown[] }): string {
      // Without parameters node-postgres uses the simple protocol, which utility statements (VACUUM) and
      // several statements in one text need: those stay unnamed, as before.
      if (query.args.length === 0 || query.args.length > MAX_PREPARED_PARAMS) return '';
      let name = names.get(query.sql);
      if (name === undefined) {
        if (names.size >= MAX_PREPARED_TEXTS) return '';
        name = `p${generation}-${createHash('sha1').update(query.sql).digest('base64url')}`;
        names.set(query.sql, name);
      }
      return name;
    },
    sawError(err: unknown) {
      const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
      if (
        e?.code === FEATURE_NOT_SUPPORTED ||
        e?.meta?.driverAdapterError?.cause?.originalCode === FEATURE_NOT_SUPPORTED
      ) {
        generation += 1;
        names.clear();
      }
    },
  };
}

/** One statement of a raw transaction, with its BEGIN and/or COMMIT in the same round trip. */
function runEdged<R>(
  conn: pg.PoolClient,
  config: pg.QueryConfig & { types?: unknown },
  edges: TransactionEdges,
): Promise<R[]> {
  if (!edges.begin && !edges.commit && !edges.before?.length && !edges.after?.length)
    return conn.query(config).then((r) => r.rows as R[]);
  return new Promise((resolve, reject) => {
    const query = edgeQuery(config, edges) as pg.Submittable & {
      callback?: (err: Error | null, res?: { rows: unknown[] }) => void;
    };
    query.callback = (err, res) => (err ? reject(err) : resolve((res?.rows ?? []) as R[]));
    conn.query(query);
  });
}

export function createPrisma(databaseUrl: string, opts: { max?: number; poolWaitMs?: number } = {}): Db {
  // Under a burst, callers wait in line for a pooled connection; past poolWaitMs the wait fails
  // (isDatabaseBusy) and the API answers 503 "busy" with Retry-After. An unreachable server fails
  // the connection attempt instead, within CONNECT_TIMEOUT_MS, and is answered "cannot be reached".
  const poolWaitMs = opts.poolWaitMs ?? DEFAULT_POOL_WAIT_MS;
  const pool = new QueueBoundedPool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: poolWaitMs,
  });
  // An idle connection that breaks (the server restarted) must not crash the process.
  pool.on('error', () => undefined);
  // Connections in use and requests waiting, read by the metrics when scraped.
  trackDbPool(pool);
  const statements = statementNames();
  const adapter = new PrismaPg(pool, { statementNameGenerator: (query) => statements.name(query) });
  // A transaction waits in line for its connection as long as a single statement does.
  const client = new PrismaClient({ adapter, transactionOptions: { maxWait: poolWaitMs, timeout: 20_000 } });
  // Prepared statement names in use: a name whose plan went stale (the table changed shape under a
  // running instance) is replaced by a new one, prepared afresh on each connection.
  const preparedNames = new Map<string, string>();
  let renamed = 0;
  const translated = client.$extends({
    client: {
      async $rows<T>(query: Prisma.Sql, opts?: { prepared?: string; before?: Prisma.Sql[] }): Promise<T[]> {
        const before = opts?.before?.map((q) => ({ text: q.text, values: q.values }));
        const run = async (name: string | undefined) => {
          const config = { name, text: query.text, values: query.values, types: PRISMA_TYPES };
          if (!before?.length) return pool.query(config);
          const conn = await pool.connect();
          let broken: Error | undefined;
          try {
            return { rows: await runEdged<unknown>(conn, config, { begin: false, before, commit: false }) };
          } catch (err) {
            if (isPgConnectionFailure(err)) broken = err as Error;
            throw err;
          } finally {
            conn.release(broken);
          }
        };
        const prepared = opts?.prepared;
        try {
          try {
            const name = prepared
              ? (preparedNames.get(prepared) ?? prepared)
              : statements.name({ sql: query.text, args: query.values });
            return (await run(name)).rows as T[];
          } catch (err) {
            statements.sawError(err);
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
      async $rawTransaction<T>(fn: (tx: RawTx) => Promise<T>): Promise<T> {
        const mapped = (err: unknown) =>
          isPgConnectionFailure(err)
            ? new DatabaseUnreachableError(err)
            : (err as { code?: unknown } | null)?.code === '23505'
              ? new UniqueViolationError(undefined)
              : err;
        let conn: pg.PoolClient;
        try {
          conn = await pool.connect();
        } catch (err) {
          throw mapped(err);
        }
        let broken: Error | undefined;
        // BEGIN goes with the first statement, COMMIT with the one marked last (transaction-edges.ts).
        let begun = false;
        let committed = false;
        const tx: RawTx = {
          async rows<R>(
            query: Prisma.Sql,
            opts?: { last?: boolean; before?: Prisma.Sql[]; after?: Prisma.Sql[] },
          ): Promise<R[]> {
            if (committed) throw new Error('a statement after the transaction committed');
            const name = statements.name({ sql: query.text, args: query.values });
            const config = { name, text: query.text, values: query.values, types: PRISMA_TYPES };
            const before = opts?.before?.map((q) => ({ text: q.text, values: q.values }));
            const after = opts?.after?.map((q) => ({ text: q.text, values: q.values }));
            const edges = { begin: !begun, before, after, commit: opts?.last === true };
            begun = true;
            try {
              const result = await runEdged<R>(conn, config, edges);
              committed = edges.commit;
              return result;
            } catch (err) {
              statements.sawError(err);
              if (isPgConnectionFailure(err)) broken = err as Error;
              throw err;
            }
          },
        };
        try {
          const result = await fn(tx);
          if (begun && !committed) await conn.query('COMMIT');
          return result;
        } catch (err) {
          if (!broken && begun) await conn.query('ROLLBACK').catch((e: Error) => (broken = e));
          throw mapped(err);
        } finally {
          // A connection that failed is closed, not handed to the next caller.
          conn.release(broken);
        }
      },
    },
    query: {
      async $allOperations({ model, args, query }) {
        try {
          // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Prisma types every operation's result as any here
          return await query(args);
        } catch (err) {
          statements.sawError(err);
          throw translateDatabaseError(err, model);
        }
      },
    },
  });
  // The query extension changes no types: the extended client is the PrismaClient it wraps plus $rows.
  return translated as unknown as Db;
}

/** Errors that mean "the database is saturated right now" (no free connection in time): safe to retry. */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  return (
    isPoolWaitTimeout(err) ||
    code === 'P2024' ||
    code === 'P2028' ||
    /Unable to start a transaction in the given time|Timed out fetching a new connection/.test(message)
  );
}
