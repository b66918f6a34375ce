// What a caller may be told about an error, for every answer that reports one: the API's error
// handler (plugins/app/errors.ts) and run-all's per-Agent results. A typed AppError says so itself;
// PostgreSQL or Redis down, a database never migrated, or a saturated pool is a 503 with
// Retry-After; anything else is internal, and its text (Prisma's, a stack, a file path) stays in the
// log, keyed by a request or Run id that the generic message quotes.
import { isDatabaseUnreachable, isPoolWaitTimeout, isRedisUnavailable, isSchemaMissing } from '../db/failures.js';
import { isDatabaseBusy } from '../db/prisma.js';
import type { DependencyName } from '../lib/dependencies.js';
import {
  AgentInvalidError,
  AppError,
  ErrorCodes,
  RateLimitedError,
  ServiceUnavailableError,
  type ErrorCode,
} from '../lib/errors.js';

/** How long a caller should wait before retrying while a dependency is down. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

export interface PublicError {
  statusCode: number;
  errorCode: ErrorCode;
  message: string;
  /** Seconds to wait before retrying (429, 503): the Retry-After header. */
  retryAfterSeconds?: number;
  /** Extra ProblemDetails members (a 422's `problems`). */
  extensions?: Record<string, unknown>;
  /** A dependency found down: the API tells its dependency monitor, which logs the change once. */
  dependencyDown?: DependencyName;
  /** How the original error is logged; 'error' (with the whole error) when the message is the generic one. */
  log?: { level: 'error' | 'warn'; message: string };
  /** True when the message is the generic one and the real error must be logged. */
  internal: boolean;
}

/**
 * `reference` names what the caller can quote, e.g. `request id 8c4d...`. `postgresKnownDown`: the
 * dependency monitor already knows PostgreSQL is down, so a pool wait that ran out is that outage,
 * not load.
 */
export function toPublicError(
  err: unknown,
  reference: string,
  opts: { postgresKnownDown?: boolean } = {},
): PublicError {
  if (err instanceof AppError) {
    const shown: PublicError = {
      statusCode: err.statusCode,
      errorCode: err.errorCode,
      message: err.message,
      internal: false,
    };
    if (err instanceof RateLimitedError || err instanceof ServiceUnavailableError)
      shown.retryAfterSeconds = err.retryAfterSeconds;
    if (err instanceof AgentInvalidError) shown.extensions = { problems: err.problems };
    return shown;
  }
  const unavailable = (message: string, retryAfterSeconds = DEPENDENCY_RETRY_AFTER_SECONDS) => ({
    statusCode: 503,
    errorCode: ErrorCodes.SERVICE_UNAVAILABLE,
    message,
    retryAfterSeconds,
    internal: false,
  });
  // A dependency that is down is the operator's problem, not the caller's; the monitor logs it once.
  const postgresDown = isDatabaseUnreachable(err) || (isPoolWaitTimeout(err) && opts.postgresKnownDown === true);
  if (postgresDown || isRedisUnavailable(err)) {
    const which: DependencyName = postgresDown ? 'postgres' : 'redis';
    const what = which === 'postgres' ? 'its database' : 'its queue store';
    return {
      ...unavailable(
        `The service is temporarily unavailable (${what} cannot be reached); retry after the delay in Retry-After.`,
      ),
      dependencyDown: which,
    };
  }
  if (isSchemaMissing(err)) {
    return {
      ...unavailable('The service is not ready: its database has not been migrated yet.'),
      log: { level: 'error', message: 'the database is not migrated: run `cli migrate`' },
    };
  }
  if (isDatabaseBusy(err))
    return {
      ...unavailable('The service is busy; retry after the delay in Retry-After.', 1),
      log: { level: 'warn', message: 'database saturated' },
    };
  return {
    statusCode: 500,
    errorCode: ErrorCodes.INTERNAL_ERROR,
    message: `An unexpected error occurred. Quote ${reference} when reporting it.`,
    log: { level: 'error', message: 'request failed' },
    internal: true,
  };
}
