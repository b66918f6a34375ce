// Which renderer fetches a Run's pages: HTTP, the browser, or `auto` (HTTP first, the browser for a page
// whose selectors match nothing in the served HTML while it carries scripts). One browser pool per process:
// a worker's, which renders for all its run processes (they reach it through `openBrowserSource`).
import { accessSync, constants } from 'node:fs';
import { renderModeOf, type AgentDefinition } from '../definition.js';
import type { EvidenceCollector } from '../evidence.js';
import type { BrowserSettings, BrowserSourceFactory, LogFunction } from '../extraction-types.js';
import type { AutoRender, FetchResult, GetOptions, PageSource } from '../page.js';
import { BrowserPageSource } from './browser-source.js';
import { BrowserPool } from './pool.js';

export { BrowserPool, descendants } from './pool.js';

export const CHROMIUM_PATH_HINT = 'set CHROMIUM_PATH to a Chromium binary (Debian: apt-get install chromium)';

/** True when `path` is an executable file: the worker can render. */
export function chromiumAvailable(path: string): boolean {
  // Asked for every Run: a found Chromium is trusted for a minute (a file system call each time was
  // measurable on small Runs), a missing one is looked for again each time (it may be installed meanwhile).
  const now = Date.now();
  if ((foundAt.get(path) ?? -Infinity) > now - CHROMIUM_FOUND_TTL_MS) return true;
  try {
    accessSync(path, constants.X_OK);
    foundAt.set(path, now);
    return true;
  } catch {
    foundAt.delete(path);
    return false;
  }
}
const CHROMIUM_FOUND_TTL_MS = 60_000;
const foundAt = new Map<string, number>();

let sharedPool: BrowserPool | null = null;

/** The process's browser pool, created with the first settings it is asked for. */
export function sharedBrowserPool(settings: BrowserSettings): BrowserPool {
  sharedPool ??= new BrowserPool({
    executablePath: settings.executablePath,
    maxPages: settings.maxPages,
    maxRssMb: settings.maxRssMb,
  });
  return sharedPool;
}

/** Browser page sources on the process's pool (created with `settings` on first use). */
export function pooledBrowserSources(settings: BrowserSettings): BrowserSourceFactory {
  return (source, signal, log, events) =>
    new BrowserPageSource({ ...source, pool: sharedBrowserPool(settings), signal, log, events });
}

/** Closes the process's browsers (a worker shutting down). */
export async function closeSharedBrowserPool(): Promise<void> {
  const pool = sharedPool;
  sharedPool = null;
  await pool?.close();
}

/**
 * Renders one page in the process's browser pool, behind the same guard as a Run's pages (the Agent
 * Builder reads script-built pages this way). Nothing is kept: the page's context closes with it.
 */
export async function renderPage(
  url: string,
  settings: BrowserSettings,
  opts: {
    allowPrivateTargets: boolean;
    proxyUrl?: string;
    signal: AbortSignal;
    waitFor?: string;
    /** Read the page as it is after this long, loaded and quiet or not (see BrowserSourceOptions). */
    settleWithinMs?: number;
    /** How long the page may take to load, in seconds (the definition's default otherwise). */
    pageTimeoutSeconds?: number;
    /** Attempts after the first (1 by default). */
    maxRetries?: number;
  },
): Promise<FetchResult> {
  const source = new BrowserPageSource({
    pool: sharedBrowserPool(settings),
    definition: {
      startUrl: url,
      render: 'browser',
      waitFor: opts.waitFor,
      list: { selector: 'body', fields: [{ name: 'page' }] },
      ...(opts.pageTimeoutSeconds === undefined ? {} : { pageTimeoutSeconds: opts.pageTimeoutSeconds }),
    },
    allowPrivateTargets: opts.allowPrivateTargets,
    upstreamProxyUrl: opts.proxyUrl,
    signal: opts.signal,
    maxRetries: opts.maxRetries ?? 1,
    log: () => {},
    ...(opts.settleWithinMs === undefined ? {} : { settleWithinMs: opts.settleWithinMs }),
  });
  try {
    return await source.get(url);
  } finally {
    await source.close();
  }
}

/**
 * HTTP first; the browser for the pages that need it. The crawl decides from the page task that extracted
 * the page (AutoRender), and calls `render`, which logs the decision and counts it in the evidence.
 */
class AutoPageSource implements PageSource {
  #browser: PageSource | null = null;
  readonly auto: AutoRender;

  constructor(
    private readonly http: PageSource,
    private readonly openBrowser: () => PageSource,
    def: AgentDefinition,
    private readonly log: LogFunction,
    private readonly evidence: EvidenceCollector,
  ) {
    const locators = [def.list, ...(def.follow?.fields ?? [])];
    const selectors = locators.flatMap((l) => (l.selector !== undefined ? [l.selector] : []));
    const xpaths = locators.flatMap((l) => (l.xpath !== undefined ? [l.xpath] : []));
    this.auto = { selectors, xpaths, render: (url, opts) => this.#render(url, opts) };
  }

  get receivedBytes(): number {
    return this.http.receivedBytes + (this.#browser?.receivedBytes ?? 0);
  }

  get(url: string, opts?: GetOptions): Promise<FetchResult> {
    return this.http.get(url, opts);
  }

  #render(url: string, opts?: GetOptions): Promise<FetchResult> {
    this.log(
      'Info',
      `auto: ${url}: the selectors match nothing in the served HTML and the page carries scripts; rendering it in the browser`,
    );
    this.evidence.rendered(url, true);
    this.#browser ??= this.openBrowser();
    return this.#browser.get(url, opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.#browser?.close()]);
  }
}

/** Records each page it rendered in the Run's evidence. */
class CountingBrowserSource implements PageSource {
  constructor(
    private readonly source: PageSource,
    private readonly evidence: EvidenceCollector,
  ) {}

  get receivedBytes(): number {
    return this.source.receivedBytes;
  }

  async get(url: string, opts?: GetOptions): Promise<FetchResult> {
    const result = await this.source.get(url, opts);
    if (result.ok) this.evidence.rendered(url, false);
    return result;
  }

  close(): Promise<void> {
    return this.source.close();
  }
}

/**
 * The Run's page source for its definition's `render`: `openHttp` is the HTTP path, `openBrowser` the
 * browser's (null when this worker cannot render).
 */
export function openRenderer(
  definition: AgentDefinition,
  openHttp: () => PageSource,
  openBrowser: (() => PageSource) | null,
  log: LogFunction,
  evidence: EvidenceCollector,
): PageSource {
  const mode = renderModeOf(definition);
  if (mode === 'http') return openHttp();
  // The caller checked that the worker can render before the Run started.
  if (!openBrowser) throw new Error(`render '${mode}' needs a browser`);
  if (mode === 'browser') return new CountingBrowserSource(openBrowser(), evidence);
  return new AutoPageSource(openHttp(), openBrowser, definition, log, evidence);
}
