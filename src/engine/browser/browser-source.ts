// Pages rendered in Chromium for one Run: its own browser context (no cookies or storage shared with
// another Run), every request through the Run's guard proxy, resource types blocked, downloads refused,
// dialogs dismissed; then the waits, scrolls and "Load more" clicks the definition asks for, and the
// rendered DOM handed to the crawl loop like any fetched page. With a proxy pool each page goes through the
// proxy the rotation picks (one context per proxy), a ban retries it through another, and outcomes and a
// host's Retry-After go to the Run through `events`.
import { settleBriefly } from './settle-briefly.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  DEFAULT_BLOCKED_RESOURCES,
  DEFAULT_PAGE_TIMEOUT_SECONDS,
  isHttpUrl,
  NETWORK_IDLE,
  type AgentDefinition,
} from '../definition.js';
import { proxyRotationOf } from '../definition-politeness.js';
import type { BrowserSourceEvents, LogFunction } from '../extraction-types.js';
import { httpFailureMessage } from '../messages.js';
import type { FailureKind, FetchedPage, FetchResult, GetOptions, PageSource } from '../page.js';
import { parseProxyUrl, ProxyPoolRotation } from '../proxy-rotation.js';
import { MAX_SNAPSHOTS } from '../snapshots.js';
import { proxyLabel } from '../ssrf.js';
import { isRetryableStatus, retryAfterOf, withRetries, type AttemptResult, type RetryEvent } from '../retry.js';
import { GuardProxy, type GuardProxyEndpoint, type GuardProxyOptions } from './guard-proxy.js';
import { browserCookies, fillForm, requestRoute } from './page-request.js';
import type { BrowserPool } from './pool.js';

// Playwright's own TimeoutError, told by its name: playwright-core is loaded only when a browser starts (pool.ts).
const isPlaywrightTimeout = (error: unknown) => error instanceof Error && error.name === 'TimeoutError';

export interface BrowserSourceOptions extends GuardProxyOptions {
  pool: BrowserPool;
  definition: AgentDefinition;
  signal: AbortSignal;
  userAgent?: string;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  log: LogFunction;
  events?: BrowserSourceEvents;
  /**
   * For a preview rather than a Run: once the document is parsed, its load and a quiet network are
   * waited for this long at most, then the page is read as it is. A page that keeps polling never goes
   * quiet, and one whose scripts hang on an unreachable host never loads: a Run waits for them up to its
   * page timeout, a person waiting for a draft should not.
   */
  settleWithinMs?: number;
}

/** How long a scroll or a click waits for new list elements before the list counts as complete. */
const GROWTH_WAIT_MS = 3_000;

const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

/** Why one render failed, and whether it is worth another attempt (retry.ts decides when). */
class PageFailure extends Error {
  retryable: boolean;
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly body?: Buffer,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.retryable = kind === 'network' || kind === 'reset' || (status !== undefined && isRetryableStatus(status));
  }
}

export class BrowserPageSource implements PageSource {
  readonly #guard: GuardProxy;
  #endpoint: Promise<GuardProxyEndpoint> | null = null;
  /** Per browser, a context per proxy of the pool (by index; 0 without a pool). */
  readonly #contexts = new Map<Browser, Map<number, Promise<BrowserContext>>>();
  /** The Run's proxy pool as the evidence names it, and its rotation; null without a pool. */
  readonly #labels: string[];
  readonly #rotation: ProxyPoolRotation | null;
  /** `proxy.banText` is set: a page that answered 2xx is read for it before anything else. */
  readonly #readsBanText: boolean;
  /** Pages that rendered cleanly, kept for the Run's next URLs: a new page costs Chromium a new renderer. */
  readonly #idlePages = new Map<BrowserContext, Page[]>();
  readonly #blocked: Set<string>;
  readonly #timeoutMs: number;

