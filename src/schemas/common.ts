// Shared schema primitives: ids, dates, paging, and the two error shapes of the spec.
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
  { $id: 'ProblemDetails', additionalProperties: true, description: 'RFC 7807 problem details.' },
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
  { $id: 'BadRequestError' },
);
export type BadRequestError = Static<typeof BadRequestErrorSchema>;

export const ProblemRef = Type.Ref(ProblemDetailsSchema);
export const BadRequestRef = Type.Ref(BadRequestErrorSchema);

/** Error responses most authenticated routes share, merged into a route's `response`. */
export function errorResponses<K extends 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503>(...codes: K[]) {
  const out: Record<number, TSchema> = {};
  for (const code of codes) {
    out[code] = code === 400 ? BadRequestRef : ProblemRef;
  }
  return out as Record<K, TSchema>;
}

export const StdErrors = errorResponses(400, 401, 403, 404, 429);

/** Every id column is an int32; the request validator also bounds any integer a schema leaves open. */
export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
export const Int32 = (options: { description?: string; minimum?: number; maximum?: number; default?: number } = {}) =>
  Type.Integer({ format: 'int32', minimum: INT32_MIN, maximum: INT32_MAX, ...options });

/** A positive id; every id column is an int32 (the spec says so for agentId, proxyPoolId, serverGroupId). */
export const IdParam = (name: string, description?: string) =>
  Type.Integer({ format: 'int32', minimum: 1, maximum: INT32_MAX, description: description ?? `${name} identifier` });

/** A proxy pool chosen in a request (service-spec: proxyPoolId is an int32); 0 or less means none. */
export const ProxyPoolIdInput = (description = '0 or less means unset.') => Nullable(Int32({ description }));

// Services hand Dates to the serializer, which writes ISO 8601 strings; the wire type stays a string.
export const DateTime = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
/** A date-time received in a request body or query. */
export const DateTimeInput = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([DateTime, Type.Null()]);
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Paging of list routes: both at least 1 (400 otherwise); recordsPerPage over 1000 is clamped to 1000. */
export const PagingQuery = {
  pageIndex: Type.Optional(
    Type.Integer({ minimum: 1, maximum: INT32_MAX, description: '1-based page number; pagination is enabled when given with recordsPerPage.' }),
  ),
  recordsPerPage: Type.Optional(Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'Page size; values over 1000 are clamped to 1000.' })),
};

/** Query dates: a date (2026-01-31) or a date-time. */
export const QueryDate = Type.String({ description: 'ISO 8601 date or date-time (UTC).' });

export const LogLevelSchema = Type.Union(
  [Type.Literal('Fatal'), Type.Literal('Error'), Type.Literal('Warning'), Type.Literal('Info')],
  { $id: 'LogLevel' },
);
export const LogModeSchema = Type.Union([Type.Literal('Text'), Type.Literal('TextAndHtml')], { $id: 'LogMode' });
export const ParallelExportSchema = Type.Union([Type.Literal('Combined'), Type.Literal('Separated')], { $id: 'ParallelExport' });
