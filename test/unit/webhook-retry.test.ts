// The webhook retry schedule (now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, +-10% jitter), Retry-After
// and the 5-day disabling rule, with an injected clock and random source.
import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILING_MS,
  failedTooLong,
  MAX_ATTEMPTS,
  nextAttemptAt,
} from '../../src/services/webhooks/retry-schedule.js';

const now = new Date('2026-11-25T12:00:00Z');
const delay = (attemptsMade: number, random: () => number, retryAfterMs?: number) => {
  const at = nextAttemptAt(now, attemptsMade, { random, retryAfterMs });
  return at === null ? null : at.getTime() - now.getTime();
};
const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('retry schedule', () => {
  it('follows the schedule exactly at zero jitter, then gives up after the 8th attempt', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => delay(n, mid))).toEqual([
      5 * S,
      5 * M,
      30 * M,
      2 * H,
      5 * H,
      10 * H,
      10 * H,
    ]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(delay(8, mid)).toBeNull();
    expect(delay(9, mid)).toBeNull();
  });

  it('spreads each delay by at most 10% either way', () => {
    expect(delay(1, () => 0)).toBe(4.5 * S);
    expect(delay(1, () => 0.999999)).toBeCloseTo(5.5 * S, -1);
    expect(delay(7, () => 0)).toBe(9 * H);
  });

  it('honours a longer Retry-After, never a shorter one, and caps it at 10 h', () => {
    expect(delay(1, () => 0.5, 60 * S)).toBe(60 * S);
    expect(delay(3, () => 0.5, 1 * S)).toBe(30 * M);
    expect(delay(1, () => 0.5, 48 * H)).toBe(10 * H);
  });

  it('disables a subscription failing for 5 days, not before', () => {
    expect(failedTooLong(null, now)).toBe(false);
    expect(failedTooLong(new Date(now.getTime() - DISABLE_AFTER_FAILING_MS + 1), now)).toBe(false);
    expect(failedTooLong(new Date(now.getTime() - DISABLE_AFTER_FAILING_MS), now)).toBe(true);
    expect(DISABLE_AFTER_FAILING_MS).toBe(5 * 24 * H);
  });

  it('an event failing every attempt spans about 28 hours from the first attempt to the last', () => {
    let t = 0;
    for (let n = 1; n < MAX_ATTEMPTS; n += 1) t += delay(n, () => 0.5)!;
    expect(t).toBe(5 * S + 5 * M + 30 * M + 2 * H + 5 * H + 10 * H + 10 * H);
  });
});
