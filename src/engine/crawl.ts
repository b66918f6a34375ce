// The crawl loop of one Run: each input's start page, its list pages one after another, and the detail
// pages of each list page side by side; failures counted and reported, never thrown.
import { setMaxListeners } from 'node:events';
import {
  DEFAULT_MAX_PAGES,
  fieldsOf,
  isHttpUrl,
  parameterDefaults,
  selectorsOf,
  xpathsOf,
  type AgentDefinition,
  type AgentField,
} from './definition.js';
import { EvidenceCollector } from './evidence.js';
import { isMissing, type ExtractedRecord } from './extract.js';
import {
  DEFAULT_FAILED_PAGE_HTML,
  type ExtractionOptions,
  type ExtractionStats,
  type FailedPage,
  type LogFunction,
  type LogLevel,
} from './extraction-types.js';
import { describeFailure, overBudgetMessage, startPageFailureMessage } from './messages.js';
import type { ListPageResult, ListPlan, PageInput, PageTask, PageValue } from './page-extract.js';
import { boundedSelectors, DEFAULT_PAGE_CPU_SECONDS, processPage } from './page-worker.js';
import type { FetchedPage, FetchFailure, PageSource } from './page.js';
import { decodeText } from './parse.js';
import { substitutePlaceholders } from './template.js';

/** Opens the Run's page source; `signal` aborts everything it has in flight. */
export type OpenPageSource = (signal: AbortSignal, log: LogFunction, evidence: EvidenceCollector) => PageSource;

/** How the run log names the renderer of a page: GET over HTTP, RENDER in the browser. */
const verbOf = (page: FetchedPage) => (page.renderer === 'browser' ? 'RENDER' : 'GET');

/** What the page thread needs of a page: the body goes by copy, so only its own bytes. */
function pageInput(page: FetchedPage): PageInput {
  const { body } = page;
  const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(body);
  return { finalUrl: page.finalUrl, body: own, contentType: page.contentType };
}

/** How the run log names a locator: `selector '.item'` (as it always has), `xpath '//li'`, `jsonPath '$.items[*]'`. */
export function locatorText(locator: { selector?: string; xpath?: string; jsonPath?: string }): string {
  if (locator.selector !== undefined) return `selector '${locator.selector}'`;
  if (locator.xpath !== undefined) return `xpath '${locator.xpath}'`;
  return `jsonPath '${locator.jsonPath}'`;
}

function setNull(record: ExtractedRecord, fields: AgentField[]): void {
  for (const field of fields) record[field.name] = null;
}

function firstMissing(record: ExtractedRecord, names: string[]): string | undefined {
  for (const name of names) if (isMissing(record[name])) return name;
  return undefined;
}

function allMissing(record: ExtractedRecord): boolean {
  for (const key in record) if (!isMissing(record[key])) return false;
  return true;
}

export type RecordSink = (records: ExtractedRecord[]) => void | Promise<void>;

