// The crawl loop of one Run: each input's start page and list pages in turn (a page's records and their
// detail pages: list-records.ts); failures counted and reported, never thrown.
import { setMaxListeners } from 'node:events';
import {
  DEFAULT_MAX_PAGES,
  fieldsOf,
  isHttpUrl,
  parameterDefaults,
  selectorsOf,
  xpathsOf,
  type AgentDefinition,
} from './definition.js';
import { CriteriaTally } from './definition-criteria.js';
import { EvidenceCollector, MAX_URL_LENGTH } from './evidence.js';
import type { ExtractedRecord } from './extract.js';
import {
  DEFAULT_FAILED_PAGE_HTML,
  type CrawlCheckpoint,
  type ExtractionOptions,
  type ExtractionStats,
  type FailedPage,
  type LogFunction,
  type LogLevel,
  type SetCheckpoint,
} from './extraction-types.js';
import { EngineFailureCode, maskFailure, startPageFailure, type EngineFailure } from './failure-codes.js';
import { describeFailure } from './messages.js';
import type { ListPageResult, ListPlan } from './page-extract.js';
import { PageFetcher, type FetchedAndProcessed, type ListTask } from './page-fetch.js';
import { boundedSelectors, DEFAULT_PAGE_CPU_SECONDS } from './page-worker.js';
import type { FetchFailure, PageSource } from './page.js';
import { decodeText } from './parse.js';
import { SnapshotKeeper } from './snapshots.js';
import { ListRecords } from './list-records.js';
import { requestsFor, type InputRequests } from './session.js';
import { substitutePlaceholders } from './template.js';

/** Opens the Run's page source; `signal` aborts everything it has in flight. */
export type OpenPageSource = (signal: AbortSignal, log: LogFunction, evidence: EvidenceCollector) => PageSource;

export type RecordSink = (records: ExtractedRecord[]) => void | Promise<void>;

/** The counters of a Run before its first page. */
export const emptyStats = (): ExtractionStats => ({
  pageCount: 0,
  dataCount: 0,
  exportCount: 0,
  errorCount: 0,
  inputCount: 0,
  traffic: 0,
});

export class ExtractionRun {
  readonly stats: ExtractionStats = emptyStats();
  readonly failedPages: FailedPage[] = [];
  readonly evidence: EvidenceCollector;
  /** Pages that explain an empty result, and the figures successCriteria are judged on. */
  readonly snapshots: SnapshotKeeper;
  readonly criteria: CriteriaTally;
  /** Per input, why its start page failed (null while it has not). Parameters are masked. */
  readonly startFailures: Array<EngineFailure | null> = [];
  readonly #controller = new AbortController();
  abortReason: 'stop' | 'timeout' | 'internal' | null = null;

  readonly #def: AgentDefinition;
  readonly #options: ExtractionOptions;
  readonly #mask: (text: string) => string;
  readonly #client: PageSource;
  readonly #defaults: Record<string, string>;
  readonly #plan: ListPlan;
  readonly #pages: PageFetcher;
  readonly #records: ListRecords;
  /** Per set: where its crawl has got to (reported after each list page through `onCheckpoint`). */
  readonly #sets: SetCheckpoint[];
  /** Bytes received by the attempts before this one (a resumed crawl). */
  readonly #trafficBefore: number;

