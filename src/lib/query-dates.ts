// The one reading of the startDate/endDate query parameters (docs/decisions.md, API and contract), used
// by Runs, analytics, billing and the upcoming Schedules:
// - a date (2026-01-31) or a date-time (2026-01-31T12:00, seconds and fraction optional); a
//   date-time without a zone is UTC;
// - a range is [start, end): a date as startDate is its midnight UTC; a date as endDate covers that
//   whole day (the end is the next midnight), and a date-time endDate is included to the millisecond.
import { ValidationError } from './errors.js';

export const DAY_MS = 86_400_000;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The parameter's description in the OpenAPI document, the same for every endpoint. */
export const QUERY_DATE_RULE =
  'ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z; no zone means UTC). A date as endDate covers that whole day; a date-time endDate is included.';

/** Date.parse rolls 2026-02-30 over to March 2: a day the calendar does not have is refused. */
function isCalendarDay(ymd: string): boolean {
  const [y, mo, d] = ymd.split('-').map(Number);
  const at = new Date(Date.UTC(y, mo - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
}

export type DateEdge = 'start' | 'end';

/**
 * A query date as the instant its edge of a range starts at: the inclusive start for `start`, the
 * exclusive end for `end`.
 */
export function parseQueryDate(value: string, name: string, edge: DateEdge): Date {
  const m = value.trim().match(ISO);
  let ms = NaN;
  if (m) {
    const dateOnly = m[2] === undefined;
    ms = Date.parse(dateOnly ? `${m[1]}T00:00:00Z` : `${m[1]}T${m[2]}${m[3] ?? 'Z'}`);
    if (!isCalendarDay(m[1])) ms = NaN;
    if (!Number.isNaN(ms) && edge === 'end') ms += dateOnly ? DAY_MS : 1;
  }
  if (Number.isNaN(ms))
    throw new ValidationError(
      `querystring.${name} must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z); got '${value}'.`,
    );
  return new Date(ms);
}

/** The one date range of the service: [start, end). */
export interface DateRange {
  /** Inclusive. */
  start: Date;
  /** Exclusive. */
  end: Date;
}

/** The bounds that were given (an open range where one is missing), in order. */
export function parseOpenQueryRange(q: { startDate?: string; endDate?: string }): Partial<DateRange> {
  const given = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v : undefined);
  const endText = given(q.endDate);
  const startText = given(q.startDate);
  const end = endText !== undefined ? parseQueryDate(endText, 'endDate', 'end') : undefined;
  const start = startText !== undefined ? parseQueryDate(startText, 'startDate', 'start') : undefined;
  if (start && end && end.getTime() <= start.getTime())
    throw new ValidationError(
      `querystring.endDate (${end.toISOString()}, exclusive) must be after querystring.startDate (${start.toISOString()}).`,
    );
  return { start, end };
}

/**
 * The range of two optional query dates; `defaults` gives a missing end and, from the end, a missing
 * start. Without a default, the parameter is required.
 */
export function parseQueryRange(
  q: { startDate?: string; endDate?: string },
  defaults: { end?: () => Date; start?: (end: Date) => Date } = {},
): DateRange {
  const open = parseOpenQueryRange(q);
  if (!open.end && !defaults.end) throw new ValidationError('querystring.endDate is required.');
  if (!open.start && !defaults.start) throw new ValidationError('querystring.startDate is required.');
  const end = open.end ?? defaults.end!();
  const start = open.start ?? defaults.start!(end);
  if (end.getTime() <= start.getTime())
    throw new ValidationError(
      `querystring.endDate (${end.toISOString()}, exclusive) must be after querystring.startDate (${start.toISOString()}).`,
    );
  return { start, end };
}

/** `groupBy=day` answers one bucket per UTC day; a range may span at most this many days. */
export const MAX_DAY_BUCKETS = 366;

export interface DayBucket extends DateRange {
  /** The UTC day (2026-01-31) the bucket lies in. */
  date: string;
}

/**
 * The range cut at each UTC midnight, oldest first: whole days inside, the partial days at both edges
 * as they are. More than MAX_DAY_BUCKETS is refused (each bucket is its own sum).
 */
export function utcDayBuckets(r: DateRange): DayBucket[] {
  const first = Math.floor(r.start.getTime() / DAY_MS) * DAY_MS;
  const count = Math.ceil((r.end.getTime() - first) / DAY_MS);
  if (count > MAX_DAY_BUCKETS)
    throw new ValidationError(
      `querystring.groupBy=day covers at most ${MAX_DAY_BUCKETS} days; the range spans ${count}.`,
    );
  return Array.from({ length: count }, (_, i) => {
    const day = first + i * DAY_MS;
    return {
      date: new Date(day).toISOString().slice(0, 10),
      start: new Date(Math.max(day, r.start.getTime())),
      end: new Date(Math.min(day + DAY_MS, r.end.getTime())),
    };
  });
}
