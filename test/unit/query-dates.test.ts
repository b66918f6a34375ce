// The one reading of startDate/endDate (src/lib/query-dates.ts), used by Runs, analytics, billing and
// the upcoming Schedules.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/lib/errors.js';
import { parseOpenQueryRange, parseQueryDate, parseQueryRange } from '../../src/lib/query-dates.js';

const iso = (d: Date | undefined) => d?.toISOString();

describe('parseQueryDate', () => {
  it('reads a date as its midnight UTC at the start, and as the next midnight at the end', () => {
    expect(iso(parseQueryDate('2026-01-31', 'startDate', 'start'))).toBe('2026-01-31T00:00:00.000Z');
    expect(iso(parseQueryDate('2026-01-31', 'endDate', 'end'))).toBe('2026-02-01T00:00:00.000Z');
  });

  it('reads a date-time without a zone as UTC, and includes a date-time end to the millisecond', () => {
    expect(iso(parseQueryDate('2026-01-31T10:20', 'startDate', 'start'))).toBe('2026-01-31T10:20:00.000Z');
    expect(iso(parseQueryDate('2026-01-31 10:20:30', 'startDate', 'start'))).toBe('2026-01-31T10:20:30.000Z');
    expect(iso(parseQueryDate('2026-01-31T10:20:30.5+02:00', 'startDate', 'start'))).toBe('2026-01-31T08:20:30.500Z');
    expect(iso(parseQueryDate('2026-01-31T10:20:30Z', 'endDate', 'end'))).toBe('2026-01-31T10:20:30.001Z');
  });

  it('refuses anything else, and days the calendar does not have, with the parameter named', () => {
    for (const v of [
      'yesterday',
      '01/31/2026',
      '2026-13-01',
      '2026-02-30',
      '2026-02-30T10:00+02:00',
      '2026-01-31T25:00',
      '',
      '1700000000',
    ]) {
      expect(() => parseQueryDate(v, 'startDate', 'start')).toThrow(ValidationError);
    }
    expect(() => parseQueryDate('soon', 'endDate', 'end')).toThrow(/querystring\.endDate must be an ISO 8601 date/);
  });
});

describe('ranges', () => {
  it('an open range keeps what was given', () => {
    expect(parseOpenQueryRange({})).toEqual({ start: undefined, end: undefined });
    expect(iso(parseOpenQueryRange({ endDate: '2026-01-31' }).end)).toBe('2026-02-01T00:00:00.000Z');
    expect(parseOpenQueryRange({ startDate: ' ' })).toEqual({ start: undefined, end: undefined });
  });

  it('one date as both start and end is that whole day; an end before the start is refused', () => {
    const r = parseQueryRange({ startDate: '2026-01-31', endDate: '2026-01-31' });
    expect([iso(r.start), iso(r.end)]).toEqual(['2026-01-31T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
    expect(() => parseOpenQueryRange({ startDate: '2026-02-01', endDate: '2026-01-31' })).toThrow(/must be after/);
    expect(() => parseQueryRange({ startDate: '2026-01-31T10:00Z', endDate: '2026-01-31T09:59:59Z' })).toThrow(
      ValidationError,
    );
  });

  it('fills missing bounds from the defaults, the start from the end; without a default it is required', () => {
    const now = new Date('2026-03-10T12:00:00Z');
    const r = parseQueryRange({}, { end: () => now, start: (end) => new Date(end.getTime() - 3_600_000) });
    expect([iso(r.start), iso(r.end)]).toEqual(['2026-03-10T11:00:00.000Z', '2026-03-10T12:00:00.000Z']);
    expect(() => parseQueryRange({ endDate: '2026-01-31' })).toThrow(/startDate is required/);
    expect(() => parseQueryRange({ startDate: '2026-01-31' })).toThrow(/endDate is required/);
  });
});
