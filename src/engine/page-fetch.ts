// One page of a Run from its URL to its extracted value: fetched by the Run's page source, then parsed and
// extracted on the page thread within the page CPU budget (page-worker.ts). Under render "auto" the same
// page task also says whether a page served over HTTP needs the browser, so each page is parsed once.
import type { EvidenceCollector } from './evidence.js';
import type { ExtractionStats } from './extraction-types.js';
import { overBudgetMessage } from './messages.js';
import type { PageInput, PageTask, PageValue } from './page-extract.js';
import { processPage } from './page-worker.js';
import type { FetchedPage, FetchFailure, PageRequest, PageSource } from './page.js';

export type ListTask = Extract<PageTask, { kind: 'list' }>;

/** A page fetched (rendered if it needed to be) and processed, or why not. */
export type FetchedAndProcessed<T extends PageTask> =
  { ok: true; page: FetchedPage; value: PageValue<T> } | { ok: false; failure: FetchFailure };

/** What the page thread needs of a page: the body goes by copy, so only its own bytes. */
function pageInput(page: FetchedPage): PageInput {
  const { body } = page;
  const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(body);
  return { finalUrl: page.finalUrl, body: own, contentType: page.contentType };
}

export interface PageFetcherDeps {
  client: PageSource;
  /** The Run's counters: a page that answered counts once, whichever renderer produced it. */
  stats: ExtractionStats;
  evidence: EvidenceCollector;
  signal: AbortSignal;
  /** False once the Run is halted: no new page starts. */
  canStart: () => boolean;
  budgetMs: number;
  selectorsBounded: boolean;
}

export class PageFetcher {
  /** Passed to every page request: a page waiting for a concurrency slot does not start once halted. */
  readonly #startIfRunning: { canStart: () => boolean };

  constructor(private readonly deps: PageFetcherDeps) {
    this.#startIfRunning = { canStart: deps.canStart };
  }

  /**
   * Fetches a page and processes it on the page thread. Under render "auto" the same task (one parse)
   * says whether a page served over HTTP needs the browser; such a page is rendered and processed again,
   * and only the rendered page counts.
   */
  async fetch<T extends PageTask>(
    url: string,
    taskOf: (page: PageInput) => T,
    request?: PageRequest,
    listPage = false,
  ): Promise<FetchedAndProcessed<T>> {
    const opts = request || listPage ? { ...this.#startIfRunning, request, listPage } : this.#startIfRunning;
    let fetched = await this.deps.client.get(url, opts);
    if (!fetched.ok) return fetched;
    const auto = fetched.page.renderer === 'browser' ? undefined : this.deps.client.auto;
    if (auto) {
      const task = {
        ...taskOf(pageInput(fetched.page)),
        autoRender: { selectors: auto.selectors, xpaths: auto.xpaths },
      };
      const processed = await this.#process(task, fetched.page);
      if (!processed.ok || !processed.value.needsBrowser) return this.#counted(fetched.page, processed);
      fetched = await auto.render(url, opts);
      if (!fetched.ok) return fetched;
    }
    return this.#counted(fetched.page, await this.#process(taskOf(pageInput(fetched.page)), fetched.page));
  }

  /** A page that answered: counted, with its parser in the evidence once its processing succeeded. */
  #counted<T extends PageTask>(
    page: FetchedPage,
    processed: { ok: true; value: PageValue<T> } | { ok: false; failure: FetchFailure },
  ): FetchedAndProcessed<T> {
    this.deps.stats.pageCount++;
    this.deps.evidence.answered(page.status, page.url);
    if (!processed.ok) return processed;
    this.deps.evidence.parsed(processed.value.parser);
    this.deps.evidence.unparsedDates(processed.value.unparsedDates);
    return { ok: true, page, value: processed.value };
  }

  /** A fetched page's parse and extraction on the page thread, within the page CPU budget. */
  async #process<T extends PageTask>(
    task: T,
    page: FetchedPage,
  ): Promise<{ ok: true; value: PageValue<T> } | { ok: false; failure: FetchFailure }> {
    const { budgetMs, signal, selectorsBounded } = this.deps;
    const outcome = await processPage(task, budgetMs, signal, selectorsBounded);
    if (outcome.ok) return outcome;
    const kind = outcome.reason === 'aborted' ? 'aborted' : 'over-budget';
    const message = kind === 'aborted' ? 'aborted' : overBudgetMessage(budgetMs / 1000, outcome.message);
    const { url, status, body, contentType } = page;
    return { ok: false, failure: { url, kind, status, message, body, contentType, attempts: 1 } };
  }
}
