// The delivery retry schedule (Standard Webhooks' recommended one): pure, so it is tested
// with an injected clock and random source.
import { DAY_MS } from '../../lib/query-dates.js';
import { DISABLE_AFTER_FAILING_DAYS } from '../../schemas/webhooks.js';

/** Delay before attempt n+1 (index n-1 after attempt n); attempt 1 goes out at once. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];
/** Attempts in all: the first one plus one per scheduled retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Each delay is spread by up to this fraction either way, so retries of many deliveries do not align. */
export const RETRY_JITTER = 0.1;
/** A subscription whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = DISABLE_AFTER_FAILING_DAYS * DAY_MS;
/** A Retry-After is honoured up to the longest scheduled delay. */
const MAX_RETRY_AFTER_MS = 10 * 3600_000;

/**
 * When to try again after attempt `attemptsMade` failed, or null when that was the last one.
 * A `Retry-After` (429/503) lengthens the delay when it asks for more than the schedule.
 */
export function nextAttemptAt(
  now: Date,
  attemptsMade: number,
  opts: { retryAfterMs?: number | null; random?: () => number } = {},
): Date | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  const random = opts.random ?? Math.random;
  const jittered = Math.round(base * (1 + RETRY_JITTER * (2 * random() - 1)));
  const asked = Math.min(opts.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return new Date(now.getTime() + Math.max(jittered, asked));
}

/** True when a subscription failing since `failingSince` has failed long enough to be disabled. */
export function failedTooLong(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
}
