// Shared schema primitives: ids, dates, paging, and the two error shapes (docs/api-contract.md §1).
import { QUERY_DATE_RULE } from '../lib/query-dates.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const ProblemDetailsSchema = Type.Object(
  {
    type: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    title: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Integer(), Type.Null()]),
    detail: Type.Union([Type.String(), Type.Null()]),
    instance: Type.Union([Type.String(), Type.Null()]),
    errorCode: Type.Optional(Type.String({ description: 'Machine-readable error code (see docs/errors.md).' })),
    requestId: Type.Optional(Type.String()),
  },
  {
    $id: 'ProblemDetails',
    additionalProperties: true,
    description: 'RFC 7807 problem details (every error but 400), served as application/problem+json.',
    examples: [
      {
        type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
        title: 'Not Found',
        status: 404,
        detail: 'Agent 42 was not found.',
        instance: '/api/v1/agent/42',
        errorCode: 'NOT_FOUND',
        requestId: '8c4d3b5e-2f0a-4c51-9a57-0f9d1e8b7a21',
      },
    ],
  },
);
export type ProblemDetails = Static<typeof ProblemDetailsSchema>;

export const BadRequestErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    statusDescription: Type.Union([Type.String(), Type.Null()]),
    message: Type.Union([Type.String(), Type.Null()], { readOnly: true }),
    severity: Type.Integer({ enum: [0, 1, 2, 3, 4], description: '0 Error, 1 Unexpected, 2 Fatal, 3 Warning, 4 Info' }),
    errorCode: Type.Optional(Type.String({ description: 'Machine-readable error code; omitted when null.' })),
  },
  {
    $id: 'BadRequestError',
    description: 'The answer to every 400.',
    examples: [
      {
        statusCode: 400,
        statusDescription: 'Bad Request',
        message: "body: missing required property 'name'",
        severity: 0,
        errorCode: 'VALIDATION_FAILED',
      },
    ],
  },
);
export type BadRequestError = Static<typeof BadRequestErrorSchema>;

export const ProblemRef = Type.Ref(ProblemDetailsSchema);
export const BadRequestRef = Type.Ref(BadRequestErrorSchema);

/** A problem as the error handler writes it, for the examples of each documented status. */
const problemExample = (status: number, title: string, errorCode: string, detail: string) => ({
  type: `https://tools.ietf.org/html/${status === 429 ? 'rfc6585#section-4' : `rfc9110#section-15.${status >= 500 ? 6 : 5}.${PROBLEM_SECTIONS[status]}`}`,
  title,
  status,
  detail,
  instance: '/api/v1/agent/42',
  errorCode,
  requestId: '8c4d3b5e-2f0a-4c51-9a57-0f9d1e8b7a21',
});
const PROBLEM_SECTIONS: Record<number, number> = { 401: 2, 403: 4, 404: 5, 409: 10, 413: 14, 415: 16, 422: 21, 503: 4 };
/** An example of each error status, shown in the OpenAPI description (plugins/external/swagger.ts). */
export const ERROR_EXAMPLES: Record<number, unknown> = {
  400: {
    statusCode: 400,
    statusDescription: 'Bad Request',
    message: "body: missing required property 'name'",
    severity: 0,
    errorCode: 'VALIDATION_FAILED',
  },
  401: problemExample(401, 'Unauthorized', 'UNAUTHENTICATED', 'Missing or invalid credentials.'),
  403: problemExample(403, 'Forbidden', 'FORBIDDEN', 'You have read-only access to agent 42.'),
  404: problemExample(404, 'Not Found', 'NOT_FOUND', 'Agent 42 was not found.'),
  409: problemExample(409, 'Conflict', 'RUN_ALREADY_ACTIVE', 'Agent 42 already has an active Run (7).'),
  413: problemExample(
    413,
    'Payload Too Large',
    'PAYLOAD_TOO_LARGE',
    'The request body is larger than the server accepts.',
  ),
  415: problemExample(
    415,
    'Unsupported Media Type',
    'UNSUPPORTED_MEDIA_TYPE',
    'Unsupported media type text/plain; send application/json.',
  ),
  422: {
    ...problemExample(
      422,
      'Unprocessable Entity',
      'AGENT_INVALID',
      "Agent 42 has an invalid definition; fix it before starting it: list.fields[0].selector: invalid CSS selector 'h3 a[': Expected name, found end of input",
    ),
    problems: ["list.fields[0].selector: invalid CSS selector 'h3 a[': Expected name, found end of input"],
  },
  429: problemExample(
    429,
    'Too Many Requests',
    'RATE_LIMITED',
    'Rate limit exceeded; retry after the delay in Retry-After.',
  ),
  503: problemExample(
    503,
    'Service Unavailable',
    'SERVICE_UNAVAILABLE',
    'The service is temporarily unavailable (its database cannot be reached); retry after the delay in Retry-After.',
  ),
};

