// When to try a page again: exponential backoff, or what the server asked for (within a bound).

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;
/** A server asking to wait longer than this is not waited for longer. */
export const MAX_RETRY_AFTER_MS = 30_000;

/** Retry-After as milliseconds (delta-seconds or HTTP date); null when absent or unusable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential backoff with jitter: base * 2^(attempt-1), scaled by a random factor in [0.5, 1). */
export function backoffDelay(attempt: number, baseMs: number, random = Math.random): number {
  return Math.round(baseMs * 2 ** (attempt - 1) * (0.5 + random() * 0.5));
}
