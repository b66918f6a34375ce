// A Run's manners, put together once per Run: the host gate both renderers pass (per-host concurrency,
// spacing, Retry-After), robots.txt checked before each page (fetched once per origin through a guarded,
// retrying HTTP client of its own that shares the Run-wide limit and the gate), and the rotation of the
// Run's proxy pool with its outcomes counted in the evidence.
import { politenessOf, proxyRotationOf } from './definition-politeness.js';
import type { EvidenceCollector } from './evidence.js';
import {
  DEFAULT_MAX_CONCURRENCY,
  type BrowserSourceEvents,
  type ExtractionOptions,
  type LogFunction,
} from './extraction-types.js';
import { HostGate } from './host-gate.js';
import { HttpClient, type HttpClientOptions } from './http.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { PageSource } from './page.js';
import { GatedSource, RobotsCheckedSource } from './polite-source.js';
import { ROBOTS_MAX_BYTES, RobotsTxt } from './robots.js';
import { runUserAgent } from './user-agent.js';

export interface Politeness {
  readonly options: ExtractionOptions;
  readonly gate: HostGate;
  /** The Run-wide limit, shared by the page client and the robots.txt client. */
  readonly limiter: ConcurrencyLimiter;
  readonly evidence: EvidenceCollector;
  /** A browser page source whose navigations pass the host gate. */
  gated(source: PageSource): PageSource;
  /** What the browser tells the Run: proxy outcomes to the evidence, Retry-After to the host gate. */
  readonly browserEvents: BrowserSourceEvents;
}

/** The Run's proxy pool, its own proxy first; a pool of one proxy is a pool too (outcomes counted, banText). */
export function runProxyPool(options: ExtractionOptions): string[] {
  return options.proxyPool?.length ? options.proxyPool : options.proxyUrl ? [options.proxyUrl] : [];
}

/** What the Run's HTTP client takes of its manners: the gate, the shared limit, the proxy pool's rotation. */
export function politeHttpOptions(polite: Politeness): Partial<HttpClientOptions> {
  const { options, evidence } = polite;
  const pool = runProxyPool(options);
  return {
    hostGate: polite.gate,
    limiter: polite.limiter,
    ...(pool.length > 0
      ? {
          proxyPool: pool,
          proxyRotation: proxyRotationOf(options.definition),
          onProxyOutcome: (label, outcome) => evidence.proxyOutcome(label, outcome),
        }
      : {}),
  };
}

/** The Run's page source (`open`) with its manners; robots.txt is checked unless the definition opts out. */
export function openPoliteSource(
  options: ExtractionOptions,
  signal: AbortSignal,
  log: LogFunction,
  evidence: EvidenceCollector,
  open: (polite: Politeness) => PageSource,
): PageSource {
  const rules = politenessOf(options.definition);
  const gate = new HostGate(rules);
  const limiter = new ConcurrencyLimiter(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const polite: Politeness = {
    options,
    gate,
    limiter,
    evidence,
    gated: (source) => new GatedSource(source, gate, signal),
    browserEvents: {
      proxyOutcome: (label, outcome) => evidence.proxyOutcome(label, outcome),
      retryAfter: (url, ms) => gate.slowDown(url, ms),
    },
  };
  const source = open(polite);
  if (!rules.respectRobotsTxt) return source;
  const userAgent = runUserAgent(options);
  const robotsClient = new HttpClient({
    maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    limiter,
    hostGate: gate,
    requestTimeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs,
    // robots.txt goes the way the Run's pages go: through its own proxy.
    proxyUrl: options.proxyPool?.[0] ?? options.proxyUrl,
    allowPrivateTargets: options.allowPrivateTargets,
    signal,
    userAgent,
    maxBodyBytes: 4 * ROBOTS_MAX_BYTES,
    onRetry: (e) => log('Warning', `GET ${e.url} ${e.message}; retrying in ${e.delayMs} ms`),
  });
  const robots = new RobotsTxt({
    fetch: (url) => robotsClient.get(url),
    userAgent,
    onCrawlDelay: (origin, ms) => gate.setCrawlDelay(origin, ms),
    log,
  });
  return new RobotsCheckedSource(source, robots, robotsClient);
}
