// Pure rules of the billing reports' query inputs: date ranges, sort columns, paging and time buckets.
// Invalid values throw ValidationError (400 VALIDATION_FAILED).
import { ValidationError } from '../../lib/errors.js';
import { DAY_MS, parseQueryRange, type DateRange } from '../../lib/query-dates.js';
import { startOfUtcWeek } from '../../lib/rollup-periods.js';

/** A range from the two query dates (docs/decisions.md, API and contract); `fallback` supplies missing ones. */
export function parseRange(
  startDate: string | undefined,
  endDate: string | undefined,
  fallback?: { start: Date; end: Date },
): DateRange {
  return parseQueryRange(
    { startDate, endDate },
    fallback ? { end: () => new Date(fallback.end.getTime() + 1), start: () => fallback.start } : {},
  );
}

/** The last millisecond of a range: the billing reports echo their end inclusive. */
export const inclusiveEnd = (range: DateRange) => new Date(range.end.getTime() - 1);

export const startOfUtcDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
export const addDays = (d: Date, n: number) => new Date(d.getTime() + n * DAY_MS);

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
  while (cursor.getTime() < range.end.getTime()) {
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