interface PendingRecord {
  record: ExtractedRecord;
  followUrl: string | null;
  /** The detail fetch was cut short by a stop or the run timeout: the record is incomplete. */
  aborted: boolean;
}

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
  /** Per processed input: the fatal message if its start page failed, null if it did not. */
  readonly startFailures: Array<string | null> = [];
  readonly #controller = new AbortController();
  abortReason: 'stop' | 'timeout' | 'internal' | null = null;

  readonly #def: AgentDefinition;
  readonly #options: ExtractionOptions;
  readonly #mask: (text: string) => string;
  readonly #client: PageSource;
  readonly #requiredNames: string[];
  readonly #defaults: Record<string, string>;
  readonly #plan: ListPlan;
  readonly #pageBudgetMs: number;
  readonly #selectorsBounded: boolean;

  constructor(options: ExtractionOptions, mask: (text: string) => string, openSource: OpenPageSource) {
    // Each request waiting out a retry delay listens to this signal; that is expected, not a leak.
    setMaxListeners(0, this.#controller.signal);
    this.#def = options.definition;
    this.#options = options;
    this.#mask = mask;
    this.evidence = new EvidenceCollector(mask);
    this.#defaults = parameterDefaults(options.definition);
    const { list, next, follow, responseType } = options.definition;
    this.#plan = { list, next, follow, responseType };
    this.#pageBudgetMs = (options.pageCpuSeconds ?? DEFAULT_PAGE_CPU_SECONDS) * 1000;
    this.#selectorsBounded = boundedSelectors(
      selectorsOf(options.definition).map(([selector]) => selector),
      xpathsOf(options.definition),
    );
    // A required export column means every exported record has a value there, just like a required field.
    const requiredFields = fieldsOf(options.definition)
      .filter((f) => f.required)
      .map((f) => f.name);
    const requiredColumns = (options.definition.export?.columns ?? []).filter((c) => c.required).map((c) => c.name);
    this.#requiredNames = [...new Set([...requiredFields, ...requiredColumns])];
    this.#client = openSource(this.#controller.signal, (level, message) => this.log(level, message), this.evidence);
  }

  #draining = false;
  /** Passed to every page request: a page waiting for a concurrency slot does not start once halted. */
  readonly #startIfRunning = { canStart: () => !this.halted };

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Aborted, or draining: either way no new page is started. */
  get halted(): boolean {
    return this.#draining || this.#full || this.aborted;
  }

  get drained(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }

  /** The definition's maxRecords was reached: no new page is started, and the Run ends as it would have. */
  #full = false;

  abort(reason: 'stop' | 'timeout' | 'internal'): void {
    if (this.abortReason !== null) return;
    this.abortReason = reason;
    this.#controller.abort(new Error(`extraction ${reason}`));
  }

  log(level: LogLevel, message: string): void {
    this.#options.log?.(level, this.#mask(message));
  }

  progress(): void {
    this.stats.traffic = this.#client.receivedBytes;
    try {
      this.#options.onProgress?.({ ...this.stats });
    } catch {
      // A failing progress listener must not break the extraction.
    }
  }

  async close(): Promise<void> {
    this.stats.traffic = this.#client.receivedBytes;
    await this.#client.close();
  }

  async crawlSet(rows: Array<{ row: Record<string, string>; index: number }>, records: RecordSink): Promise<void> {
    for (const { row, index } of rows) {
      if (this.halted) return;
      await this.#crawlInput(row, index, records);
    }
  }

  #htmlKept = 0;

  /** A fetched page's parse and extraction on the page thread, within the page CPU budget. */
  async #process<T extends PageTask>(
    task: T,
    page: FetchedPage,
  ): Promise<{ ok: true; value: PageValue<T> } | { ok: false; failure: FetchFailure }> {
    const fastParse = this.#options.fastParse ?? true;
    const outcome = await processPage(
      { ...task, fastParse },
      this.#pageBudgetMs,
      this.#controller.signal,
      this.#selectorsBounded,
    );
    if (outcome.ok) {
      this.evidence.parsed(outcome.value.parser);
      this.evidence.unparsedDates(outcome.value.unparsedDates);
      return outcome;
    }
    const kind = outcome.reason === 'aborted' ? 'aborted' : 'over-budget';
    const message = kind === 'aborted' ? 'aborted' : overBudgetMessage(this.#pageBudgetMs / 1000, outcome.message);
    const { url, status, body, contentType } = page;
    return { ok: false, failure: { url, kind, status, message, body, contentType, attempts: 1 } };
  }

  #recordFailure(failure: FetchFailure): void {
    this.stats.errorCount++;
    // A page over budget was answered, and counted as such when it arrived.
    if (failure.kind === 'over-budget') this.evidence.overBudget(failure.url);
    else if (failure.kind === 'http' && failure.status !== undefined)
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

  async #crawlInput(row: Record<string, string>, index: number, records: RecordSink): Promise<void> {
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
      this.startFailures[failureSlot] = this.#mask(`Input ${index}: ${message}`);
      this.progress();
      return;
    }
    this.log('Info', `Input ${index}: starting at ${startUrl}`);

    const maxPages = this.#def.next?.maxPages ?? DEFAULT_MAX_PAGES;
    const visited = new Set<string>();
    let url: string | null = startUrl;
    for (let pageNumber = 1; url !== null && !this.halted; pageNumber++) {
      visited.add(url);
      const result = await this.#client.get(url, this.#startIfRunning);
      if (!result.ok) return this.#listPageFailed(result.failure, pageNumber === 1 ? failureSlot : null);
      this.stats.pageCount++;
      const page = result.page;
      this.evidence.answered(page.status, page.url);
      const processed = await this.#process({ kind: 'list', page: pageInput(page), plan: this.#plan }, page);
      if (!processed.ok) return this.#listPageFailed(processed.failure, pageNumber === 1 ? failureSlot : null);
      const listed = processed.value;
      const pageRecords = await this.#keepRecords(listed, page);
      if (pageRecords.length > 0) await records(pageRecords);
      this.progress();
      if (this.halted || !this.#def.next) return;

      const nextUrl = listed.nextUrl;
      if (nextUrl === null) return;
      if (visited.has(nextUrl)) {
        this.log('Warning', `next page ${nextUrl} was already visited; pagination stops here`);
        this.evidence.paginationStopped(nextUrl);
        return;
      }
      if (pageNumber >= maxPages) {
        this.log('Info', `Input ${index}: reached maxPages (${maxPages}); not following ${nextUrl}`);
        return;
      }
      url = nextUrl;
    }
  }

  /** A list page failed (fetched or processed): its input's start failed (`startSlot`), or its pagination stopped. */
  #listPageFailed(failure: FetchFailure, startSlot: number | null): void {
    if (failure.kind === 'aborted') return;
    this.#recordFailure(failure);
    if (startSlot !== null) this.startFailures[startSlot] = this.#mask(startPageFailureMessage(failure));
    else this.evidence.paginationStopped(failure.url);
  }

  /** The records of one list page worth keeping, completed from their detail pages when the definition follows links. */
  async #keepRecords(listed: ListPageResult, page: FetchedPage): Promise<ExtractedRecord[]> {
    const def = this.#def;
    const redirected = page.finalUrl !== page.url ? ` (redirected to ${page.finalUrl})` : '';
    this.log(
      'Info',
      `${verbOf(page)} ${page.url}${redirected} -> ${page.status}, ${page.body.length} bytes, ${listed.matches} list matches`,
    );
    this.evidence.listPage(listed.matches, page.finalUrl, listed.scripted);
    if (listed.matches === 0) {
      this.log('Warning', `list ${locatorText(def.list)} matched nothing on ${page.finalUrl}`);
      return [];
    }

    const pending: PendingRecord[] = listed.items.map(({ record, followUrl }, i) => {
      if (def.follow && followUrl === null) {
        this.log('Warning', `follow ${locatorText(def.follow)} found no link in record ${i + 1} on ${page.finalUrl}`);
      }
      return { record, followUrl, aborted: false };
    });

    // Records beyond maxRecords are not worth their detail pages.
    if (def.maxRecords !== undefined) pending.splice(Math.max(def.maxRecords - this.stats.dataCount, 0));
    if (def.follow) {
      const followFields = def.follow.fields;
      await Promise.all(pending.map((item) => this.#followDetail(item, followFields)));
    }

    const kept: ExtractedRecord[] = [];
    for (let i = 0; i < pending.length; i++) {
      const item = pending[i];
      if (item.aborted) continue;
      const missing = firstMissing(item.record, this.#requiredNames);
      if (missing !== undefined) {
        this.stats.errorCount++;
        this.evidence.requiredMissing(missing, page.finalUrl);
        this.log('Error', `record ${i + 1} on ${page.finalUrl} dropped: required field '${missing}' has no value`);
        continue;
      }
      if (this.#full) break;
      this.stats.dataCount++;
      if (allMissing(item.record)) this.evidence.emptyRecord();
      kept.push(item.record);
      if (this.stats.dataCount === def.maxRecords) {
        this.#full = true;
        this.log('Info', `reached maxRecords (${def.maxRecords}); the Run stops extracting`);
      }
    }
    return kept;
  }

  async #followDetail(item: PendingRecord, fields: AgentField[]): Promise<void> {
    if (item.followUrl === null) {
      setNull(item.record, fields);
      return;
    }
    const result = await this.#client.get(item.followUrl, this.#startIfRunning);
    if (!result.ok) {
      if (result.failure.kind === 'aborted') {
        item.aborted = true;
        return;
      }
      this.#recordFailure(result.failure);
      setNull(item.record, fields);
      return;
    }
    this.stats.pageCount++;
    this.evidence.answered(result.page.status, result.page.url);
    const processed = await this.#process({ kind: 'detail', page: pageInput(result.page), fields }, result.page);
    if (!processed.ok) {
      if (processed.failure.kind === 'aborted') item.aborted = true;
      else {
        this.#recordFailure(processed.failure);
        setNull(item.record, fields);
      }
      return;
    }
    Object.assign(item.record, processed.value.record);
    const redirected = result.page.finalUrl !== result.page.url ? ` (redirected to ${result.page.finalUrl})` : '';
    this.log(
      'Info',
      `${verbOf(result.page)} ${result.page.url}${redirected} -> ${result.page.status}, ${result.page.body.length} bytes`,
    );
    this.progress();
  }
}
