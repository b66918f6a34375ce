// Typed errors thrown by services; the error handler maps them to the two error shapes
// (docs/api-contract.md §1.5; the codes are listed in docs/errors.md).

export const ErrorCodes = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  AGENT_ARCHIVED: 'AGENT_ARCHIVED',
  AGENT_INVALID: 'AGENT_INVALID',
  RUN_ALREADY_ACTIVE: 'RUN_ALREADY_ACTIVE',
  RUN_NOT_ACTIVE: 'RUN_NOT_ACTIVE',
  RUN_ACTIVE_CANNOT_DELETE: 'RUN_ACTIVE_CANNOT_DELETE',
  SCHEDULE_START_TIME_TOO_SOON: 'SCHEDULE_START_TIME_TOO_SOON',
  SCHEDULE_START_TIME_IN_PAST: 'SCHEDULE_START_TIME_IN_PAST',
  SCHEDULE_INVALID_CRON: 'SCHEDULE_INVALID_CRON',
  SCHEDULE_INVALID_TIMEZONE: 'SCHEDULE_INVALID_TIMEZONE',
  SCHEDULE_MISSING_FIELD: 'SCHEDULE_MISSING_FIELD',
  INSUFFICIENT_CREDITS: 'INSUFFICIENT_CREDITS',
  SESSION_STATE_CONFLICT: 'SESSION_STATE_CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  MALFORMED_JSON: 'MALFORMED_JSON',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  BROWSER_UNAVAILABLE: 'BROWSER_UNAVAILABLE',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400, answered as BadRequestError. */
export class ValidationError extends AppError {
  constructor(message: string, errorCode: ErrorCode = ErrorCodes.VALIDATION_FAILED) {
    super(400, errorCode, message);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Missing or invalid credentials.') {
    super(401, ErrorCodes.UNAUTHENTICATED, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have access to this resource.') {
    super(403, ErrorCodes.FORBIDDEN, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(404, ErrorCodes.NOT_FOUND, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, errorCode: ErrorCode = ErrorCodes.CONFLICT) {
    super(409, errorCode, message);
  }
}

export class UnprocessableError extends AppError {
  constructor(message: string, errorCode: ErrorCode) {
    super(422, errorCode, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, ErrorCodes.RATE_LIMITED, message);
  }
}

/** 503 with Retry-After: the service sheds load, or a dependency (the run queue) cannot take the request now. */
export class ServiceUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, ErrorCodes.SERVICE_UNAVAILABLE, message);
  }
}

/** 422 AGENT_INVALID: the Agent's definition has problems; each is listed (ProblemDetails `problems`). */
export class AgentInvalidError extends UnprocessableError {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message, ErrorCodes.AGENT_INVALID);
  }
}