  constructor(
    options: ExtractionOptions,
    mask: (text: string) => string,
    openSource: OpenPageSource,
    setCount: number,
  ) {
    // Each request waiting out a retry delay listens to this signal; that is expected, not a leak.
    setMaxListeners(0, this.#controller.signal);
    this.#def = options.definition;
    this.#options = options;
    this.#mask = mask;
    this.evidence = new EvidenceCollector(mask);
    this.snapshots = new SnapshotKeeper(mask, MAX_URL_LENGTH, (ref) => this.evidence.snapshot(ref));
    this.criteria = new CriteriaTally(options.definition.successCriteria, options.resume?.criteria);
    this.#defaults = parameterDefaults(options.definition);
    const { list, next, follow, responseType } = options.definition;
    this.#plan = { list, next, follow, responseType };
    // A required export column means every exported record has a value there, just like a required field.
    const requiredFields = fieldsOf(options.definition)
      .filter((f) => f.required)
      .map((f) => f.name);
    const requiredColumns = (options.definition.export?.columns ?? []).filter((c) => c.required).map((c) => c.name);
    this.#client = openSource(this.#controller.signal, (level, message) => this.log(level, message), this.evidence);
    this.#pages = new PageFetcher({
      client: this.#client,
      stats: this.stats,
      evidence: this.evidence,
      signal: this.#controller.signal,
      canStart: () => !this.halted,
      budgetMs: (options.pageCpuSeconds ?? DEFAULT_PAGE_CPU_SECONDS) * 1000,
      selectorsBounded: boundedSelectors(
        selectorsOf(options.definition).map(([selector]) => selector),
        xpathsOf(options.definition),
      ),
    });
    this.#records = new ListRecords({
      def: options.definition,
      requiredNames: [...new Set([...requiredFields, ...requiredColumns])],
      stats: this.stats,
      evidence: this.evidence,
      snapshots: this.snapshots,
      criteria: this.criteria,
      pages: this.#pages,
      knownDetails: options.knownDetails,
      log: (level, message) => this.log(level, message),
      progress: () => this.progress(),
      recordFailure: (failure) => this.#recordFailure(failure),
    });
    const resume = options.resume;
    if (resume) {
      Object.assign(this.stats, resume.stats);
      this.startFailures.push(...resume.startFailures);
    }
    this.#trafficBefore = this.stats.traffic;
    this.#sets = resume
      ? resume.sets.map((s) => ({ ...s }))
      : Array.from({ length: setCount }, () => ({ inputsDone: 0, current: null }));
  }

  /** Records where set `set` (0-based) has got to, and reports the whole crawl's checkpoint. */
  #advance(set: number, state: SetCheckpoint): void {
    this.#sets[set] = state;
    if (!this.#options.onCheckpoint) return;
    this.stats.traffic = this.#trafficBefore + this.#client.receivedBytes;
    this.#options.onCheckpoint({
      version: 1,
      sets: this.#sets.map((s) => ({ ...s })),
      stats: { ...this.stats },
      startFailures: [...this.startFailures],
      criteria: this.criteria.counts(),
    } satisfies CrawlCheckpoint);
  }

  #draining = false;

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Aborted, or draining: either way no new page is started. */
  get halted(): boolean {
    return this.#draining || this.#records.full || this.aborted;
  }

  get drained(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }

  abort(reason: 'stop' | 'timeout' | 'internal'): void {
    if (this.abortReason !== null) return;
    this.abortReason = reason;
    this.#controller.abort(new Error(`extraction ${reason}`));
  }

  log(level: LogLevel, message: string): void {
    this.#options.log?.(level, this.#mask(message));
  }
  /** A failure whose text parameters carry no secret of the Run. */
  #masked(f: EngineFailure): EngineFailure {
    return maskFailure(f, this.#mask);
  }

  progress(): void {
    this.stats.traffic = this.#trafficBefore + this.#client.receivedBytes;
    try {
      this.#options.onProgress?.({ ...this.stats });
    } catch {
      // A failing progress listener must not break the extraction.
    }
  }

  async close(): Promise<void> {
    this.stats.traffic = this.#trafficBefore + this.#client.receivedBytes;
    await this.#client.close();
  }

  /** Crawls the inputs of set `set` (0-based) in order, from where its checkpoint says when resumed. */
  async crawlSet(
    rows: Array<{ row: Record<string, string>; index: number }>,
    records: RecordSink,
    set = 0,
  ): Promise<void> {
    for (let i = this.#sets[set].inputsDone; i < rows.length; i++) {
      if (this.halted) return;
      const { row, index } = rows[i];
      const resumeAt = this.#sets[set].current;
      // An input is done when its crawl ends by itself, not when a stop or the run timeout cut it short.
      const done = await this.#crawlInput(row, index, records, { set, inputsDone: i, resumeAt });
      if (!done) return;
      // An input whose last list page was extracted has said so with that page; one that failed has not.
      if (this.#sets[set].inputsDone !== i + 1) this.#advance(set, { inputsDone: i + 1, current: null });
    }
  }

  #htmlKept = 0;

  #recordFailure(failure: FetchFailure): void {
    // Not an error: the site asked not to be crawled there.
    if (failure.kind === 'robots-disallowed') {
      this.evidence.robotsSkipped(failure.url);
      this.log('Warning', describeFailure(failure));
      return;
    }
    this.stats.errorCount++;
    this.evidence.pageFailed();
    // A page over budget was answered, and counted as such when it arrived.
    if (failure.kind === 'over-budget') this.evidence.overBudget(failure.url);
    else if ((failure.kind === 'http' || failure.kind === 'banned') && failure.status !== undefined)
      this.evidence.answered(failure.status, failure.url);
    else this.evidence.networkError(failure.kind, failure.url);
    const keep = this.#options.failedPageHtml === undefined ? DEFAULT_FAILED_PAGE_HTML : this.#options.failedPageHtml;
    let html: string | undefined;
    if (keep && failure.body && failure.body.length > 0 && this.#htmlKept < keep.maxPages) {
      this.#htmlKept++;
      html = this.#mask(decodeText(failure.body.subarray(0, keep.maxBytes), failure.contentType));
    }
    this.failedPages.push({
      url: this.#mask(failure.url),
      ...(failure.status !== undefined ? { status: failure.status } : {}),
      error: this.#mask(describeFailure(failure)),
      ...(html !== undefined ? { html } : {}),
    });
    this.log('Error', describeFailure(failure));
    this.progress();
  }

  /** One input's list pages; false when a stop or the run timeout cut it short. */
  async #crawlInput(
    row: Record<string, string>,
    index: number,
    records: RecordSink,
    at: { set: number; inputsDone: number; resumeAt: SetCheckpoint['current'] },
  ): Promise<boolean> {
    const requests = requestsFor(this.#def, { ...this.#defaults, ...row });
    if (at.resumeAt) return this.#crawlPages(index, records, at, at.resumeAt, -1, requests);
    this.stats.inputCount++;
    const failureSlot = this.startFailures.push(null) - 1;
    const { text: startUrl, missing } = substitutePlaceholders(this.#def.startUrl, { ...this.#defaults, ...row });
    for (const name of missing)
      this.log('Warning', `Input ${index}: parameter '${name}' has no value; substituted an empty string`);
    if (!isHttpUrl(startUrl)) {
      const message = `start URL '${startUrl}' is not an http(s) URL`;
      this.stats.errorCount++;
      this.failedPages.push({ url: this.#mask(startUrl), error: this.#mask(message) });
      this.log('Error', `Input ${index}: ${message}`);
      this.startFailures[failureSlot] = this.#masked({
        code: EngineFailureCode.StartUrlInvalid,
        params: { input: index, url: startUrl },
      });
      this.progress();
      return true;
    }
    this.log('Info', `Input ${index}: starting at ${startUrl}`);
    const from = { url: startUrl, pageNumber: 1, visited: [] };
    return this.#crawlPages(index, records, at, from, failureSlot, requests);
  }

  /** An input's list pages from `from` on; its start page's failure goes to `failureSlot`. */
  async #crawlPages(
    index: number,
    records: RecordSink,
    at: { set: number; inputsDone: number },
    from: { url: string; pageNumber: number; visited: string[] },
    failureSlot: number,
    requests: InputRequests,
  ): Promise<boolean> {
    const maxPages = this.#def.next?.maxPages ?? DEFAULT_MAX_PAGES;
    const visited = new Set<string>(from.visited);
    let url: string | null = from.url;
    for (let pageNumber = from.pageNumber; url !== null && !this.halted; pageNumber++) {
      visited.add(url);
      const request = pageNumber === 1 && failureSlot !== -1 ? requests.start : requests.next;
      const fetched: FetchedAndProcessed<ListTask> = await this.#pages.fetch(
        url,
        (page) => ({ kind: 'list', page, plan: this.#plan }),
        request,
        true,
      );
      if (!fetched.ok) return this.#listPageFailed(fetched.failure, pageNumber === 1 ? failureSlot : null);
      const page = fetched.page;
      const listed: ListPageResult = fetched.value;
      const pageRecords = await this.#records.keep(listed, page, requests.detail);
      const nextUrl = this.#nextOf(listed.nextUrl, visited, pageNumber, maxPages, index);
      // The records go to the sink and the checkpoint counts their page in one step (nothing in between
      // may report a checkpoint without them, or with them and without their page).
      const sunk = pageRecords.length > 0 ? records(pageRecords) : undefined;
      this.#advance(
        at.set,
        nextUrl === null
          ? { inputsDone: at.inputsDone + 1, current: null }
          : { inputsDone: at.inputsDone, current: { url: nextUrl, pageNumber: pageNumber + 1, visited: [...visited] } },
      );
      await sunk;
      this.progress();
      if (nextUrl === null) return true;
      if (this.halted) return false;
      url = nextUrl;
    }
    return !this.halted;
  }

  /** The list page to go on at after page `pageNumber`, or null when the input's pagination ends here. */
  #nextOf(nextUrl: string | null, visited: Set<string>, pageNumber: number, maxPages: number, index: number) {
    if (!this.#def.next || nextUrl === null) return null;
    if (visited.has(nextUrl)) {
      this.log('Warning', `next page ${nextUrl} was already visited; pagination stops here`);
      this.evidence.paginationStopped(nextUrl);
      return null;
    }
    if (pageNumber >= maxPages) {
      this.log('Info', `Input ${index}: reached maxPages (${maxPages}); not following ${nextUrl}`);
      return null;
    }
    return nextUrl;
  }

  /**
   * A list page failed (fetched or processed): its input's start failed (`startSlot`), or its pagination
   * stopped. False when it was aborted (a stop, the run timeout): the input is not done.
   */
  #listPageFailed(failure: FetchFailure, startSlot: number | null): boolean {
    if (failure.kind === 'aborted') return false;
    this.#recordFailure(failure);
    if (startSlot !== null)
      this.startFailures[startSlot] = this.#masked(startPageFailure(failure, this.#options.proxyUrl !== undefined));
    else this.evidence.paginationStopped(failure.url);
    return true;
  }
}
