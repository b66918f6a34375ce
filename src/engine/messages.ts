// The words a user reads about a page that failed: one place for what a site's answer means and what
// to do about it, used by the page-level message (logs, failed pages) and the Run's errorMessage alike.
import { STATUS_CODES } from 'node:http';
import type { FetchFailure } from './page.js';

export function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown Status'}`;
}

/** What an answer means, and (for the Run's message) what the user can do about it. */
const SITE_ANSWERS: Record<number, { meaning: string; advice?: string }> = {
  401: { meaning: 'the site requires authentication' },
  403: { meaning: 'the site blocked the request', advice: 'try a proxy pool or lower concurrency' },
  407: { meaning: 'the site requires authentication' },
  429: { meaning: 'the site is rate limiting requests', advice: 'lower concurrency or try a proxy pool' },
};

/** A page's failure message for an HTTP answer, without the URL: "answered 403 Forbidden: ...". */
export function httpFailureMessage(status: number): string {
  const base = `answered ${statusText(status)}`;
  // Only blocking and rate limiting are explained per page; the Run's message says the rest.
  if (status !== 403 && status !== 429) return base;
  return `${base}: ${SITE_ANSWERS[status].meaning}`;
}

/** Why a page that was fetched could not be processed. */
export function overBudgetMessage(budgetSeconds: number, crash?: string): string {
  if (crash !== undefined) return `the page could not be processed (${crash}): it is unusually large or deeply nested`;
  return `the page took longer than ${budgetSeconds} s to process: it is unusually large or deeply nested`;
}

export function describeFailure(failure: FetchFailure): string {
  if (failure.kind === 'http') return `GET ${failure.url} ${failure.message}`;
  if (failure.kind === 'over-budget') return `Page ${failure.url} failed: ${failure.message}`;
  if (failure.kind === 'target-refused') return failure.message;
  return `GET ${failure.url} failed: ${failure.message}`;
}

/** The run-level message when the start page of an input failed: says what the user can do. */
export function startPageFailureMessage(failure: FetchFailure): string {
  if (failure.kind === 'target-refused') return failure.message;
  if (failure.kind !== 'http' || failure.status === undefined)
    return `Start page ${failure.url} failed: ${failure.message}`;
  const attempts = failure.attempts > 1 ? ` (after ${failure.attempts} attempts)` : '';
  const answered = `Start page ${failure.url} answered ${statusText(failure.status)}${attempts}`;
  const known = SITE_ANSWERS[failure.status];
  if (known) return `${answered}: ${known.meaning}${known.advice ? `; ${known.advice}` : ''}`;
  if (failure.status >= 500) return `${answered}: the site is failing; try again later`;
  return answered;
}
