// What a caller may be told about an error: a typed AppError says so itself; a saturated database
// is a 503; anything else is internal, and its text (Prisma's, a stack, a file path) stays in the
// log, keyed by a request or Run id that the generic message quotes.
import { isDatabaseBusy } from '../db/prisma.js';
import { AppError, ErrorCodes, type ErrorCode } from './errors.js';

export interface PublicError {
  statusCode: number;
  errorCode: ErrorCode;
  message: string;
  /** True when the message is the generic one and the real error must be logged. */
  internal: boolean;
}

export function toPublicError(err: unknown, reference: string): PublicError {
  if (err instanceof AppError) return { statusCode: err.statusCode, errorCode: err.errorCode, message: err.message, internal: false };
  if (isDatabaseBusy(err)) {
    return { statusCode: 503, errorCode: ErrorCodes.SERVICE_UNAVAILABLE, message: 'The service is busy; retry later.', internal: false };
  }
  return {
    statusCode: 500,
    errorCode: ErrorCodes.INTERNAL_ERROR,
    message: `An unexpected error occurred. Quote ${reference} when reporting it.`,
    internal: true,
  };
}
