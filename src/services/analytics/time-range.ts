// The one definition of "the Runs in a date range" (docs/decisions.md, Analytics): a Run falls in
// [startDate, endDate) when its `created` time (when it was started, i.e. queued) is at or after
// startDate and before endDate. Also the query inputs: ISO dates, status filters and their buckets.
import { ValidationError } from '../../lib/errors.js';
import { DAY_MS, parseQueryRange, type DateRange } from '../../lib/query-dates.js';
import { splitForRollups } from '../../lib/rollup-periods.js';
import { EXECUTING_STATUSES, RunStatus } from '../runs/status-machine.js';

/** endDate defaults to now, startDate to one day before the end (the last 24 hours, by default). */
export function resolveRange(q: { startDate?: string; endDate?: string }, now: Date): DateRange {
  return parseQueryRange(q, { end: () => now, start: (end) => new Date(end.getTime() - DAY_MS) });
}

export interface RangeParts {
  /** Whole UTC hours (the rollups cover them, plus the Runs of them not settled yet); null when none. */
  covered: DateRange | null;
  /** Whole UTC days inside `covered` (read from daily rollups where there are some); null when none. */
  days: DateRange | null;
  /** The whole hours of `covered` outside `days` (0 to 2 parts). */
  hours: DateRange[];
  /** The partial hours at both ends, read from the Runs themselves (0 to 2 parts). */
  edges: DateRange[];
}

const rangeOf = ({ start, end }: DateRange): DateRange => ({ start, end });

/** Splits a range into whole UTC days, whole UTC hours and the partial hours at its edges. */
export function splitRange(r: DateRange): RangeParts {
  const parts = splitForRollups(r, ['day', 'hour']);
  const whole = parts.filter((p) => p.source !== 'record');
  const day = parts.find((p) => p.source === 'day');
  return {
    covered: whole.length > 0 ? { start: whole[0].start, end: whole[whole.length - 1].end } : null,
    days: day ? rangeOf(day) : null,
    hours: parts.filter((p) => p.source === 'hour').map(rangeOf),
    edges: parts.filter((p) => p.source === 'record').map(rangeOf),
  };
}

/** The buckets of a Runs summary (docs/api-contract.md §6.4). totalRuns counts every status. */
export const RUN_BUCKETS = {
  completedRuns: [RunStatus.Completed, RunStatus.Success],
  completedWithErrorsRuns: [RunStatus.Completed],
  failedRuns: [RunStatus.Failure, RunStatus.Failed],
  runningRuns: EXECUTING_STATUSES,
  queuedRuns: [RunStatus.Queuing, RunStatus.Waiting],
  stoppedRuns: [RunStatus.Stopped],
} as const satisfies Record<string, readonly number[]>;

/** Bucket names accepted by the `status` filter (case-insensitive). */
const BUCKET_NAMES: Record<string, readonly number[]> = {
  completed: RUN_BUCKETS.completedRuns,
  completedwitherrors: RUN_BUCKETS.completedWithErrorsRuns,
  failed: RUN_BUCKETS.failedRuns,
  running: RUN_BUCKETS.runningRuns,
  queued: RUN_BUCKETS.queuedRuns,
  stopped: RUN_BUCKETS.stoppedRuns,
};

/** `status`: a RunStatus integer (0..12) or a bucket name; the statuses it selects. */
export function parseStatusFilter(value: string | undefined): number[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v) && Number(v) <= 12) return [Number(v)];
  const bucket = BUCKET_NAMES[v.toLowerCase()];
  if (bucket) return [...bucket];
  throw new ValidationError(
    `status '${value}' is neither a RunStatus integer (0-12) nor one of Completed, CompletedWithErrors, Failed, Running, Queued, Stopped.`,
  );
}
