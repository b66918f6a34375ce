// One error handler for the whole API: 400 -> BadRequestError, everything else -> ProblemDetails
// (application/problem+json) with an errorCode extension. A 5xx never leaks internals: it carries
// the request id that is also in the log line.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnreachable, isPoolWaitTimeout, isRedisUnavailable, isSchemaMissing } from '../../db/failures.js';
import { isDatabaseBusy } from '../../db/prisma.js';
import { lingerOnClose } from './http.js';
import { AgentInvalidError, AppError, ErrorCodes, RateLimitedError, ServiceUnavailableError, type ErrorCode } from '../../lib/errors.js';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
  401: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
  403: 'https://tools.ietf.org/html/rfc9110#section-15.5.4',
  404: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
  405: 'https://tools.ietf.org/html/rfc9110#section-15.5.6',
  409: 'https://tools.ietf.org/html/rfc9110#section-15.5.10',
  413: 'https://tools.ietf.org/html/rfc9110#section-15.5.14',
  415: 'https://tools.ietf.org/html/rfc9110#section-15.5.16',
  422: 'https://tools.ietf.org/html/rfc9110#section-15.5.21',
  429: 'https://tools.ietf.org/html/rfc6585#section-4',
  500: 'https://tools.ietf.org/html/rfc9110#section-15.6.1',
  503: 'https://tools.ietf.org/html/rfc9110#section-15.6.4',
};

const TITLE_BY_STATUS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** How long a caller should wait before retrying while a dependency is down. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

export function sendProblem(request: FastifyRequest, reply: FastifyReply, status: number, errorCode: ErrorCode, detail: string, extensions: Record<string, unknown> = {}) {
  return reply
    .code(status)
    .type('application/problem+json; charset=utf-8')
    .send({
      type: TYPE_BY_STATUS[status] ?? 'about:blank',
      title: TITLE_BY_STATUS[status] ?? 'Error',
      status,
      detail,
      instance: request.url.split('?')[0],
      errorCode,
      requestId: request.id,
      ...extensions,
    });
}

export function sendBadRequest(reply: FastifyReply, message: string, errorCode: ErrorCode = ErrorCodes.VALIDATION_FAILED) {
  return reply.code(400).type('application/json; charset=utf-8').send({
    statusCode: 400,
    statusDescription: 'Bad Request',
    message,
    severity: 0,
    errorCode,
  });
}

/** `<where>.<path> <problem>`: names the field that failed validation. */
export function validationMessage(error: { validation?: FastifyError['validation']; validationContext?: string; message: string }): string {
  const v = error.validation?.[0];
  if (!v) return error.message;
  const where = error.validationContext ?? 'body';
  const path = v.instancePath ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  if (v.keyword === 'additionalProperties') {
    const prop = (v.params as { additionalProperty?: string }).additionalProperty;
    return `${where}${path ? '.' + path : ''}: unknown property '${prop}'`;
  }
  if (v.keyword === 'required') {
    const prop = (v.params as { missingProperty?: string }).missingProperty;
    return `${where}${path ? '.' + path : ''}: missing required property '${prop}'`;
  }
  return `${where}${path ? '.' + path : ''} ${v.message ?? 'is invalid'}`.trim();
}

export default fp(async function errorsPlugin(app: FastifyInstance) {
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 404, ErrorCodes.NOT_FOUND, `No route for ${request.method} ${request.url.split('?')[0]}.`),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error instanceof RateLimitedError || error instanceof ServiceUnavailableError) reply.header('Retry-After', String(error.retryAfterSeconds));
      if (error.statusCode === 400) return sendBadRequest(reply, error.message, error.errorCode);
      if (error instanceof AgentInvalidError) return sendProblem(request, reply, 422, error.errorCode, error.message, { problems: error.problems });
      return sendProblem(request, reply, error.statusCode, error.errorCode, error.message);
    }
    if (error.validation) return sendBadRequest(reply, validationMessage(error));
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // Answered before the body arrived; the client may still be sending it.
        if (!request.raw.complete) lingerOnClose(request.raw.socket);
        return sendProblem(request, reply, 413, ErrorCodes.PAYLOAD_TOO_LARGE, 'The request body is larger than the server accepts.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
          return sendProblem(request, reply, 415, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, `Unsupported media type ${request.headers['content-type'] ?? ''}; send application/json.`);
        }
        return sendBadRequest(reply, 'Content-Length does not match the body.', ErrorCodes.VALIDATION_FAILED);
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendBadRequest(reply, 'The request body is not valid JSON.', ErrorCodes.MALFORMED_JSON);
      default:
        break;
    }
    // A dependency that is down is the operator's problem, not the caller's: 503 with Retry-After,
    // and one log line when it goes down (the monitor), not one per request.
    // Waiting in line for a pooled connection is load (below), unless PostgreSQL is known to be down.
    const postgresDown = isDatabaseUnreachable(error) || (isPoolWaitTimeout(error) && app.dependencies.isDown('postgres'));
    if (postgresDown || isRedisUnavailable(error)) {
      const which = postgresDown ? 'postgres' : 'redis';
      app.dependencies.down(which, error);
      reply.header('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
      return sendProblem(request, reply, 503, ErrorCodes.SERVICE_UNAVAILABLE, `The service is temporarily unavailable (${which === 'postgres' ? 'its database' : 'its queue store'} cannot be reached); retry after the delay in Retry-After.`);
    }
    if (isSchemaMissing(error)) {
      request.log.error({ err: { message: error.message } }, 'the database is not migrated: run `cli migrate`');
      reply.header('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
      return sendProblem(request, reply, 503, ErrorCodes.SERVICE_UNAVAILABLE, 'The service is not ready: its database has not been migrated yet.');
    }
    if (isDatabaseBusy(error)) {
      request.log.warn({ err: { message: error.message } }, 'database saturated');
      reply.header('Retry-After', '1');
      return sendProblem(request, reply, 503, ErrorCodes.SERVICE_UNAVAILABLE, 'The service is busy; retry after the delay in Retry-After.');
    }
    if (error instanceof SyntaxError) return sendBadRequest(reply, 'The request body is not valid JSON.', ErrorCodes.MALFORMED_JSON);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (status === 400) return sendBadRequest(reply, error.message);
      return sendProblem(request, reply, status, status === 404 ? ErrorCodes.NOT_FOUND : ErrorCodes.VALIDATION_FAILED, error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(
      request,
      reply,
      500,
      ErrorCodes.INTERNAL_ERROR,
      `An unexpected error occurred. Quote request id ${request.id} when reporting it.`,
    );
  });
});
