// One error type for every error answer of the API, whichever of its two shapes the body has: a 400
// answers `{ statusCode, message, errorCode, ... }` (BadRequestError), every other status RFC 7807
// problem details `{ status, title, detail, errorCode, requestId, ... }`. Subclasses by status let
// callers catch what they handle.

/** An error answer of the API (after any retries). */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The API's `errorCode` (for example `NOT_FOUND`, `RATE_LIMITED`); undefined when the body had none. */
  readonly errorCode: string | undefined;
  /** Seconds the API asked to wait before a retry (the Retry-After header of a 429 or 503). */
  readonly retryAfter: number | undefined;
  /** The request's id (X-Request-Id, or the body's requestId): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The parsed error body, as the API sent it. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    errorCode?: string;
    retryAfter?: number;
    requestId?: string;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.body = init.body;
  }
}

/** 400: the request was refused as invalid (`errorCode` VALIDATION_FAILED, MALFORMED_JSON, ...). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: no credentials, or credentials the API does not accept. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: the caller may not do this (its role, or the Space's membership). */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource, or one the caller cannot see. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: the resource's state forbids it (a Run already active, a Run not active, ...). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 422: understood but not doable (an invalid Agent, not enough credits, ...). */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
/** 429: rate limited; `retryAfter` says how long to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx other than 503. */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}
/** 503: the service (or a part of it) is unavailable; `retryAfter` says how long to wait. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
}

/** The request did not get an answer within its time-out (`timeoutMs`). */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** The request could not reach the API (connection refused, reset, DNS, ...). */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The seconds of a Retry-After header (delta-seconds or an HTTP date), undefined without one. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The ApiError (subclass by status) of an error answer, from either body shape. */
export function apiErrorOf(status: number, headers: Headers, body: unknown): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const message =
    text(b.message) ?? text(b.detail) ?? text(b.title) ?? text(typeof body === 'string' ? body : undefined);
  const Cls = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ApiError);
  return new Cls({
    status,
    message: message ?? `HTTP ${status}`,
    errorCode: text(b.errorCode),
    retryAfter: parseRetryAfter(headers.get('retry-after')),
    requestId: text(b.requestId) ?? headers.get('x-request-id') ?? undefined,
    body,
  });
}
