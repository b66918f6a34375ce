// The time maths of Schedules, pure: every function takes the instants it needs (no clock inside).
// CRON expressions are evaluated on the Schedule zone's wall clock (cron-parser over a "floating"
// local time), and each local fire time is then placed on the time line with luxon:
//  - a local time inside a spring-forward gap fires once, at the first valid instant after it
//    (the end of the gap); several fire times in one gap collapse into that one instant;
//  - a local time in the repeated fall-back hour fires once, at its first occurrence.
// RunEvery is anchored at its startTime: fire k is start + k * period, computed from the anchor
// every time (so month clamping never drifts: Jan 31 -> Feb 28/29 -> Mar 31).
import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import { DateTime, IANAZone } from 'luxon';

export const ScheduleType = { None: 0, RunOnce: 1, RunEvery: 2, Cron: 3 } as const;
export const RunEveryPeriod = { Minutes: 1, Hours: 2, Days: 3, Weeks: 4, Months: 5 } as const;

export interface ScheduleTiming {
  scheduleType: number;
  cronExpression: string | null;
  timezone: string | null;
  startTime: Date | null;
  runEveryCount: number | null;
  runEveryPeriod: number | null;
}

const DAY_MS = 86_400_000;

export function isValidTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

export function zoneOf(t: Pick<ScheduleTiming, 'timezone'>): string {
  return t.timezone && t.timezone.trim() !== '' ? t.timezone : 'UTC';
}

/** null when the expression is a valid 5- or 6-field cron expression, else why it is not. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6)
    return `a cron expression has 5 or 6 fields, this one has ${fields.length}`;
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', strict: false });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function offsetAt(ms: number, zone: string): number {
  return DateTime.fromMillis(ms, { zone }).offset * 60_000;
}

/**
 * The instant of a wall-clock time in `zone`, given as the epoch milliseconds of the same wall
 * clock read in UTC. A time in a fold resolves to its first occurrence; a time in a gap to the end
 * of the gap (the first valid instant after it).
 */
export function localToInstant(localMs: number, zone: string): number {
  const before = offsetAt(localMs - DAY_MS, zone);
  const after = offsetAt(localMs + DAY_MS, zone);
  const candidates = [localMs - before, localMs - after].filter((ms) => offsetAt(ms, zone) === localMs - ms);
  if (candidates.length) return Math.min(...candidates);
  // A gap: the offset changes somewhere between the two readings; find the first instant past it.
  let lo = Math.min(localMs - before, localMs - after);
  let hi = Math.max(localMs - before, localMs - after);
  const loOffset = offsetAt(lo, zone);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (offsetAt(mid, zone) === loOffset) lo = mid;
    else hi = mid;
  }
  return hi - (hi % 1000);
}

/** The wall clock of `instant` in `zone`, as epoch milliseconds read in UTC. */
export function instantToLocal(ms: number, zone: string): number {
  return ms + offsetAt(ms, zone);
}

function nextCron(expression: string, zone: string, after: Date): Date | null {
  const fields = expression.trim().split(/\s+/).join(' ');
  // Start one second before the wall clock of `after`: the first candidates are at or after it.
  const startLocal = instantToLocal(after.getTime(), zone) - 1000;
  const it = CronExpressionParser.parse(fields, { tz: 'UTC', currentDate: new Date(startLocal) });
  // A fold can put up to an hour of candidates before `after`; a gap collapses several onto one.
  for (let i = 0; i < 100_000; i++) {
    if (!it.hasNext()) return null;
    const local = it.next().getTime();
    const instant = localToInstant(local, zone);
    if (instant > after.getTime()) return new Date(instant);
  }
  return null;
}

/** Start + k periods. Minutes and hours are durations; days, weeks and months follow the zone's calendar. */
export function addPeriods(start: Date, k: number, count: number, period: number, zone: string): Date {
  const n = k * count;
  switch (period) {
    case RunEveryPeriod.Minutes:
      return new Date(start.getTime() + n * 60_000);
    case RunEveryPeriod.Hours:
      return new Date(start.getTime() + n * 3_600_000);
    default: {
      const unit = period === RunEveryPeriod.Days ? 'days' : period === RunEveryPeriod.Weeks ? 'weeks' : 'months';
      // Calendar arithmetic on the wall clock (luxon clamps Jan 31 + 1 month to Feb 28/29), then
      // placed on the time line with the gap/fold rules.
      const local = DateTime.fromMillis(instantToLocal(start.getTime(), zone), { zone: 'UTC' }).plus({ [unit]: n });
      return new Date(localToInstant(local.toMillis(), zone));
    }
  }
}