  constructor(private readonly options: BrowserSourceOptions) {
    this.#guard = new GuardProxy(options);
    const pool = options.upstreamProxyPool ?? (options.upstreamProxyUrl ? [options.upstreamProxyUrl] : []);
    this.#labels = pool.map((text) => proxyLabel(parseProxyUrl(text)));
    const rotation = proxyRotationOf(options.definition);
    this.#rotation =
      pool.length > 0 ? new ProxyPoolRotation(this.#labels, rotation, options.events?.proxyOutcome) : null;
    this.#readsBanText = this.#rotation !== null && rotation.banText !== undefined;
    this.#blocked = new Set(options.definition.blockResources ?? DEFAULT_BLOCKED_RESOURCES);
    this.#timeoutMs = (options.definition.pageTimeoutSeconds ?? DEFAULT_PAGE_TIMEOUT_SECONDS) * 1000;
    // A stop or kill closes the Run's contexts at once: every page of the Run ends with them.
    options.signal.addEventListener('abort', () => void this.#closeContexts(), { once: true });
  }

  get receivedBytes(): number {
    return this.#guard.receivedBytes;
  }

  async get(url: string, opts?: GetOptions): Promise<FetchResult> {
    const { maxRetries, retryBaseDelayMs, signal, log } = this.options;
    const settings = {
      maxRetries,
      retryBaseDelayMs,
      signal,
      canStart: opts?.canStart,
      onRetry: (e: RetryEvent) =>
        log(
          'Warning',
          `render ${url} ${e.message}; retrying in ${e.delayMs} ms (attempt ${e.attempt + 1} of ${e.maxAttempts})`,
        ),
    };
    const rotation = this.#rotation;
    const result = await withRetries(url, settings, async (): Promise<AttemptResult<FetchedPage, PageFailure>> => {
      const index = rotation ? rotation.next() : 0;
      if (index === null) return { ok: false, failure: new PageFailure('banned', 'every proxy of the pool is banned') };
      try {
        const value = await this.#render(url, index, opts);
        rotation?.report(index, 'ok');
        return { ok: true, value };
      } catch (error) {
        if (signal.aborted) return { ok: false, aborted: true, started: true };
        const failure = this.#classify(error, url, index);
        if (rotation) {
          rotation.report(index, failure.kind === 'banned' ? 'ban' : failure.status !== undefined ? 'ok' : 'error');
          // A banned page is worth another attempt while the pool has a proxy left to send it through.
          if (failure.kind === 'banned') failure.retryable = rotation.anyLeft;
        }
        // The host asked to wait: every page of the Run to it waits (the host gate), not only this one.
        if (failure.retryAfterMs !== undefined) this.options.events?.retryAfter?.(url, failure.retryAfterMs);
        return { ok: false, failure };
      }
    });
    if (result.ok) return { ok: true, page: result.value };
    if ('aborted' in result) {
      const message = result.attempts > 0 ? 'stopped while rendering' : 'stopped before rendering';
      return { ok: false, failure: { url, kind: 'aborted', message, attempts: result.attempts } };
    }
    const { kind, status, message, body } = result.failure;
    return { ok: false, failure: { url, kind, status, message, body, attempts: result.attempts } };
  }

  async close(): Promise<void> {
    await this.#closeContexts();
    await this.#guard.close();
  }

  async #closeContexts(): Promise<void> {
    const contexts = [...this.#contexts.values()].flatMap((perProxy) => [...perProxy.values()]);
    this.#contexts.clear();
    this.#idlePages.clear();
    await Promise.all(contexts.map(async (c) => (await c.catch(() => null))?.close().catch(() => undefined)));
  }

  /** The context whose requests go through the pool's proxy `index` (0 without a pool). */
  #context(browser: Browser, index: number): Promise<BrowserContext> {
    let perProxy = this.#contexts.get(browser);
    if (!perProxy) {
      perProxy = new Map();
      this.#contexts.set(browser, perProxy);
      browser.once('disconnected', () => this.#contexts.delete(browser));
    }
    let context = perProxy.get(index);
    if (!context) {
      context = this.#newContext(browser, index);
      perProxy.set(index, context);
    }
    return context;
  }

  async #newContext(browser: Browser, index: number): Promise<BrowserContext> {
    this.#endpoint ??= this.#guard.start();
    const proxy = { ...(await this.#endpoint), ...this.#guard.credentialOf(index) };
    const context = await browser.newContext({
      proxy,
      acceptDownloads: false,
      serviceWorkers: 'block',
      ...(this.options.userAgent ? { userAgent: this.options.userAgent } : {}),
    });
    await context.route('**/*', (route) => {
      const request = route.request();
      if (this.#blocked.has(request.resourceType()) || !/^https?:/.test(request.url()))
        return route.abort('blockedbyclient');
      return route.continue();
    });
    context.on('page', (page) => page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined)));
    return context;
  }

  async #render(url: string, index: number, opts?: GetOptions) {
    const request = opts?.request;
    if (!isHttpUrl(url)) throw new PageFailure('invalid-url', 'is not an http(s) URL');
    const lease = await this.options.pool.acquire(this.options.signal);
    let page: Page | null = null;
    let context: BrowserContext | null = null;
    let reusable = false;
    try {
      context = await this.#context(lease.browser, index);
      page = this.#takeIdlePage(context) ?? (await context.newPage());
      const deadline = Date.now() + this.#timeoutMs;
      const left = () => Math.max(1, deadline - Date.now());
      if (request?.cookies?.length) await context.addCookies(request.cookies);
      const route = request && requestRoute(page, request);
      if (route) await page.route('**/*', route);
      const settleWithin = this.options.settleWithinMs;
      const response = await page.goto(url, {
        waitUntil: settleWithin === undefined ? 'load' : 'domcontentloaded',
        timeout: left(),
      });
      if (route) await page.unroute('**/*', route);
      const refusal = this.#guard.refusalFor(hostOf(url), index);
      if (refusal && (response === null || response.status() === 403))
        throw new PageFailure('target-refused', refusal.message);
      const finalUrl = page.url();
      if (!isHttpUrl(finalUrl))
        throw new PageFailure('invalid-url', `navigated to a refused URL scheme (${new URL(finalUrl).protocol})`);
      const status = response?.status() ?? 200;
      // The page as served: an error page, or a 2xx read for proxy.banText (a block page served with 200).
      const body = status >= 400 || this.#readsBanText ? Buffer.from(await page.content(), 'utf8') : undefined;
      if (body && this.#rotation?.isBan(status, body)) {
        const message = `${httpFailureMessage(status)} through the proxy ${this.#labels[index]}, which counts as banned`;
        throw new PageFailure('banned', message, status, body);
      }
      if (status >= 400) {
        const retryAfterMs = retryAfterOf(status, await response?.headerValue('retry-after'));
        const message = `answered ${status} ${response?.statusText() ?? ''}`.trim();
        throw new PageFailure('http', message, status, body, retryAfterMs);
      }
      if (request?.fill) await fillForm(page, request.fill, left);
      else if (settleWithin !== undefined) await settleBriefly(page, settleWithin);
      else await this.#settle(page, left);
      const html = await page.content();
      const screenshot = opts?.listPage === true ? await this.#emptyListScreenshot(page, left) : undefined;
      reusable = true;
      return {
        url,
        finalUrl,
        status,
        contentType: 'text/html; charset=utf-8',
        body: Buffer.from(html, 'utf8'),
        renderer: 'browser' as const,
        ...(screenshot ? { screenshot } : {}),
        ...(request?.cookies ? { cookies: browserCookies(await context.cookies()) } : {}),
      };
    } finally {
      // Only a page that rendered cleanly is kept; one that failed or timed out may be in any state.
      // A page that filled a form is not kept either (it may hold more than the site showed).
      if (!request?.fill && page && context && reusable && !this.options.signal.aborted)
        this.#keepIdlePage(context, page);
      else await page?.close().catch(() => undefined);
      lease.release();
    }
  }

  /** Screenshots taken for snapshots: as many as a Run keeps at most. */
  #screenshots = 0;

  /**
   * The viewport as a PNG when the list matches nothing on this list page (a snapshot's picture of a
   * redesigned or blocked page); undefined otherwise, after MAX_SNAPSHOTS, or when it cannot be taken.
   */
  async #emptyListScreenshot(page: Page, left: () => number): Promise<Buffer | undefined> {
    const list = this.options.definition.list;
    if (this.#screenshots >= MAX_SNAPSHOTS || (list.selector === undefined && list.xpath === undefined)) return;
    if ((await page.locator(playwrightLocator(list)).count()) > 0) return;
    this.#screenshots++;
    // A picture is evidence, not the page: one that fails (or takes too long) leaves the HTML alone.
    return page.screenshot({ type: 'png', timeout: Math.min(left(), 10_000) }).catch(() => undefined);
  }

  #takeIdlePage(context: BrowserContext): Page | null {
    const idle = this.#idlePages.get(context);
    for (let page = idle?.pop(); page; page = idle?.pop()) if (!page.isClosed()) return page;
    return null;
  }

