// Pure rules of the billing reports' query inputs: date ranges, sort columns, paging and time buckets.
// Invalid values throw ValidationError (400 VALIDATION_FAILED).
import { ValidationError } from '../../lib/errors.js';
import { DAY_MS, parseQueryRange } from '../../lib/query-dates.js';

export interface DateRange {
  /** Inclusive. */
  start: Date;
  /** Exclusive: a date-only end covers that whole day, a date-time end is included to the millisecond. */
  endExclusive: Date;
  /** The inclusive end echoed in responses. */
  end: Date;
}

/** A range from the two query dates (docs/decisions.md, API and contract); `fallback` supplies missing ones. */
export function parseRange(
  startDate: string | undefined,
  endDate: string | undefined,
  fallback?: { start: Date; end: Date },
): DateRange {
  const r = parseQueryRange(
    { startDate, endDate },
    fallback ? { end: () => new Date(fallback.end.getTime() + 1), start: () => fallback.start } : {},
  );
  return { start: r.start, endExclusive: r.end, end: new Date(r.end.getTime() - 1) };
}

export const startOfUtcDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
export const addDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * DAY_MS;
// 1970-01-01 was a Thursday: ISO weeks start 3 days before the epoch's multiples of 7 days.
const MONDAY_OFFSET_MS = 3 * DAY_MS;

/** The Monday 00:00 UTC that starts the ISO week of `d`. */
export const startOfUtcWeek = (d: Date) =>
  new Date(Math.floor((d.getTime() + MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS - MONDAY_OFFSET_MS);

/** Where a part of a report range is summed from: a rollup (UsageWeekly, UsageDaily, UsageHourly) or the usage records. */
export type RangeSource = 'week' | 'day' | 'hour' | 'record';
export interface RangePart {
  source: RangeSource;
  from: Date;
  /** Exclusive. */
  to: Date;
}

const ROLLUP_UNITS: Array<{ source: Exclude<RangeSource, 'record'>; floor: (ms: number) => number; size: number }> = [
  { source: 'week', floor: (ms) => startOfUtcWeek(new Date(ms)).getTime(), size: WEEK_MS },
  { source: 'day', floor: (ms) => Math.floor(ms / DAY_MS) * DAY_MS, size: DAY_MS },
  { source: 'hour', floor: (ms) => Math.floor(ms / HOUR_MS) * HOUR_MS, size: HOUR_MS },
];

/**
 * Splits a range into the fewest rollup rows: its whole ISO weeks, then the whole days and whole
 * hours around them, and the partial hours at its two ends (from the usage records). The parts are
 * disjoint and cover the range exactly.
 */
export function splitForRollups(range: DateRange): RangePart[] {
  const parts: RangePart[] = [];
  const split = (from: number, to: number, unit: number): void => {
    if (from >= to) return;
    if (unit === ROLLUP_UNITS.length) {
      parts.push({ source: 'record', from: new Date(from), to: new Date(to) });
      return;
    }
    const { source, floor, size } = ROLLUP_UNITS[unit];
    const firstWhole = floor(from) === from ? from : floor(from) + size;
    const afterLastWhole = floor(to);
    if (afterLastWhole <= firstWhole) {
      split(from, to, unit + 1);
      return;
    }
    split(from, firstWhole, unit + 1);
    parts.push({ source, from: new Date(firstWhole), to: new Date(afterLastWhole) });
    split(afterLastWhole, to, unit + 1);
  };
  split(range.start.getTime(), range.endExclusive.getTime(), 0);
  return parts;
}

export const TIME_UNITS = ['day', 'week', 'month'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export function parseTimeUnit(value: string | undefined): TimeUnit {
  if (value === undefined || value.trim() === '') return 'day';
  const unit = TIME_UNITS.find((u) => u === value.trim().toLowerCase());
  if (!unit) throw new ValidationError(`querystring.timeUnit must be one of ${TIME_UNITS.join(', ')}; got '${value}'.`);
  return unit;
}

/** The most labels a cost breakdown answers; a longer range needs a coarser timeUnit. */
export const MAX_BUCKETS = 1000;

/** The bucket a time falls in: its label (day and week: YYYY-MM-DD of the first day, month: YYYY-MM). */
export function bucketLabel(at: Date, unit: TimeUnit): string {
  const day = startOfUtcDay(at);
  if (unit === 'day') return day.toISOString().slice(0, 10);
  if (unit === 'month') return day.toISOString().slice(0, 7);
  return startOfUtcWeek(day).toISOString().slice(0, 10);
}

/** Every bucket label from the range's start to its end, in order. */
export function bucketLabels(range: DateRange, unit: TimeUnit): string[] {
  const labels: string[] = [];
  let cursor = startOfUtcDay(range.start);
  while (cursor.getTime() < range.endExclusive.getTime()) {
    const label = bucketLabel(cursor, unit);
    if (labels[labels.length - 1] !== label) {
      labels.push(label);
      if (labels.length > MAX_BUCKETS) {
        throw new ValidationError(
          `The range has more than ${MAX_BUCKETS} ${unit}s; choose a shorter range or a coarser timeUnit.`,
        );
      }
    }
    cursor = addDays(cursor, 1);
  }
  return labels;
}

export function parseSort<C extends string>(value: string | undefined, columns: readonly C[], fallback: C): C {
  if (value === undefined || value.trim() === '') return fallback;
  const hit = columns.find((c) => c.toLowerCase() === value.trim().toLowerCase());
  if (!hit) throw new ValidationError(`querystring.sortColumn must be one of ${columns.join(', ')}; got '${value}'.`);
  return hit;
}