function approxPeriodMs(period: number): number {
  // Months are taken at their longest so the estimate below is never past the answer.
  return period === RunEveryPeriod.Minutes
    ? 60_000
    : period === RunEveryPeriod.Hours
      ? 3_600_000
      : period === RunEveryPeriod.Days
        ? DAY_MS
        : period === RunEveryPeriod.Weeks
          ? 7 * DAY_MS
          : 31 * DAY_MS;
}

function nextRunEvery(t: ScheduleTiming, after: Date): Date | null {
  const start = t.startTime;
  const count = t.runEveryCount ?? 0;
  const period = t.runEveryPeriod ?? 0;
  if (!start || count < 1 || period < 1 || period > 5) return null;
  if (start > after) return start;
  const zone = zoneOf(t);
  // Estimate k from an approximate period length (a day of DST slack), then step to the exact answer.
  let k = Math.max(0, Math.floor((after.getTime() - start.getTime()) / (approxPeriodMs(period) * count)) - 1);
  while (addPeriods(start, k, count, period, zone) <= after) k++;
  while (k > 0 && addPeriods(start, k - 1, count, period, zone) > after) k--;
  return addPeriods(start, k, count, period, zone);
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireAfter(t: ScheduleTiming, after: Date): Date | null {
  switch (t.scheduleType) {
    case ScheduleType.RunOnce:
      return t.startTime && t.startTime > after ? t.startTime : null;
    case ScheduleType.RunEvery:
      return nextRunEvery(t, after);
    case ScheduleType.Cron:
      return t.cronExpression ? nextCron(t.cronExpression, zoneOf(t), after) : null;
    default:
      return null;
  }
}

/** Fire times in (from, to], at most `limit` of them. */
export function fireTimesBetween(t: ScheduleTiming, from: Date, to: Date, limit: number): Date[] {
  const out: Date[] = [];
  let cursor = from;
  while (out.length < limit) {
    const next = nextFireAfter(t, cursor);
    if (!next || next > to) break;
    out.push(next);
    cursor = next;
  }
  return out;
}

const PERIOD_NAMES: Partial<Record<number, [string, string]>> = {
  1: ['minute', 'minutes'],
  2: ['hour', 'hours'],
  3: ['day', 'days'],
  4: ['week', 'weeks'],
  5: ['month', 'months'],
};

function localStamp(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat('yyyy-MM-dd HH:mm');
}

/** A human-readable sentence for the Schedule (cronstrue for CRON). */
export function describeSchedule(t: ScheduleTiming): string | null {
  const zone = zoneOf(t);
  switch (t.scheduleType) {
    case ScheduleType.Cron:
      if (!t.cronExpression || cronProblem(t.cronExpression)) return null;
      return `${cronstrue.toString(t.cronExpression.trim(), { use24HourTimeFormat: true, verbose: false })} (${zone})`;
    case ScheduleType.RunOnce:
      return t.startTime ? `Once, at ${localStamp(t.startTime, zone)} (${zone})` : null;
    case ScheduleType.RunEvery: {
      const names = PERIOD_NAMES[t.runEveryPeriod ?? 0];
      if (!names || !t.runEveryCount || !t.startTime) return null;
      const every = t.runEveryCount === 1 ? `Every ${names[0]}` : `Every ${t.runEveryCount} ${names[1]}`;
      return `${every}, starting ${localStamp(t.startTime, zone)} (${zone})`;
    }
    default:
      return null;
  }
}

const ISO_PERIOD: Partial<Record<number, (n: number) => string>> = {
  1: (n) => `PT${n}M`,
  2: (n) => `PT${n}H`,
  3: (n) => `P${n}D`,
  4: (n) => `P${n}W`,
  5: (n) => `P${n}M`,
};

/**
 * The stored expression as one string: the cron expression for CRON; ISO 8601 for the others
 * (the instant for RunOnce, a repeating interval `R/<start>/<period>` for RunEvery).
 */
export function scheduleExpression(t: ScheduleTiming): string | null {
  switch (t.scheduleType) {
    case ScheduleType.Cron:
      return t.cronExpression;
    case ScheduleType.RunOnce:
      return t.startTime ? t.startTime.toISOString() : null;
    case ScheduleType.RunEvery: {
      const p = ISO_PERIOD[t.runEveryPeriod ?? 0];
      return p && t.startTime && t.runEveryCount ? `R/${t.startTime.toISOString()}/${p(t.runEveryCount)}` : null;
    }
    default:
      return null;
  }
}