/**
 * Error responses most authenticated routes share, merged into a route's `response`. 503 is always
 * added: any route answers it while PostgreSQL or Redis is down.
 */
export function errorResponses<K extends 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503>(...codes: K[]) {
  const out: Record<number, TSchema> = {};
  for (const code of [...codes, 503]) {
    out[code] = code === 400 ? BadRequestRef : ProblemRef;
  }
  return out as Record<K | 503, TSchema>;
}

/** Every id column is an int32; the request validator also bounds any integer a schema leaves open. */
export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
export const Int32 = (options: { description?: string; minimum?: number; maximum?: number; default?: number } = {}) =>
  Type.Integer({ format: 'int32', minimum: INT32_MIN, maximum: INT32_MAX, ...options });

/** A positive id; every id column is an int32 but a Schedule's (docs/api-contract.md §1.2). */
export const IdParam = (name: string, description?: string) =>
  Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX, description: description ?? `${name} identifier` });

/** The largest int64 (as a JS number it rounds to 2^63, which Ajv compares the same way). */
export const INT64_MAX = Number(2n ** 63n - 1n);
/**
 * A positive int64 id (a Schedule's). Any value in the int64 range is accepted, so an id that does not
 * exist answers 404 like every other missing resource; the service maps ids beyond the exactly
 * representable range to "not found" (see lib/ids.ts).
 */
export const Int64IdParam = (name: string, description?: string) =>
  Type.Integer({
    format: 'int64',
    minimum: 1,
    maximum: INT64_MAX,
    description: description ?? `${name} identifier (int64)`,
  });

/** A proxy pool chosen in a request (an int32, docs/api-contract.md §1.2); 0 or less means none (§4.4). */
export const ProxyPoolIdInput = (description = '0 or less means unset.') => Nullable(Int32({ description }));

// Services hand Dates to the serializer, which writes ISO 8601 strings; the wire type stays a string.
export const DateTime = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
/** A date-time received in a request body or query. */
export const DateTimeInput = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([DateTime, Type.Null()]);
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Paging of list routes: both at least 1 (400 otherwise); recordsPerPage over 1000 is clamped to 1000. */
export const PageIndexQuery = (
  description = '1-based page number; pagination is enabled when given with recordsPerPage.',
) => Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, description }));
export const RecordsPerPageQuery = (description = 'Page size; values over 1000 are clamped to 1000.') =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, description }));
export const PagingQuery = { pageIndex: PageIndexQuery(), recordsPerPage: RecordsPerPageQuery() };

/** Query dates: one rule everywhere (src/lib/query-dates.ts). */
export const QueryDate = Type.String({ description: QUERY_DATE_RULE });
/** A query date whose description says what it bounds, then the rule. */
/** `groupBy=day`: the answer also holds one bucket per UTC day of the range (a chart in one request). */
export const GroupByDayQuery = Type.Optional(
  Type.Literal('day', {
    description:
      'day: also answer `days`, the same figures per UTC day of the range, oldest first (the first and last day cut at the range edges). At most 366 days.',
  }),
);

export const QueryDateOf = (what: string) => Type.String({ description: `${what} ${QUERY_DATE_RULE}` });

export const LogLevelSchema = Type.Union(
  [Type.Literal('Fatal'), Type.Literal('Error'), Type.Literal('Warning'), Type.Literal('Info')],
  { $id: 'LogLevel' },
);
export const LogModeSchema = Type.Union([Type.Literal('Text'), Type.Literal('TextAndHtml')], { $id: 'LogMode' });
/** A Run's log settings as a start, a run-all or a Schedule body sends them: both optional, null means the default. */
export const RunLogOptionsInput = {
  logLevel: Type.Optional(Nullable(Type.Ref(LogLevelSchema))),
  logMode: Type.Optional(Nullable(Type.Ref(LogModeSchema))),
};
export const ParallelExportSchema = Type.Union([Type.Literal('Combined'), Type.Literal('Separated')], {
  $id: 'ParallelExport',
});
/** parallelExport as a request may send it: also the alias `separate` (normalize.ts maps it). */
export const ParallelExportInput = Type.Unsafe<'Combined' | 'Separated'>({
  ...Type.Ref(ParallelExportSchema),
  'x-aliases': { separate: 'Separated' },
});
