// A Run's session: its cookie jar (initial cookies from the definition, then whatever its pages set),
// the requests of each input (start page, next list pages, detail pages) and the browser's side of the
// jar. The jar lives in the Run's process and is never written to a checkpoint (its cookies may be a
// logged-in session): a Run resumed elsewhere starts a fresh jar and logs in again.
import { RunCookieJar } from './cookies.js';
import { renderModeOf, type AgentDefinition } from './definition.js';
import type { LogFunction } from './extraction-types.js';
import type { EvidenceCollector } from './evidence.js';
import { maskFailure, type EngineFailure } from './failure-codes.js';
import { logIn } from './login.js';
import type { FetchResult, GetOptions, PageRequest, PageSource } from './page.js';
import { buildRequest, headersOnly } from './request-build.js';
import { substitutePlaceholders } from './template.js';

/** How one input's pages are requested; absent: a plain GET. */
export interface InputRequests {
  start?: PageRequest;
  /** The input's further list pages: the start request's headers, a plain GET. */
  next?: PageRequest;
  detail?: PageRequest;
}

/** The requests of one input whose parameter values are `values`. */
export function requestsFor(def: AgentDefinition, values: Record<string, string>): InputRequests {
  const start = def.request ? buildRequest(def.request, values) : undefined;
  return {
    start,
    next: start && headersOnly(start),
    detail: def.follow?.request ? buildRequest(def.follow.request, values) : undefined,
  };
}

/** The Run's jar with the definition's initial cookies (placeholders filled from the first input). */
export function openCookieJar(def: AgentDefinition, values: Record<string, string>): RunCookieJar {
  const jar = new RunCookieJar();
  const cookies = def.request?.cookies ?? [];
  if (cookies.length > 0) {
    const startUrl = substitutePlaceholders(def.startUrl, values).text;
    const filled = cookies.map((c) => ({ ...c, value: buildRequest({ headers: { v: c.value } }, values).headers.v }));
    jar.addInitial(filled, startUrl);
  }
  return jar;
}

/**
 * A browser page source sharing the Run's jar: each page's context gets the jar's cookies before it
 * navigates, and the jar takes the context's cookies after the page rendered.
 */
export class BrowserCookieSync implements PageSource {
  constructor(
    private readonly source: PageSource,
    private readonly jar: RunCookieJar,
  ) {}

  get receivedBytes(): number {
    return this.source.receivedBytes;
  }

  async get(url: string, opts: GetOptions = {}): Promise<FetchResult> {
    const request: PageRequest = { method: 'GET', headers: {}, ...opts.request, cookies: this.jar.toBrowser() };
    const result = await this.source.get(url, { ...opts, request });
    if (result.ok && result.page.cookies) this.jar.fromBrowser(result.page.cookies);
    return result;
  }

  close(): Promise<void> {
    return this.source.close();
  }
}

/**
 * The definition's login, before any input starts: over HTTP unless every page renders in the browser.
 * Its failure is masked of the Run's secrets (the reason may quote a URL carrying one).
 */
export async function logInFirst(
  def: AgentDefinition,
  run: { readonly halted: boolean; log: LogFunction; readonly evidence: EvidenceCollector },
  source: PageSource,
  values: Record<string, string>,
  mask: (text: string) => string,
): Promise<EngineFailure | null> {
  if (!def.login || run.halted) return null;
  const failure = await logIn({
    login: def.login,
    values,
    source,
    browser: renderModeOf(def) === 'browser',
    headers: requestsFor(def, values).next?.headers ?? {},
    canStart: () => !run.halted,
    log: (level, message) => run.log(level, message),
    onRequest: () => run.evidence.loginRequest(),
  });
  return failure && maskFailure(failure, mask);
}
