// When to try a page again: exponential backoff, or what the server asked for (within a bound).
import { setTimeout as delay } from 'node:timers/promises';

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

/** Answers worth another attempt: server errors and 429 Too Many Requests. */
export const isRetryableStatus = (status: number) => status >= 500 || status === 429;

/** What the server asked to wait, from Retry-After on 429 and 503 (ignored on other statuses). */
export function retryAfterOf(status: number, retryAfter: string | null | undefined): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  return parseRetryAfter(retryAfter ?? null) ?? undefined;
}

/** The wait before the next attempt: what the server asked for (capped), or the backoff. */
export function retryDelay(attempt: number, baseMs: number, retryAfterMs?: number): number {
  return retryAfterMs !== undefined ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) : backoffDelay(attempt, baseMs);
}

export interface RetryEvent {
  url: string;
  /** 1-based number of the attempt that failed. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  message: string;
}

/** What a failed attempt tells the retry loop. */
export interface FailedAttempt {
  retryable: boolean;
  message: string;
  retryAfterMs?: number;
}

export type AttemptResult<T, F> =
  | { ok: true; value: T }
  | { ok: false; failure: F }
  /** The attempt did not go out (a stop, or canStart said no), or was cut short by a stop. */
  | { ok: false; aborted: true; started: boolean };

export type RetriedResult<T, F> =
  { ok: true; value: T } | { ok: false; failure: F; attempts: number } | { ok: false; aborted: true; attempts: number };

export interface RetrySettings {
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** A stop: no attempt starts and no wait goes on once it is aborted (a wait in progress ends at once). */
  signal: AbortSignal;
  /** Asked before each attempt and before waiting to retry: false gives up (a graceful stop starts nothing). */
  canStart?: () => boolean;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * The retry loop of both renderers: tries `attempt` until it succeeds, fails for good (not retryable,
 * or out of attempts) or a stop comes. Between attempts it waits retryDelay, interruptibly.
 */
export async function withRetries<T, F extends FailedAttempt>(
  url: string,
  settings: RetrySettings,
  attempt: (n: number) => Promise<AttemptResult<T, F>>,
): Promise<RetriedResult<T, F>> {
  const { signal, canStart } = settings;
  const maxAttempts = (settings.maxRetries ?? DEFAULT_MAX_RETRIES) + 1;
  for (let n = 1; ; n++) {
    if (signal.aborted || canStart?.() === false) return { ok: false, aborted: true, attempts: n - 1 };
    const result = await attempt(n);
    if (result.ok) return result;
    if ('aborted' in result) return { ok: false, aborted: true, attempts: result.started ? n : n - 1 };
    if (signal.aborted) return { ok: false, aborted: true, attempts: n };
    const { failure } = result;
    if (!failure.retryable || n >= maxAttempts) return { ok: false, failure, attempts: n };
    if (canStart?.() === false) return { ok: false, aborted: true, attempts: n };
    const delayMs = retryDelay(n, settings.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS, failure.retryAfterMs);
    settings.onRetry?.({ url, attempt: n, maxAttempts, delayMs, message: failure.message });
    try {
      await delay(delayMs, undefined, { signal });
    } catch {
      return { ok: false, aborted: true, attempts: n };
    }
  }
}
