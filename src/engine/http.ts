import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { CookieSession } from './cookies.js';
import { decodeBody } from './decompress.js';
import { header, PageExchange, type RawResponse } from './http-exchange.js';
import { AttemptFailure, classifyNetworkError } from './http-failure.js';
import { ConcurrencyLimiter } from './limiter.js';
import { httpFailureMessage } from './messages.js';
import type { FetchedPage, FetchResult, GetOptions, PageRequest, PageSource } from './page.js';
import { nextHop, requestHeaders } from './request-hop.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  isRetryableStatus,
  retryAfterOf,
  withRetries,
  type AttemptResult,
  type RetryEvent,
} from './retry.js';
import {
  assertProxyProtocol,
  connectLookup,
  proxyLabel,
  resolvePublic,
  TargetRefusedError,
  type TargetPolicy,
} from './ssrf.js';

export const MAX_REDIRECTS = 5;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; CloudExtractionService/0.1; +https://example.invalid/bot)';

/** What the client's hops may reach (resolvePublic's policy): targets, redirects and the proxy alike. */
export interface HttpClientOptions extends TargetPolicy {
  /** Simultaneous requests across everything using this client. */
  maxConcurrency: number;
  requestTimeoutMs?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** The Run's proxy: an http: or https: URL (PROXY_PROTOCOLS). */
  proxyUrl?: string;
  /** Aborts queued and in-flight requests. */
  signal: AbortSignal;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Pre-flight check of every URL, redirect hops included. Defaults to the SSRF guard (unless private targets are allowed). */
  checkTarget?: (url: URL) => Promise<void>;
  onRetry?: (event: RetryEvent) => void;
  /** The Run's cookie jar: every hop sends its cookies and stores its Set-Cookie. */
  cookies?: CookieSession;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs pages through one connection-reusing dispatcher, with a run-wide concurrency limit, per-request
 * timeouts, retries with backoff (5xx, 429, network errors), manual redirects and the SSRF guard on
 * every hop. Never throws for a failed page: the result says what happened.
 */
export class HttpClient implements PageSource {
  /** Body bytes received on the wire (before decompression), for every response including errors. */
  receivedBytes = 0;

  readonly #options: Required<
    Omit<HttpClientOptions, 'proxyUrl' | 'onRetry' | 'checkTarget' | 'isRefusedAddress' | 'resolveHost' | 'cookies'>
  > &
    Pick<HttpClientOptions, 'proxyUrl' | 'onRetry' | 'cookies'>;
  readonly #policy: TargetPolicy;
  /** Pre-flight check of every hop; null when private targets are allowed. */
  readonly #checkTarget: ((url: URL) => Promise<void>) | null;
  /** Hosts whose pre-flight check passed in this client's life (see #assertPublicHost). */
  readonly #publicHosts = new Set<string>();
  readonly #dispatcher: Dispatcher;
  readonly #limiter: ConcurrencyLimiter;
  /** `host:port` of the proxy, when there is one. */
  readonly #proxyLabel: string | undefined;
  /** The proxy's pre-flight check, done once per client (connect-time lookups re-check every connection). */
  #proxyCheck: Promise<void> | undefined;

  /** The requests on the wire: a stop aborts each of them through one listener on the run's signal. */
  readonly #inFlight = new Set<PageExchange>();
  /** A request timed out: close() must not wait for what undici still holds of it. */
  #abandoned = false;
  readonly #headers: Record<string, string>;

