// Reads pages for the builder through the engine's HTTP layer: the same SSRF guard, timeouts,
// retries and proxy as a Run, and the same HTML parsing.
import {
  chromiumAvailable,
  HttpClient,
  parseHtml,
  renderPage,
  startPageFailureMessage,
  type BrowserSettings,
} from '../../engine/index.js';
import type { BuilderPage } from './inference/draft.js';

export interface PageReaderOptions {
  allowPrivateTargets: boolean;
  requestTimeoutMs: number;
  proxyUrl?: string;
  signal: AbortSignal;
  maxRetries?: number;
  /** The worker's browser (CHROMIUM_PATH...), for pages built by script; absent: HTTP only. */
  browser?: BrowserSettings;
}

export type ReadResult =
  { ok: true; page: BuilderPage; bytes: number; status: number } | { ok: false; message: string; aborted: boolean };

/**
 * How long a render waits, once the document is parsed, for the page to load and its network to go
 * quiet: a draft is awaited by a person, and a page that keeps polling or hangs on an unreachable
 * script host would hold it for the whole page timeout. What the scripts built by then is read.
 */
const RENDER_SETTLE_MS = 2_500;
/** The longest a page may take to load in the browser (its document parsed) before the render fails. */
const RENDER_TIMEOUT_SECONDS = 4;

export function createPageReader(options: PageReaderOptions) {
  const client = new HttpClient({
    maxConcurrency: 2,
    requestTimeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries ?? 1,
    proxyUrl: options.proxyUrl,
    allowPrivateTargets: options.allowPrivateTargets,
    signal: options.signal,
  });
  return {
    async read(url: string): Promise<ReadResult> {
      const result = await client.get(url);
      if (!result.ok) {
        return {
          ok: false,
          aborted: result.failure.kind === 'aborted',
          message: startPageFailureMessage(result.failure).replace(/^Start page/, 'The page'),
        };
      }
      const page = result.page;
      const type = page.contentType ?? '';
      if (type !== '' && !/html|xml/i.test(type)) {
        return {
          ok: false,
          aborted: false,
          message: `The page ${url} is ${type.split(';')[0]}, not HTML: give the address of a web page that lists the records.`,
        };
      }
      return {
        ok: true,
        page: { $: parseHtml(page), url: page.finalUrl },
        bytes: page.body.length,
        status: page.status,
      };
    },
    /** True when this worker has Chromium: `render` can read a page built by script. */
    canRender: () => options.browser !== undefined && chromiumAvailable(options.browser.executablePath),

    /**
     * The page as the browser builds it (its scripts run until the network is idle, RENDER_SETTLE_MS at most),
     * once, within RENDER_TIMEOUT_SECONDS.
     */
    async render(url: string): Promise<ReadResult> {
      if (!options.browser) return { ok: false, aborted: false, message: 'No browser is configured on this worker' };
      const result = await renderPage(url, options.browser, {
        allowPrivateTargets: options.allowPrivateTargets,
        proxyUrl: options.proxyUrl,
        signal: options.signal,
        waitFor: 'networkidle',
        settleWithinMs: RENDER_SETTLE_MS,
        // A person waits for the draft: a page that has not loaded by then is not tried again.
        pageTimeoutSeconds: RENDER_TIMEOUT_SECONDS,
        maxRetries: 0,
      });
      if (!result.ok) {
        return {
          ok: false,
          aborted: result.failure.kind === 'aborted',
          message: startPageFailureMessage(result.failure).replace(/^Start page/, 'The rendered page'),
        };
      }
      const page = result.page;
      return {
        ok: true,
        page: { $: parseHtml(page), url: page.finalUrl },
        bytes: page.body.length,
        status: page.status,
      };
    },

    close: () => client.close(),
  };
}
