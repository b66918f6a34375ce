// How a date range is read from rollup tables: the one split of a range into whole periods (ISO weeks,
// UTC days, UTC hours) and the partial hours at its ends, used by the billing and analytics reports.
import { DAY_MS, type DateRange } from './query-dates.js';

export const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * DAY_MS;
// 1970-01-01 was a Thursday: ISO weeks start 3 days before the epoch's multiples of 7 days.
const MONDAY_OFFSET_MS = 3 * DAY_MS;

/** The Monday 00:00 UTC that starts the ISO week of `d`. */
export const startOfUtcWeek = (d: Date) =>
  new Date(Math.floor((d.getTime() + MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS - MONDAY_OFFSET_MS);

export type RollupPeriod = 'week' | 'day' | 'hour';
/** Where a part of a range is summed from: a rollup of whole periods, or the underlying rows ('record'). */
export interface RangePart extends DateRange {
  source: RollupPeriod | 'record';
}

const FLOOR: Record<RollupPeriod, { floor: (ms: number) => number; size: number }> = {
  week: { floor: (ms) => startOfUtcWeek(new Date(ms)).getTime(), size: WEEK_MS },
  day: { floor: (ms) => Math.floor(ms / DAY_MS) * DAY_MS, size: DAY_MS },
  hour: { floor: (ms) => Math.floor(ms / HOUR_MS) * HOUR_MS, size: HOUR_MS },
};

/**
 * Splits a range into the fewest rollup rows: its whole periods of the first (largest) kind, then the
 * whole periods of the next kinds around them, and the partial pieces at its two ends (read from the
 * rows themselves). The parts are disjoint, in order, and cover the range exactly.
 */
export function splitForRollups(range: DateRange, periods: readonly RollupPeriod[]): RangePart[] {
  const parts: RangePart[] = [];
  const split = (from: number, to: number, level: number): void => {
    if (from >= to) return;
    if (level === periods.length) {
      parts.push({ source: 'record', start: new Date(from), end: new Date(to) });
      return;
    }
    const { floor, size } = FLOOR[periods[level]];
    const firstWhole = floor(from) === from ? from : floor(from) + size;
    const afterLastWhole = floor(to);
    if (afterLastWhole <= firstWhole) {
      split(from, to, level + 1);
      return;
    }
    split(from, firstWhole, level + 1);
    parts.push({ source: periods[level], start: new Date(firstWhole), end: new Date(afterLastWhole) });
    split(afterLastWhole, to, level + 1);
  };
  split(range.start.getTime(), range.end.getTime(), 0);
  return parts;
}
