import type { CookieSession } from './cookies.js';
import { decodeBody } from './decompress.js';
import { RequestSlots, type HostGate } from './host-gate.js';
import { header, PageExchange, type RawResponse } from './http-exchange.js';
import { AttemptFailure, classifyNetworkError } from './http-failure.js';
import { ConcurrencyLimiter } from './limiter.js';
import { httpFailureMessage } from './messages.js';
import type { FetchedPage, FetchResult, GetOptions, PageRequest, PageSource } from './page.js';
import { ProxyRoutes, type ProxyOutcome, type ProxyRotationSettings, type ProxyRoute } from './proxy-rotation.js';
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
import { resolvePublic, TargetRefusedError, type TargetPolicy } from './ssrf.js';

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
  /** The Run's proxy pool (its own proxy first), rotated as `proxyRotation` says; replaces proxyUrl. */
  proxyPool?: string[];
  proxyRotation?: ProxyRotationSettings;
  onProxyOutcome?: (label: string, outcome: ProxyOutcome) => void;
  /** The Run's per-host limits (politeness), passed before the Run-wide limit. */
  hostGate?: HostGate;
  /** The Run-wide limit, when shared with another client; otherwise one of maxConcurrency. */
  limiter?: ConcurrencyLimiter;
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
    Pick<
      HttpClientOptions,
      | 'requestTimeoutMs'
      | 'maxRetries'
      | 'retryBaseDelayMs'
      | 'maxBodyBytes'
      | 'userAgent'
      | 'maxConcurrency'
      | 'allowPrivateTargets'
      | 'signal'
    >
  > &
    Pick<HttpClientOptions, 'onRetry' | 'cookies'>;
  readonly #policy: TargetPolicy;
  /** Pre-flight check of every hop; null when private targets are allowed. */
  readonly #checkTarget: ((url: URL) => Promise<void>) | null;
  /** Hosts whose pre-flight check passed in this client's life (see #assertPublicHost). */
  readonly #publicHosts = new Set<string>();
  /** Direct, or through the proxies of the Run's pool (proxy-rotation.ts). */
  readonly #routes: ProxyRoutes;
  readonly #limiter: ConcurrencyLimiter;
  readonly #gate: HostGate | undefined;

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
    this.#limiter = options.limiter ?? new ConcurrencyLimiter(options.maxConcurrency);
    this.#gate = options.hostGate;
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
    this.#routes = new ProxyRoutes({
      policy: this.#policy,
      proxyUrls: options.proxyPool ?? (options.proxyUrl ? [options.proxyUrl] : []),
      settings: options.proxyRotation,
      requestTimeoutMs,
      onOutcome: options.onProxyOutcome,
    });
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
      const slots = new RequestSlots(this.#gate, () => this.#limiter.acquire(signal), signal, url);
      let started = false;
      let picked: ReturnType<ProxyRoutes['pick']> = null;
      try {
        await slots.hold(url);
        started = true;
        if (opts.canStart && !opts.canStart()) return { ok: false, aborted: true, started: false };
        // Picked once the request may go: a ban answered meanwhile is known.
        picked = this.#routes.pick();
        if (!picked) return { ok: false, failure: ALL_BANNED };
        const value = await this.#attempt(url, picked.route, opts.request, slots);
        if (this.#routes.isBan(value.status, value.body)) throw this.#banned(picked, value);
        this.#routes.report(picked.index, 'ok');
        return { ok: true, value };
      } catch (error) {
        if (signal.aborted) return { ok: false, aborted: true, started };
        const failure =
          error instanceof AttemptFailure ? error : classifyNetworkError(error, new URL(slots.at), picked?.route.label);
        return { ok: false, failure: picked ? this.#afterFailure(slots.at, picked, failure) : failure };
      } finally {
        slots.release();
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
    await this.#routes.close(this.#options.signal.aborted || this.#abandoned);
  }

  /**
   * A failed attempt tells the proxy pool (a ban, an error) and the host gate (Retry-After slows the
   * whole host of `url`, the hop that answered); an answer that means the proxy is banned becomes a ban.
   */
  #afterFailure(url: string, picked: { index: number; route: ProxyRoute }, failure: AttemptFailure): AttemptFailure {
    const { status, body, contentType } = failure.extra;
    if (failure.kind === 'http' && status !== undefined && this.#routes.isBan(status, body ?? Buffer.alloc(0)))
      failure = this.#banned(picked, { status, body: body ?? Buffer.alloc(0), contentType: contentType ?? null });
    if (failure.kind === 'banned') return failure;
    this.#routes.report(picked.index, status !== undefined ? 'ok' : 'error');
    if (failure.retryAfterMs !== undefined) this.#gate?.slowDown(url, failure.retryAfterMs);
    return failure;
  }

  /** The attempt's proxy is banned: retried through another proxy while the pool has one left. */
  #banned(
    picked: { index: number; route: ProxyRoute },
    answer: { status: number; body: Buffer; contentType: string | null },
  ): AttemptFailure {
    this.#routes.report(picked.index, 'ban');
    const message = `${httpFailureMessage(answer.status)} through the proxy ${picked.route.label}, which counts as banned`;
    return new AttemptFailure('banned', message, this.#routes.anyLeft, answer);
  }

  /**
   * The SSRF pre-flight check, which names the refused URL. A host that passed once is not looked up
   * again for each page: every new connection is still checked at connect time (connectLookup), so a
   * name that later resolves to a private address is refused there. Through a proxy the proxy resolves
   * the target, so there every hop is checked.
   */
  async #assertPublicHost(url: URL): Promise<void> {
    if (!this.#routes.viaProxy && this.#publicHosts.has(url.host)) return;
    await resolvePublic(url, this.#policy);
    this.#publicHosts.add(url.host);
  }

  #aborted(url: string, attempts: number): FetchResult {
    return { ok: false, failure: { url, kind: 'aborted', message: 'aborted', attempts } };
  }

  /** One attempt: follows redirects itself so each hop passes the target check and its host's slots. */
  async #attempt(startUrl: string, route: ProxyRoute, request: PageRequest | undefined, slots: RequestSlots) {
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
        if (route.check) await route.check;
        if (this.#checkTarget) await this.#checkTarget(current);
      } catch (error) {
        if (error instanceof TargetRefusedError) throw new AttemptFailure('target-refused', error.message, false);
        throw classifyNetworkError(error, current, route.label);
      }
      let response: RawResponse;
      try {
        response = await this.#request(current, route, hop);
      } catch (error) {
        // Name the hop that failed, not the URL first asked for.
        if (error instanceof AttemptFailure || this.#options.signal.aborted) throw error;
        throw classifyNetworkError(error, current, route.label);
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
        await slots.redirect(current.href);
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
  async #request(url: URL, route: ProxyRoute, request?: PageRequest): Promise<RawResponse> {
    const { requestTimeoutMs, maxBodyBytes, signal, cookies } = this.#options;
    const gate = this.#gate;
    const exchange = new PageExchange(
      maxBodyBytes,
      (count) => {
        this.receivedBytes += count;
      },
      gate && (() => gate.departed(url.href)),
    );
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
        route.dispatcher.dispatch(
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

/** Every proxy of the Run's pool was banned: nothing is sent. */
const ALL_BANNED = new AttemptFailure('banned', 'every proxy of the pool is banned', false);
