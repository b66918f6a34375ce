// One error handler for the whole API: 400 -> BadRequestError, everything else -> ProblemDetails
// (application/problem+json) with an errorCode extension. A 5xx never leaks internals: it carries
// the request id that is also in the log line.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, ErrorCodes, type ErrorCode } from '../../lib/errors.js';
import { toPublicError } from '../../services/public-error.js';
import { lingerOnClose } from './http.js';

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

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  errorCode: ErrorCode,
  detail: string,
  extensions: Record<string, unknown> = {},
) {
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

export function sendBadRequest(
  reply: FastifyReply,
  message: string,
  errorCode: ErrorCode = ErrorCodes.VALIDATION_FAILED,
) {
  return reply.code(400).type('application/json; charset=utf-8').send({
    statusCode: 400,
    statusDescription: 'Bad Request',
    message,
    severity: 0,
    errorCode,
  });
}

/** `<where>.<path> <problem>`: names the field that failed validation. */
export function validationMessage(error: {
  validation?: FastifyError['validation'];
  validationContext?: string;
  message: string;
}): string {
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

export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setNotFoundHandler((request, reply) =>
      sendProblem(
        request,
        reply,
        404,
        ErrorCodes.NOT_FOUND,
        `No route for ${request.method} ${request.url.split('?')[0]}.`,
      ),
    );

    app.setErrorHandler((error: FastifyError, request, reply) => {
      // Errors of the HTTP layer itself (validation, body parsing); everything else is translated by
      // the one rule that run-all's per-Agent results use too (services/public-error.ts).
      if (!(error instanceof AppError)) {
        const answered = answerHttpError(error, request, reply);
        if (answered) return answered;
      }
      const shown = toPublicError(error, `request id ${request.id}`, {
        postgresKnownDown: app.dependencies.isDown('postgres'),
      });
      if (shown.dependencyDown) app.dependencies.down(shown.dependencyDown, error);
      if (shown.log)
        request.log[shown.log.level]({ err: shown.internal ? error : { message: error.message } }, shown.log.message);
      if (shown.retryAfterSeconds !== undefined) reply.header('Retry-After', String(shown.retryAfterSeconds));
      if (shown.statusCode === 400) return sendBadRequest(reply, shown.message, shown.errorCode);
      return sendProblem(request, reply, shown.statusCode, shown.errorCode, shown.message, shown.extensions);
    });
  },
  { name: 'errors', dependencies: ['infra'] },
);

/** The answer to an error raised by Fastify's own request handling, or undefined for any other error. */
function answerHttpError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) return sendBadRequest(reply, validationMessage(error));
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // Answered before the body arrived; the client may still be sending it.
      if (!request.raw.complete) lingerOnClose(request.raw.socket);
      return sendProblem(
        request,
        reply,
        413,
        ErrorCodes.PAYLOAD_TOO_LARGE,
        'The request body is larger than the server accepts.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendProblem(
        request,
        reply,
        415,
        ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
        `Unsupported media type ${request.headers['content-type'] ?? ''}; send application/json.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return sendBadRequest(reply, 'Content-Length does not match the body.', ErrorCodes.VALIDATION_FAILED);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendBadRequest(reply, 'The request body is not valid JSON.', ErrorCodes.MALFORMED_JSON);
    default:
      break;
  }
  if (error instanceof SyntaxError)
    return sendBadRequest(reply, 'The request body is not valid JSON.', ErrorCodes.MALFORMED_JSON);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    if (status === 400) return sendBadRequest(reply, error.message);
    return sendProblem(
      request,
      reply,
      status,
      status === 404 ? ErrorCodes.NOT_FOUND : ErrorCodes.VALIDATION_FAILED,
      error.message,
    );
  }
  return undefined;
}
