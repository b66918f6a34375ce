// Pure billing rules: metering a Run, spreading a cost over grants, and the report inputs (ranges,
// periods, paging, usage types).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meterRun, parseUsageTypes } from '../../src/services/billing/metering.js';
import { splitForRollups } from '../../src/lib/rollup-periods.js';
import { bucketLabel, bucketLabels, inclusiveEnd, parseRange } from '../../src/services/billing/report-range.js';
import { ValidationError } from '../../src/lib/errors.js';

const prices = { serverTimeHour: '1.5', exportGb: '0.5', agentInput: '0.001', proxyDataGb: '5', exportCpm: '0.1' };
const run = {
  startTime: new Date('2026-01-01T00:00:00Z'),
  endTime: new Date('2026-01-01T00:30:00Z'),
  inputCount: 3,
  traffic: 2_500_000_000n,
  proxyPoolId: 7,
  recordsExported: 1234,
};

describe('meterRun', () => {
  it('prices every usage type exactly', () => {
    const lines = meterRun(run, 1_000_000n, prices).map((l) => [
      l.usageType,
      l.quantity.toString(),
      l.unitPrice.toString(),
      l.cost.toString(),
    ]);
    expect(lines).toEqual([
      ['Server Time', '0.5', '1.5', '0.75'],
      ['Export GB', '0.001', '0.5', '0.0005'],
      ['Agent Inputs', '3', '0.001', '0.003'],
      ['Proxy Data', '2.5', '5', '12.5'],
      ['Export CPM', '1.234', '0.1', '0.1234'],
    ]);
  });

  it('leaves out what was not used: no proxy pool, never started, nothing exported', () => {
    const lines = meterRun({ ...run, startTime: null, proxyPoolId: null, recordsExported: 0 }, 0n, prices);
    expect(lines.map((l) => l.usageType)).toEqual(['Agent Inputs']);
  });

  it('rounds half-up to 6 places: quantity first, then cost', () => {
    // 1 ms = 0.000000277... h -> 0.000000 (left out); 1800 ms = 0.0005 h.
    expect(
      meterRun(
        {
          ...run,
          endTime: new Date(run.startTime.getTime() + 1),
          inputCount: 0,
          proxyPoolId: null,
          recordsExported: 0,
        },
        0n,
        prices,
      ),
    ).toEqual([]);
    const [st] = meterRun(
      {
        ...run,
        endTime: new Date(run.startTime.getTime() + 1800),
        inputCount: 0,
        proxyPoolId: null,
        recordsExported: 0,
      },
      0n,
      { ...prices, serverTimeHour: '0.333333' },
    );
    expect([st.quantity.toString(), st.cost.toString()]).toEqual(['0.0005', '0.000167']);
  });
});

describe('report inputs', () => {
  it('parses usage types case-insensitively and refuses unknown ones', () => {
    expect(parseUsageTypes(undefined)).toHaveLength(5);
    expect(parseUsageTypes(' server  time ,EXPORT CPM,Server Time')).toEqual(['Server Time', 'Export CPM']);
    expect(parseUsageTypes('Server Time,Gold')).toBeNull();
  });

  it('reads a date-only end as the whole day, a date-time end to the millisecond', () => {
    const r = parseRange('2026-01-01', '2026-01-31');
    expect([r.start.toISOString(), r.end.toISOString(), inclusiveEnd(r).toISOString()]).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
      '2026-01-31T23:59:59.999Z',
    ]);
    const t = parseRange('2026-01-01T10:00:00', '2026-01-02T10:00:00+02:00');
    expect([t.start.toISOString(), inclusiveEnd(t).toISOString()]).toEqual([
      '2026-01-01T10:00:00.000Z',
      '2026-01-02T08:00:00.000Z',
    ]);
    expect(() => parseRange('2026-02-30', '2026-03-01')).toThrow(ValidationError);
    expect(() => parseRange('2026-03-02', '2026-03-01')).toThrow(ValidationError);
    expect(() => parseRange(undefined, '2026-03-01')).toThrow(/startDate is required/);
  });

  it('splits a range into whole weeks, days and hours and partial edge hours', () => {
    const parts = (a: string, b: string) =>
      splitForRollups(parseRange(a, b), ['week', 'day', 'hour']).map((p) => [
        p.source,
        p.start.toISOString(),
        p.end.toISOString(),
      ]);
    // 2026-01-05 and 2026-01-19 are Mondays.
    expect(parts('2026-01-01T06:30:00Z', '2026-01-20T12:15:00Z')).toEqual([
      ['record', '2026-01-01T06:30:00.000Z', '2026-01-01T07:00:00.000Z'],
      ['hour', '2026-01-01T07:00:00.000Z', '2026-01-02T00:00:00.000Z'],
      ['day', '2026-01-02T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
      ['week', '2026-01-05T00:00:00.000Z', '2026-01-19T00:00:00.000Z'],
      ['day', '2026-01-19T00:00:00.000Z', '2026-01-20T00:00:00.000Z'],
      ['hour', '2026-01-20T00:00:00.000Z', '2026-01-20T12:00:00.000Z'],
      ['record', '2026-01-20T12:00:00.000Z', '2026-01-20T12:15:00.001Z'],
    ]);
    expect(parts('2026-01-01', '2026-01-03')).toEqual([
      ['day', '2026-01-01T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
    ]);
    expect(parts('2026-01-01T01:00:00Z', '2026-01-01T01:59:59.999Z')).toEqual([
      ['hour', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z'],
    ]);
  });

  it('splits any range into aligned, contiguous parts that cover it exactly (property)', () => {
    const unit = { week: 7 * 86_400_000, day: 86_400_000, hour: 3_600_000 } as const;
    const t = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) });
    fc.assert(
      fc.property(t, t, (x, y) => {
        const [a, b] = x <= y ? [x, y] : [y, x];
        const range = parseRange(new Date(a).toISOString(), new Date(b).toISOString());
        const ps = splitForRollups(range, ['week', 'day', 'hour']);
        let cursor = range.start.getTime();
        for (const p of ps) {
          expect(p.start.getTime()).toBe(cursor);
          expect(p.end.getTime()).toBeGreaterThan(cursor);
          if (p.source !== 'record') {
            // Aligned: weeks on Mondays (the epoch was a Thursday), days and hours on their boundaries.
            const shift = p.source === 'week' ? 3 * 86_400_000 : 0;
            expect((p.start.getTime() + shift) % unit[p.source]).toBe(0);
            expect((p.end.getTime() + shift) % unit[p.source]).toBe(0);
          }
          cursor = p.end.getTime();
        }
        expect(cursor).toBe(range.end.getTime());
      }),
    );
  });

  it('labels days, ISO weeks (by Monday) and months', () => {
    expect(bucketLabel(new Date('2026-01-04T23:00:00Z'), 'week')).toBe('2025-12-29');
    expect(bucketLabel(new Date('2026-01-05T00:00:00Z'), 'week')).toBe('2026-01-05');
    expect(bucketLabels(parseRange('2026-01-30', '2026-03-01'), 'month')).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(bucketLabels(parseRange('2026-01-01', '2026-01-03'), 'day')).toEqual([
      '2026-01-01',
      '2026-01-02',
      '2026-01-03',
    ]);
    expect(() => bucketLabels(parseRange('2000-01-01', '2010-01-01'), 'day')).toThrow(ValidationError);
  });
});