  #keepIdlePage(context: BrowserContext, page: Page): void {
    const idle = this.#idlePages.get(context) ?? [];
    this.#idlePages.set(context, idle);
    if (idle.length < this.options.pool.maxPages && this.#contexts.size > 0) idle.push(page);
    else void page.close().catch(() => undefined);
  }

  /** The definition's waits: the selector or quiet network, then scrolls, then clicks on a "Load more" button. */
  async #settle(page: Page, left: () => number): Promise<void> {
    const def = this.options.definition;
    if (def.waitFor === NETWORK_IDLE) await page.waitForLoadState('networkidle', { timeout: left() });
    else if (def.waitFor) await page.waitForSelector(def.waitFor, { state: 'attached', timeout: left() });
    const count = () => page.locator(playwrightLocator(def.list)).count();
    const grew = async (before: number) => {
      try {
        // Strings, not functions: they run in the page, and the engine is compiled without DOM types.
        const more = `${pageCountExpression(def.list)} > ${before}`;
        await page.waitForFunction(more, undefined, { timeout: Math.min(GROWTH_WAIT_MS, left()) });
        return true;
      } catch (error) {
        if (isPlaywrightTimeout(error) && left() > 1) return false;
        throw error;
      }
    };
    for (let i = 0; i < (def.scroll ?? 0); i++) {
      const before = await count();
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      if (!(await grew(before))) break;
    }
    // A `next` that is a button rather than a link is clicked on the page itself, up to maxPages - 1 times.
    if (def.next) {
      const button = page.locator(playwrightLocator(def.next)).first();
      for (let i = 1; i < (def.next.maxPages ?? Infinity); i++) {
        if ((await button.count()) === 0 || (await button.getAttribute('href')) !== null || !(await button.isVisible()))
          break;
        const before = await count();
        await button.click({ timeout: left() });
        if (!(await grew(before))) break;
      }
    }
  }

  #classify(error: unknown, url: string, index: number): PageFailure {
    if (error instanceof PageFailure) return error;
    const text = (error as Error)?.message ?? String(error);
    if (this.options.signal.aborted) return new PageFailure('aborted', 'stopped while rendering');
    const refusal = this.#guard.refusalFor(hostOf(url), index);
    if (refusal) return new PageFailure('target-refused', refusal.message);
    if (isPlaywrightTimeout(error))
      return new PageFailure('timeout', `did not finish rendering within ${this.#timeoutMs / 1000} s`);
    const code = /net::(ERR_[A-Z_]+)/.exec(text)?.[1];
    if (code === 'ERR_NAME_NOT_RESOLVED') return new PageFailure('dns', `could not resolve the host of ${url}`);
    if (code === 'ERR_CONNECTION_REFUSED' || code === 'ERR_TUNNEL_CONNECTION_FAILED')
      return new PageFailure('refused', `connection failed (${code})`);
    if (code === 'ERR_CONNECTION_RESET' || code === 'ERR_EMPTY_RESPONSE')
      return new PageFailure('reset', `connection reset (${code})`);
    if (code?.includes('CERT') || code?.includes('SSL')) return new PageFailure('tls', `TLS failed (${code})`);
    // A crashed or closed browser, or any other network failure: retried.
    return new PageFailure('network', `rendering failed: ${text.split('\n')[0]}`);
  }
}

/** A list or next locator as Playwright reads it: a CSS selector, or `xpath=` and the expression. */
function playwrightLocator(locator: { selector?: string; xpath?: string }): string {
  return locator.xpath !== undefined ? `xpath=${locator.xpath}` : locator.selector!;
}

/** In-page script text counting the list's matches, by CSS or by XPath. */
function pageCountExpression(list: { selector?: string; xpath?: string }): string {
  if (list.xpath === undefined) return `document.querySelectorAll(${JSON.stringify(list.selector)}).length`;
  return `document.evaluate(${JSON.stringify(list.xpath)}, document, null, 7, null).snapshotLength`;
}
