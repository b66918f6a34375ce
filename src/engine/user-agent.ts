// The one place a Run's user agent is decided: what its HTTP requests send and what robots.txt is
// matched for.
import { DEFAULT_USER_AGENT } from './http.js';

/** The user agent of a Run: the caller's (ExtractionOptions.userAgent), else the product's own. */
export function runUserAgent(options: { userAgent?: string }): string {
  return options.userAgent ?? DEFAULT_USER_AGENT;
}
