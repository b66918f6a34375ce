// The time maths of Schedules: cron in the Schedule's zone across daylight-saving changes, RunEvery
// anchored at its start, RunOnce, descriptions and expressions. Pure functions, no clock.
import { describe, expect, it } from 'vitest';
import {
  addPeriods,
  cronProblem,
  describeSchedule,
  fireTimesBetween,
  isValidTimeZone,
  nextFireAfter,
  scheduleExpression,
  type ScheduleTiming,
} from '../../src/services/schedules/schedule-time.js';

const cron = (expr: string, timezone: string | null): ScheduleTiming => ({
  scheduleType: 3,
  cronExpression: expr,
  timezone,
  startTime: null,
  runEveryCount: null,
  runEveryPeriod: null,
});
const every = (start: string, count: number, period: number, timezone: string | null = null): ScheduleTiming => ({
  scheduleType: 2,
  cronExpression: null,
  timezone,
  startTime: new Date(start),
  runEveryCount: count,
  runEveryPeriod: period,
});
const iso = (ds: Date[]) => ds.map((d) => d.toISOString());
const between = (t: ScheduleTiming, from: string, to: string, limit = 50) =>
  iso(fireTimesBetween(t, new Date(from), new Date(to), limit));

describe('cron validation and zones', () => {
  it('accepts 5 and 6 fields and refuses other counts and out-of-range values', () => {
    expect(cronProblem('0 3 * * *')).toBeNull();
    expect(cronProblem('30 0 3 * * 1-5')).toBeNull();
    expect(cronProblem('* * * *')).toMatch(/5 or 6 fields/);
    expect(cronProblem('0 0 0 * * * 2026')).toMatch(/5 or 6 fields/);
    expect(cronProblem('61 * * * *')).not.toBeNull();
    expect(cronProblem('not a cron at all')).not.toBeNull();
  });

  it('knows IANA zones', () => {
    expect(isValidTimeZone('Europe/Paris')).toBe(true);
    expect(isValidTimeZone('Australia/Lord_Howe')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});

describe('cron in the Schedule zone', () => {
  it('evaluates on the zone wall clock (summer and winter offsets)', () => {
    expect(between(cron('0 9 * * *', 'Europe/Paris'), '2026-01-10T00:00:00Z', '2026-01-11T00:00:00Z')).toEqual([
      '2026-01-10T08:00:00.000Z',
    ]);
    expect(between(cron('0 9 * * *', 'Europe/Paris'), '2026-07-10T00:00:00Z', '2026-07-11T00:00:00Z')).toEqual([
      '2026-07-10T07:00:00.000Z',
    ]);
    expect(between(cron('0 9 * * *', null), '2026-07-10T00:00:00Z', '2026-07-11T00:00:00Z')).toEqual([
      '2026-07-10T09:00:00.000Z',
    ]);
  });

  it('Europe/Paris spring forward: a fire time in the gap runs once, at the end of the gap', () => {
    expect(between(cron('30 2 * * *', 'Europe/Paris'), '2026-03-28T00:00:00Z', '2026-03-31T00:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, the first valid instant after 02:30
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('Europe/Paris fall back: a fire time in the repeated hour runs once', () => {
    expect(between(cron('30 2 * * *', 'Europe/Paris'), '2026-10-24T00:00:00Z', '2026-10-27T00:00:00Z')).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST) only
      '2026-10-26T01:30:00.000Z',
    ]);
    expect(between(cron('*/20 * * * *', 'Europe/Paris'), '2026-10-25T00:10:00Z', '2026-10-25T02:30:00Z')).toEqual([
      '2026-10-25T00:20:00.000Z',
      '2026-10-25T00:40:00.000Z',
      '2026-10-25T02:00:00.000Z', // 03:00 CET: the second pass of 02:xx does not fire again
      '2026-10-25T02:20:00.000Z',
    ]);
  });

  it('America/New_York: several fire times inside the gap collapse into one', () => {
    expect(between(cron('*/15 2 * * *', 'America/New_York'), '2026-03-08T00:00:00Z', '2026-03-09T06:20:00Z')).toEqual([
      '2026-03-08T07:00:00.000Z', // 03:00 EDT
      '2026-03-09T06:00:00.000Z',
      '2026-03-09T06:15:00.000Z',
    ]);
    expect(between(cron('30 1 * * *', 'America/New_York'), '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-11-01T05:30:00.000Z', // 01:30 EDT, the first of the two
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('Australia/Lord_Howe: 30-minute gap and fold', () => {
    expect(between(cron('15 2 * * *', 'Australia/Lord_Howe'), '2026-10-02T00:00:00Z', '2026-10-05T00:00:00Z')).toEqual([
      '2026-10-02T15:45:00.000Z', // +10:30
      '2026-10-03T15:30:00.000Z', // 02:15 does not exist on Oct 4; 02:30 (+11) is the first valid instant
      '2026-10-04T15:15:00.000Z', // +11
    ]);
    expect(between(cron('45 1 * * *', 'Australia/Lord_Howe'), '2026-04-03T00:00:00Z', '2026-04-06T00:00:00Z')).toEqual([
      '2026-04-03T14:45:00.000Z',
      '2026-04-04T14:45:00.000Z', // the first 01:45 (+11) of the repeated half hour
      '2026-04-05T15:15:00.000Z', // +10:30
    ]);
  });

  it('6-field expressions fire on seconds', () => {
    expect(between(cron('*/20 * * * * *', 'UTC'), '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z')).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
  });

  it('the next fire is strictly after the given instant', () => {
    expect(nextFireAfter(cron('0 * * * *', 'UTC'), new Date('2026-01-01T05:00:00Z'))?.toISOString()).toBe(
      '2026-01-01T06:00:00.000Z',
    );
    expect(nextFireAfter(cron('0 * * * *', 'UTC'), new Date('2026-01-01T04:59:59.999Z'))?.toISOString()).toBe(
      '2026-01-01T05:00:00.000Z',
    );
  });
});

describe('RunEvery anchored at its start', () => {
  it('months clamp to the last day and do not drift (Jan 31 -> Feb 28 -> Mar 31), leap years included', () => {
    expect(between(every('2026-01-31T12:00:00Z', 1, 5), '2026-01-01T00:00:00Z', '2026-05-01T00:00:00Z')).toEqual([
      '2026-01-31T12:00:00.000Z',
      '2026-02-28T12:00:00.000Z',
      '2026-03-31T12:00:00.000Z',
      '2026-04-30T12:00:00.000Z',
    ]);
    expect(between(every('2028-01-31T12:00:00Z', 1, 5), '2028-02-01T00:00:00Z', '2028-03-01T00:00:00Z')).toEqual([
      '2028-02-29T12:00:00.000Z',
    ]);
    // Years later, still the last day of the month, computed from the anchor.
    expect(nextFireAfter(every('2026-01-31T12:00:00Z', 1, 5), new Date('2031-04-01T00:00:00Z'))?.toISOString()).toBe(
      '2031-04-30T12:00:00.000Z',
    );
  });

  it('days keep the local wall-clock time across daylight saving (Europe/Paris)', () => {
    expect(
      between(every('2026-03-27T08:00:00Z', 1, 3, 'Europe/Paris'), '2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z'),
    ).toEqual([
      '2026-03-27T08:00:00.000Z', // 09:00 CET
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z', // 09:00 CEST
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('minutes and hours are durations; weeks follow the calendar', () => {
    expect(between(every('2026-01-01T00:00:00Z', 90, 1), '2026-01-01T00:00:00Z', '2026-01-01T06:00:00Z')).toEqual([
      '2026-01-01T01:30:00.000Z',
      '2026-01-01T03:00:00.000Z',
      '2026-01-01T04:30:00.000Z',
      '2026-01-01T06:00:00.000Z',
    ]);
    expect(nextFireAfter(every('2026-01-01T00:00:00Z', 2, 2), new Date('2026-01-05T01:00:00Z'))?.toISOString()).toBe(
      '2026-01-05T02:00:00.000Z',
    );
    expect(
      nextFireAfter(
        every('2026-10-20T01:00:00Z', 1, 4, 'America/New_York'),
        new Date('2026-10-28T00:00:00Z'),
      )?.toISOString(),
    ).toBe('2026-11-03T02:00:00.000Z');
  });

  it('the first fire is the start itself; nothing before it', () => {
    expect(nextFireAfter(every('2026-06-01T10:00:00Z', 1, 2), new Date('2026-01-01T00:00:00Z'))?.toISOString()).toBe(
      '2026-06-01T10:00:00.000Z',
    );
  });

  it('a period landing in a gap moves to the end of the gap (Lord Howe, days)', () => {
    // 02:10 local each day; on 2026-10-04 02:10 does not exist (02:00 -> 02:30).
    const t = every('2026-10-02T15:40:00Z', 1, 3, 'Australia/Lord_Howe');
    expect(iso([addPeriods(t.startTime!, 1, 1, 3, 'Australia/Lord_Howe')])).toEqual(['2026-10-03T15:30:00.000Z']);
    expect(iso([addPeriods(t.startTime!, 2, 1, 3, 'Australia/Lord_Howe')])).toEqual(['2026-10-04T15:10:00.000Z']);
  });
});

describe('RunOnce and None', () => {
  it('RunOnce fires once at its start time', () => {
    const t: ScheduleTiming = {
      scheduleType: 1,
      cronExpression: null,
      timezone: null,
      startTime: new Date('2026-05-01T10:00:00Z'),
      runEveryCount: null,
      runEveryPeriod: null,
    };
    expect(nextFireAfter(t, new Date('2026-05-01T09:00:00Z'))?.toISOString()).toBe('2026-05-01T10:00:00.000Z');
    expect(nextFireAfter(t, new Date('2026-05-01T10:00:00Z'))).toBeNull();
  });

  it('None never fires', () => {
    expect(nextFireAfter({ ...cron('* * * * *', null), scheduleType: 0 }, new Date())).toBeNull();
  });
});

describe('descriptions and expressions', () => {
  it('describes cron with cronstrue and the zone, and the other types in words', () => {
    expect(describeSchedule(cron('0 3 * * 1-5', 'Europe/Paris'))).toBe(
      'At 03:00, Monday through Friday (Europe/Paris)',
    );
    expect(describeSchedule(every('2026-01-31T09:00:00Z', 2, 2, 'Europe/Paris'))).toBe(
      'Every 2 hours, starting 2026-01-31 10:00 (Europe/Paris)',
    );
    expect(describeSchedule(every('2026-01-31T09:00:00Z', 1, 3))).toBe('Every day, starting 2026-01-31 09:00 (UTC)');
  });

  it('gives the stored expression: cron, an ISO instant, an ISO repeating interval', () => {
    expect(scheduleExpression(cron('0 3 * * *', null))).toBe('0 3 * * *');
    expect(scheduleExpression(every('2026-01-31T09:00:00Z', 1, 5))).toBe('R/2026-01-31T09:00:00.000Z/P1M');
    expect(scheduleExpression(every('2026-01-31T09:00:00Z', 15, 1))).toBe('R/2026-01-31T09:00:00.000Z/PT15M');
  });
});