  constructor(options: HttpClientOptions) {
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#options = {
      requestTimeoutMs,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      maxConcurrency: options.maxConcurrency,
      allowPrivateTargets: options.allowPrivateTargets,
      signal: options.signal,
      proxyUrl: options.proxyUrl,
      onRetry: options.onRetry,
      cookies: options.cookies,
    };
    this.#policy = {
      allowPrivateTargets: options.allowPrivateTargets,
      isRefusedAddress: options.isRefusedAddress,
      resolveHost: options.resolveHost,
    };
    this.#checkTarget =
      options.checkTarget ?? (options.allowPrivateTargets ? null : (url: URL) => this.#assertPublicHost(url));
    this.#limiter = new ConcurrencyLimiter(options.maxConcurrency);
    this.#headers = {
      'user-agent': this.#options.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-language': 'en',
      'accept-encoding': 'gzip, deflate, br',
    };
    options.signal.addEventListener(
      'abort',
      () => {
        for (const exchange of this.#inFlight) exchange.abort(options.signal.reason as Error);
      },
      { once: true },
    );
    const timeouts = { headersTimeout: requestTimeoutMs, bodyTimeout: requestTimeoutMs, keepAliveTimeout: 10_000 };
    if (options.proxyUrl) {
      let proxy: URL;
      try {
        proxy = new URL(options.proxyUrl);
      } catch {
        // Not quoted: a proxy URL may carry credentials.
        throw new TypeError('proxyUrl is not a valid URL');
      }
      assertProxyProtocol(proxy);
      this.#proxyLabel = proxyLabel(proxy);
      // Proxy pools are chosen by tenants, so a proxy obeys the same rule as a target: checked before
      // the first request (IP literals) and at every connection (names that resolve differently later).
      // A DNS failure here is left to the connection, which reports it with the proxy's name.
      if (!options.allowPrivateTargets) {
        this.#proxyCheck = resolvePublic(proxy, this.#policy, 'proxy').then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof TargetRefusedError) throw error;
          },
        );
        this.#proxyCheck.catch(() => {});
      }
      this.#dispatcher = new ProxyAgent({
        uri: options.proxyUrl,
        ...timeouts,
        connect: { timeout: requestTimeoutMs },
        ...(options.allowPrivateTargets ? {} : { proxyTls: { lookup: connectLookup(this.#policy, 'proxy') } }),
      });
    } else {
      this.#dispatcher = new Agent({
        ...timeouts,
        connect: {
          timeout: requestTimeoutMs,
          // Re-checked at connect time so a DNS answer that changes after the pre-flight check cannot slip through.
          ...(options.allowPrivateTargets ? {} : { lookup: connectLookup(this.#policy) }),
        },
      });
    }
  }

  get activeRequests(): number {
    return this.#limiter.active;
  }

  /**
   * `canStart` is asked once a concurrency slot is free, before each attempt goes on the wire, and
   * before waiting to retry: false gives up the request as aborted (a graceful stop starts no new
   * page and no retry).
   */
  async get(url: string, opts: GetOptions = {}): Promise<FetchResult> {
    const { maxRetries, retryBaseDelayMs, signal, onRetry } = this.#options;
    const settings = { maxRetries, retryBaseDelayMs, signal, onRetry, canStart: opts.canStart };
    const result = await withRetries(url, settings, async (): Promise<AttemptResult<FetchedPage, AttemptFailure>> => {
      let release: (() => void) | undefined;
      try {
        release = await this.#limiter.acquire(signal);
        if (opts.canStart && !opts.canStart()) return { ok: false, aborted: true, started: false };
        return { ok: true, value: await this.#attempt(url, opts.request) };
      } catch (error) {
        if (signal.aborted) return { ok: false, aborted: true, started: release !== undefined };
        const failure =
          error instanceof AttemptFailure ? error : classifyNetworkError(error, new URL(url), this.#proxyLabel);
        return { ok: false, failure };
      } finally {
        release?.();
      }
    });
    if (result.ok) return { ok: true, page: result.value };
    if ('aborted' in result) return this.#aborted(url, result.attempts);
    const { failure, attempts } = result;
    const { status, body, contentType } = failure.extra;
    const message = attempts > 1 ? `${failure.message} (after ${attempts} attempts)` : failure.message;
    return { ok: false, failure: { url, kind: failure.kind, status, message, body, contentType, attempts } };
  }

  /**
   * Closes the connections. After a normal end nothing is in flight and they are closed gracefully;
   * after an abort or a timed-out request (which undici may still hold, waiting for a connection),
   * they are cut (destroying creates an error per socket, so only then).
   */
  async close(): Promise<void> {
    if (this.#options.signal.aborted || this.#abandoned) await this.#dispatcher.destroy();
    else await this.#dispatcher.close();
  }

  /**
   * The SSRF pre-flight check, which names the refused URL. A host that passed once is not looked up
   * again for each page: every new connection is still checked at connect time (connectLookup), so a
   * name that later resolves to a private address is refused there. Through a proxy the proxy resolves
   * the target, so there every hop is checked.
   */
  async #assertPublicHost(url: URL): Promise<void> {
    if (this.#proxyLabel === undefined && this.#publicHosts.has(url.host)) return;
    await resolvePublic(url, this.#policy);
    this.#publicHosts.add(url.host);
  }

  #aborted(url: string, attempts: number): FetchResult {
    return { ok: false, failure: { url, kind: 'aborted', message: 'aborted', attempts } };
  }

  /** One attempt: follows redirects itself so each hop passes the target check. */
  async #attempt(startUrl: string, request?: PageRequest): Promise<FetchedPage> {
    let current: URL;
    let hop = request;
    try {
      current = new URL(startUrl);
    } catch {
      throw new AttemptFailure('invalid-url', `'${startUrl}' is not a valid URL`, false);
    }
    for (let hops = 0; ; hops++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        throw new AttemptFailure('invalid-url', `${current.href} is not an http(s) URL`, false);
      }
      try {
        if (this.#proxyCheck) await this.#proxyCheck;
        if (this.#checkTarget) await this.#checkTarget(current);
      } catch (error) {
        if (error instanceof TargetRefusedError) throw new AttemptFailure('target-refused', error.message, false);
        throw classifyNetworkError(error, current, this.#proxyLabel);
      }
      let response: RawResponse;
      try {
        response = await this.#request(current, hop);
      } catch (error) {
        // Name the hop that failed, not the URL first asked for.
        if (error instanceof AttemptFailure || this.#options.signal.aborted) throw error;
        throw classifyNetworkError(error, current, this.#proxyLabel);
      }
      const location = REDIRECT_STATUSES.has(response.status) ? header(response.headers, 'location') : null;
      if (location !== null) {
        if (hops >= MAX_REDIRECTS) {
          throw new AttemptFailure('redirects', `too many redirects (more than ${MAX_REDIRECTS})`, false);
        }
        try {
          current = new URL(location, current);
        } catch {
          throw new AttemptFailure('invalid-url', `redirected to an invalid URL '${location}'`, false);
        }
        hop = hop && nextHop(hop, response.status);
        continue;
      }
      const contentType = header(response.headers, 'content-type');
      if (response.status >= 200 && response.status < 300) {
        return { url: startUrl, finalUrl: current.href, status: response.status, contentType, body: response.body };
      }
      const retryAfterMs = retryAfterOf(response.status, header(response.headers, 'retry-after'));
      throw new AttemptFailure('http', httpFailureMessage(response.status), isRetryableStatus(response.status), {
        status: response.status,
        body: response.body,
        contentType,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      });
    }
  }

  /** One HTTP exchange, body included, bounded by the request timeout. */
  async #request(url: URL, request?: PageRequest): Promise<RawResponse> {
    const { requestTimeoutMs, maxBodyBytes, signal, cookies } = this.#options;
    const exchange = new PageExchange(maxBodyBytes, (count) => {
      this.receivedBytes += count;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.#abandoned = true;
      exchange.abort(new Error('request timed out'));
    }, requestTimeoutMs);
    this.#inFlight.add(exchange);
    try {
      if (signal.aborted) exchange.abort(signal.reason as Error);
      else
        this.#dispatcher.dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: request?.method ?? 'GET',
            headers: requestHeaders(this.#headers, request, cookies?.header(url)),
            body: request?.body,
          },
          exchange,
        );
      const response = await exchange.promise;
      cookies?.store(url, response.headers['set-cookie']);
      return {
        ...response,
        body: decodeBody(response.body, header(response.headers, 'content-encoding'), maxBodyBytes),
      };
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      if (timedOut) throw new AttemptFailure('timeout', `timed out after ${requestTimeoutMs} ms`, true);
      throw error;
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(exchange);
    }
  }
}
