// Which failures of PostgreSQL and Redis mean "the dependency is unavailable" (answer 503, retry
// later) rather than a bug (500). One place for the whole process: the API's error handler, the
// CLI and the worker all ask here.

const PG_UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
  'AuthenticationFailed',
  'DatabaseAccessDenied',
  'TlsConnectionError',
]);
// P1000 auth failed, P1001 can't reach, P1002 timed out, P1003 no such database, P1017 server closed.
const PG_UNREACHABLE_CODES = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1017']);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

type ErrorLike = {
  code?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string; code?: string } } };
};

function adapterCause(err: unknown) {
  return (err as ErrorLike | null)?.meta?.driverAdapterError?.cause;
}

/** A statement run straight on the pg pool (Db.$rows) failed because PostgreSQL is unreachable. */
export class DatabaseUnreachableError extends Error {
  constructor(override readonly cause: unknown) {
    super('PostgreSQL cannot be reached');
  }
}

/** A node-postgres error that means the connection failed, rather than the statement. */
export function isPgConnectionFailure(err: unknown): boolean {
  const e = err as ErrorLike | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || /^(57P0[1-3]|08)/.test(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|terminating connection due to administrator command/.test(message);
}

/**
 * pg-pool's answer to a caller that waited in line for a pooled connection longer than allowed: the
 * pool is busy, PostgreSQL is not known to be down (a new connection that fails says "Connection
 * terminated ..." instead).
 */
export function isPoolWaitTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'timeout exceeded when trying to connect';
}

/** PostgreSQL cannot be reached, refused us, or is shutting down / starting up. */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (err instanceof DatabaseUnreachableError) return true;
  const e = err as ErrorLike | null;
  if (!e || typeof e !== 'object') return false;
  const cause = adapterCause(err);
  if (cause?.kind && PG_UNREACHABLE_KINDS.has(cause.kind)) return true;
  // 57P01-03: admin shutdown, crash shutdown, cannot connect now; 08xxx: connection exceptions.
  const sqlState = cause?.originalCode ?? cause?.code;
  if (typeof sqlState === 'string' && /^(57P0[1-3]|08)/.test(sqlState)) return true;
  if (typeof e.code === 'string' && PG_UNREACHABLE_CODES.has(e.code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Can't reach database server|Connection terminated|terminating connection due to administrator command/.test(
    message,
  );
}

/** The tables are not there: the database was never migrated. */
export function isSchemaMissing(err: unknown): boolean {
  const e = err as ErrorLike | null;
  return e?.code === 'P2021' || adapterCause(err)?.kind === 'TableDoesNotExist';
}

/** A Redis command failed because Redis is unreachable (ioredis gave up or the socket is gone). */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as (ErrorLike & { name?: unknown }) | null;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.code === 'string' && SOCKET_CODES.has(e.code) && !('meta' in e)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /^Connection is closed\.?$|Stream isn't writeable|Reached the max retries per request limit|^connect (ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH)/.test(
    message,
  );
}
