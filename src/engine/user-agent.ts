// The one place a Run's user agent is decided: what its HTTP requests send and what robots.txt is
// matched for.
import { DEFAULT_USER_AGENT } from './http.js';

/**
 * The user agent of a Run's HTTP requests: the definition's `userAgent`, else the caller's
 * (ExtractionOptions.userAgent), else the product's own.
 */
export function runUserAgent(options: { userAgent?: string; definition?: { userAgent?: string } }): string {
  return options.definition?.userAgent ?? options.userAgent ?? DEFAULT_USER_AGENT;
}
