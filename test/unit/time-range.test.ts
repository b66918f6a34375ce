// The date range of the analytics queries: parsing, defaults, the split into whole hours and edges,
// and the status filter.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/lib/errors.js';
import { parseStatusFilter, resolveRange, splitRange } from '../../src/services/analytics/time-range.js';

const d = (s: string) => new Date(s);

describe('resolveRange', () => {
  const now = d('2026-03-10T12:00:00Z');
  it('defaults to the 24 hours before now, and to the day before a given end', () => {
    expect(resolveRange({}, now)).toEqual({ start: d('2026-03-09T12:00:00Z'), end: now });
    // A date as endDate covers that whole day: by default the range is that day.
    expect(resolveRange({ endDate: '2026-03-01' }, now)).toEqual({
      start: d('2026-03-01T00:00:00Z'),
      end: d('2026-03-02T00:00:00Z'),
    });
    expect(resolveRange({ startDate: '2026-03-01' }, now)).toEqual({ start: d('2026-03-01T00:00:00Z'), end: now });
  });

  it('rejects an end before the start; one date as both is that whole day', () => {
    expect(() => resolveRange({ startDate: '2026-03-02', endDate: '2026-03-01' }, now)).toThrow(ValidationError);
    expect(resolveRange({ startDate: '2026-03-01', endDate: '2026-03-01' }, now)).toEqual({
      start: d('2026-03-01T00:00:00Z'),
      end: d('2026-03-02T00:00:00Z'),
    });
  });
});

describe('splitRange', () => {
  it('whole hours in the middle, partial hours at the edges', () => {
    const covered = { start: d('2026-03-01T11:00:00Z'), end: d('2026-03-01T13:00:00Z') };
    expect(splitRange({ start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T13:40:00Z') })).toEqual({
      covered,
      days: null,
      hours: [covered],
      edges: [
        { start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T11:00:00Z') },
        { start: d('2026-03-01T13:00:00Z'), end: d('2026-03-01T13:40:00Z') },
      ],
    });
  });

  it('whole days, then the whole hours around them, then the partial hours', () => {
    expect(splitRange({ start: d('2026-03-01T10:15:00Z'), end: d('2026-03-04T02:30:00Z') })).toEqual({
      covered: { start: d('2026-03-01T11:00:00Z'), end: d('2026-03-04T02:00:00Z') },
      days: { start: d('2026-03-02T00:00:00Z'), end: d('2026-03-04T00:00:00Z') },
      hours: [
        { start: d('2026-03-01T11:00:00Z'), end: d('2026-03-02T00:00:00Z') },
        { start: d('2026-03-04T00:00:00Z'), end: d('2026-03-04T02:00:00Z') },
      ],
      edges: [
        { start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T11:00:00Z') },
        { start: d('2026-03-04T02:00:00Z'), end: d('2026-03-04T02:30:00Z') },
      ],
    });
  });

  it('nothing but days when the range is on day boundaries', () => {
    const r = { start: d('2026-03-01T00:00:00Z'), end: d('2026-03-03T00:00:00Z') };
    expect(splitRange(r)).toEqual({ covered: r, days: r, hours: [], edges: [] });
  });

  it('within one hour, or across one boundary without a whole hour: edges only', () => {
    const inside = { start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T10:45:00Z') };
    expect(splitRange(inside)).toEqual({ covered: null, days: null, hours: [], edges: [inside] });
    const across = { start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T11:45:00Z') };
    expect(splitRange(across)).toEqual({ covered: null, days: null, hours: [], edges: [across] });
    expect(splitRange({ start: d('2026-03-01T10:15:00Z'), end: d('2026-03-01T10:15:00Z') })).toEqual({
      covered: null,
      days: null,
      hours: [],
      edges: [],
    });
  });
});

describe('parseStatusFilter', () => {
  it('a RunStatus integer, or a bucket name in any case', () => {
    expect(parseStatusFilter(undefined)).toBeUndefined();
    expect(parseStatusFilter('')).toBeUndefined();
    expect(parseStatusFilter('0')).toEqual([0]);
    expect(parseStatusFilter('12')).toEqual([12]);
    expect(parseStatusFilter('Completed')).toEqual([9, 10]);
    expect(parseStatusFilter('COMPLETEDWITHERRORS')).toEqual([9]);
    expect(parseStatusFilter('failed')).toEqual([6, 7]);
    expect(parseStatusFilter('Running')).toEqual([1, 2, 3, 5]);
    expect(parseStatusFilter('queued')).toEqual([4, 12]);
    expect(parseStatusFilter('Stopped')).toEqual([8]);
  });

  it('rejects other values', () => {
    for (const v of ['13', '-1', 'Success', 'run', '1.5']) expect(() => parseStatusFilter(v)).toThrow(ValidationError);
  });
});
