// What every renderer hands to the parse/extract/paginate path, whether it fetched the page over HTTP
// (http.ts) or rendered it another way (a browser): the URL asked for, the URL that answered, the status,
// the content type and the body. A renderer producing text passes it as UTF-8 bytes with
// `text/html; charset=utf-8`, so the charset rules of parse.ts apply to every page alike.

export type FailureKind =
  | 'http'
  | 'dns'
  | 'refused'
  | 'timeout'
  | 'reset'
  | 'tls'
  | 'network'
  | 'target-refused'
  | 'redirects'
  | 'too-large'
  | 'invalid-url'
  | 'aborted'
  /** Fetched, but its processing went over the page's CPU budget (or ended its thread). */
  | 'over-budget'
  /** Not fetched: the host's robots.txt disallows it for the Agent's user agent. */
  | 'robots-disallowed'
  /** Answered through a proxy of the pool with a ban (proxy.banStatuses, proxy.banText), or every proxy is banned. */
  | 'banned';

export interface FetchedPage {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects: relative links resolve against it. */
  finalUrl: string;
  status: number;
  contentType: string | null;
  /** Decoded (decompressed) body. */
  body: Buffer;
  /** What produced the page; absent means HTTP. */
  renderer?: 'http' | 'browser';
  /** A PNG screenshot, taken by the browser of a list page whose list matched nothing (see snapshots.ts). */
  screenshot?: Buffer;
  /** Browser: the cookies of the page's context after it rendered (for the Run's cookie jar). */
  cookies?: BrowserCookie[];
}

/** A cookie as a browser context takes and gives it (Playwright's shape); plain data, sent between processes. */
export interface BrowserCookie {
  name: string;
  value: string;
  /** A leading dot: the domain and its subdomains; none: that host only. */
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/**
 * How one page is requested, beyond a plain GET (the definition's `request`, placeholders filled):
 * plain data, so it can be sent to the worker that renders in the browser.
 */
export interface PageRequest {
  method: 'GET' | 'POST';
  /** Added to the engine's own headers (a definition may not set framing or hop-by-hop ones). */
  headers: Record<string, string>;
  body?: string;
  /** Browser only: the Run's cookies, put into the page's context before it navigates. */
  cookies?: BrowserCookie[];
  /** Browser only: after the page loads, these form fields are filled and the form submitted. */
  fill?: { fields: Record<string, string>; submit?: string };
}

/** What a page request may carry besides its URL. */
export interface GetOptions {
  /** Asked before a page goes out (and before a retry): false gives the page up as `aborted`. */
  canStart?: () => boolean;
  request?: PageRequest;
  /** A list page: a browser takes a screenshot when the list matches nothing (a snapshot's PNG). */
  listPage?: boolean;
}

export interface FetchFailure {
  url: string;
  kind: FailureKind;
  status?: number;
  /** What went wrong, without the URL: "answered 403 Forbidden: ...", "timed out after 300 ms". */
  message: string;
  /** Body of an error response, when there was one. */
  body?: Buffer;
  contentType?: string | null;
  attempts: number;
}

export type FetchResult = { ok: true; page: FetchedPage } | { ok: false; failure: FetchFailure };

/** The seam between the crawl loop and whatever produces pages. Never throws for a failed page. */
export interface PageSource {
  /**
   * `canStart` is asked before a page goes out (and before a retry): false gives the page up as
   * `aborted`, so a graceful stop starts nothing new.
   */
  get(url: string, opts?: GetOptions): Promise<FetchResult>;
  /** Body bytes received so far, for the Run's traffic figure. */
  readonly receivedBytes: number;
  close(): Promise<void>;
  /** Render "auto" only: pages come over HTTP, and the browser renders those that need it. */
  readonly auto?: AutoRender;
}

/**
 * How render "auto" decides: the page task that extracts a page served over HTTP also checks `selectors`
 * on the same parse (PageTask.autoRender); a page that needs the browser is fetched again by `render`.
 */
export interface AutoRender {
  readonly selectors: string[];
  readonly xpaths: string[];
  render(url: string, opts?: GetOptions): Promise<FetchResult>;
}
