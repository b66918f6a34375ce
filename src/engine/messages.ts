// The words a user reads about a page that failed: the page-level message (logs, failed pages). The
// Run-level message of a start page that failed is built from its code (failure-codes.ts).
import { engineFailureMessage, startPageFailure, statusText } from './failure-codes.js';
import type { FetchFailure } from './page.js';

/** A page's failure message for an HTTP answer, without the URL: "answered 403 Forbidden: ...". */
export function httpFailureMessage(status: number): string {
  const base = `answered ${statusText(status)}`;
  // Only blocking and rate limiting are explained per page; the Run's message says the rest.
  if (status === 403) return `${base}: the site blocked the request`;
  if (status === 429) return `${base}: the site is rate limiting requests`;
  return base;
}

/** Why a page that was fetched could not be processed. */
export function overBudgetMessage(budgetSeconds: number, crash?: string): string {
  if (crash !== undefined) return `the page could not be processed (${crash}): it is unusually large or deeply nested`;
  return `the page took longer than ${budgetSeconds} s to process: it is unusually large or deeply nested`;
}

export function describeFailure(failure: FetchFailure): string {
  if (failure.kind === 'http' || failure.kind === 'banned') return `GET ${failure.url} ${failure.message}`;
  if (failure.kind === 'robots-disallowed') return `skipped by robots.txt: ${failure.url}: ${failure.message}`;
  if (failure.kind === 'over-budget') return `Page ${failure.url} failed: ${failure.message}`;
  if (failure.kind === 'target-refused') return failure.message;
  return `GET ${failure.url} failed: ${failure.message}`;
}

/** The run-level message when the start page of an input failed (no proxy): says what the user can do. */
export function startPageFailureMessage(failure: FetchFailure): string {
  return engineFailureMessage(startPageFailure(failure, false));
}
