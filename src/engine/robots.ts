// robots.txt for one Run: fetched once per origin (scheme, host and port) through the Run's guarded HTTP
// client (resolvePublic on every hop, withRetries), parsed by robots-parser and matched for the Agent's
// user agent by its product token. What an answer means (RFC 9309, as Google reads it):
// - 2xx: the rules (the first 500 KiB); a Crawl-delay spaces the requests to the host.
// - 4xx (404, 401, 403, 410 ...): there are no rules; everything is allowed.
// - 5xx and 429 (after the client's retries): the site is failing; everything is disallowed for the Run.
// - no answer (DNS, refused, timeout, the SSRF guard): treated as no rules, so the page's own request
//   reports the real cause (an unreachable host, a refused private address) instead of robots.txt.
import robotsParserModule from 'robots-parser';
import type { LogFunction } from './extraction-types.js';
import type { FetchResult } from './page.js';

/** Bytes of a robots.txt that are read (RFC 9309 asks for at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;

// A CommonJS package whose typings declare an ES default export: at run time the default import is the function.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
type Robot = ReturnType<typeof robotsParser>;
type HostRules =
  { kind: 'rules'; robot: Robot; url: string } | { kind: 'allowAll' } | { kind: 'disallowAll'; why: string };

export type RobotsVerdict = { allowed: true } | { allowed: false; why: string };

/**
 * The token robots.txt groups are matched against: the product inside "(compatible; Name/1.0; ...)",
 * otherwise the first product of the user agent ("Name/1.0 ..." gives "Name").
 */
export function robotsToken(userAgent: string): string {
  const compatible = /compatible;\s*([A-Za-z0-9_.-]+)/i.exec(userAgent);
  if (compatible) return compatible[1];
  return /^([A-Za-z0-9_.-]+)/.exec(userAgent.trim())?.[1] ?? '*';
}

export interface RobotsOptions {
  /** GETs a robots.txt through the Run's guarded, retrying client. */
  fetch: (url: string) => Promise<FetchResult>;
  userAgent: string;
  /** The Crawl-delay for the host of the origin, in milliseconds. */
  onCrawlDelay: (origin: string, ms: number) => void;
  log: LogFunction;
}

export class RobotsTxt {
  readonly #byOrigin = new Map<string, Promise<HostRules>>();
  readonly #token: string;

  constructor(private readonly options: RobotsOptions) {
    this.#token = robotsToken(options.userAgent);
  }

  /** Whether the Agent may fetch `url`; robots.txt of its origin is fetched on the first call. */
  async check(url: string): Promise<RobotsVerdict> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return { allowed: true };
    }
    if (origin === 'null') return { allowed: true };
    let rules = this.#byOrigin.get(origin);
    if (!rules) {
      rules = this.#load(origin);
      this.#byOrigin.set(origin, rules);
    }
    const found = await rules;
    if (found.kind === 'allowAll') return { allowed: true };
    if (found.kind === 'disallowAll') return { allowed: false, why: found.why };
    // undefined: the URL is not of this origin (it cannot be, but allowed is the safe reading).
    if (found.robot.isAllowed(url, this.#token) !== false) return { allowed: true };
    const line = found.robot.getMatchingLineNumber(url, this.#token);
    return { allowed: false, why: `${found.url} disallows it for ${this.#token}${line > 0 ? ` (line ${line})` : ''}` };
  }

  async #load(origin: string): Promise<HostRules> {
    const url = `${origin}/robots.txt`;
    const { log } = this.options;
    const result = await this.options.fetch(url);
    if (!result.ok) {
      const { failure } = result;
      const status = failure.status;
      if (status !== undefined && (status >= 500 || status === 429)) {
        const why = `${url} answered ${status}: the site asks not to be crawled while it fails`;
        log('Warning', `robots.txt: ${why}; no page of ${origin} is fetched in this Run`);
        return { kind: 'disallowAll', why };
      }
      if (status !== undefined) {
        log('Info', `robots.txt: ${url} answered ${status}; every page of ${origin} is allowed`);
        return { kind: 'allowAll' };
      }
      if (failure.kind !== 'aborted')
        log(
          'Warning',
          `robots.txt: ${url} could not be fetched (${failure.message}); every page of ${origin} is allowed`,
        );
      return { kind: 'allowAll' };
    }
    const text = result.page.body.subarray(0, ROBOTS_MAX_BYTES).toString('utf8');
    const robot = robotsParser(url, text);
    const delaySeconds = robot.getCrawlDelay(this.#token);
    if (typeof delaySeconds === 'number' && Number.isFinite(delaySeconds) && delaySeconds > 0) {
      this.options.onCrawlDelay(origin, delaySeconds * 1000);
      log('Info', `robots.txt: ${url} asks for a Crawl-delay of ${delaySeconds} s; requests to ${origin} are spaced`);
    }
    return { kind: 'rules', robot, url };
  }
}
