import { setMaxListeners } from 'node:events';
import { load, loadBuffer, type Cheerio, type CheerioAPI } from 'cheerio';
import {
  DEFAULT_MAX_PAGES,
  fieldsOf,
  isHttpUrl,
  parameterDefaults,
  validateDefinition,
  type AgentDefinition,
  type AgentField,
} from './definition.js';
import { emptyEvidence, EvidenceCollector, qualityProblem, type RunEvidence } from './evidence.js';
import { extractFields, isMissing, resolveUrl, type AnyNode, type ExtractedRecord } from './extract.js';
import { HttpClient, statusText, type FetchFailure, type FetchedPage } from './http.js';
import { createMasker } from './secrets.js';
import { substitutePlaceholders } from './template.js';

export type LogLevel = 'Fatal' | 'Error' | 'Warning' | 'Info';
export type LogFunction = (level: LogLevel, message: string) => void;

export interface ExtractionStats {
  /** Pages fetched successfully (list pages and detail pages). */
  pageCount: number;
  /** Records extracted (kept). */
  dataCount: number;
  /** Always 0 here; the exporter's result sets it. */
  exportCount: number;
  /** Failed page fetches plus records dropped for a missing required value. */
  errorCount: number;
  /** Input rows processed. */
  inputCount: number;
  /** Response body bytes received (as sent on the wire, every response). */
  traffic: number;
}

export interface FailedPage {
  url: string;
  status?: number;
  error: string;
  html?: string;
}

export interface ExtractionSet {
  /** 1-based set number. */
  set: number;
  records: ExtractedRecord[];
}

export interface ExtractionResult {
  sets: ExtractionSet[];
  stats: ExtractionStats;
  failedPages: FailedPage[];
  /** True when the caller's signal stopped the run; records extracted until then are in `sets`. */
  stopped: boolean;
  /** Why the run as a whole failed (every start page failed, run timeout, invalid definition). */
  fatalError?: string;
  /** What the run observed, for diagnoses. */
  evidence: RunEvidence;
  /** Set when a run that ended normally extracted nothing usable (see `qualityProblem`). */
  warning?: string;
}

export interface ExtractionOptions {
  definition: AgentDefinition;
  /** Resolved parameter values, one row per input; empty means one row of parameter defaults. */
  inputRows: Array<Record<string, string>>;
  /** Number of sets the input rows are split into and run side by side (default 1). */
  parallelism?: number;
  /** Maximum simultaneous HTTP requests across the whole run (default 4). */
  maxConcurrency?: number;
  requestTimeoutMs?: number;
  maxRetries?: number;
  /** First retry waits about this long (jittered), doubling each time (default 500). */
  retryBaseDelayMs?: number;
  proxyUrl?: string;
  allowPrivateTargets: boolean;
  /** Cooperative stop: in-flight requests are aborted and the records so far returned. */
  signal?: AbortSignal;
  /**
   * Graceful stop: no new page is started, pages already requested finish (or fail) normally, and
   * the records so far are returned with `stopped: true`. `signal` can still cut it short.
   */
  drainSignal?: AbortSignal;
  log?: LogFunction;
  onProgress?: (stats: ExtractionStats) => void;
  /** Values never to appear in log messages, failed-page reports or errors. */
  secrets?: string[];
  userAgent?: string;
  maxBodyBytes?: number;
  /**
   * HTML of failed pages kept in `failedPages`: at most `maxPages` pages, each cut to `maxBytes`
   * (default 100 pages of 256 KiB); null keeps none (the run log is not saving HTML).
   */
  failedPageHtml?: { maxPages: number; maxBytes: number } | null;
  /**
   * Receives each page's records (set numbers from 1) instead of `sets` keeping them, so memory does
   * not grow with the number of records; awaited, so a slow writer holds the crawl back.
   */
  onRecords?: (set: number, records: ExtractedRecord[]) => void | Promise<void>;
}

export const DEFAULT_MAX_CONCURRENCY = 4;
export const DEFAULT_FAILED_PAGE_HTML = { maxPages: 100, maxBytes: 256 * 1024 };

/** Splits rows into `count` contiguous sets whose sizes differ by at most one (earlier sets larger). */
export function splitIntoSets<T>(rows: T[], count: number): T[][] {
  const sets: T[][] = [];
  const base = Math.floor(rows.length / count);
  const extra = rows.length % count;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const size = base + (i < extra ? 1 : 0);
    sets.push(rows.slice(offset, offset + size));
    offset += size;
  }
  return sets;
}

function charsetOf(contentType: string | null | undefined): string | undefined {
  return contentType?.match(/charset\s*=\s*"?([^";\s]+)/i)?.[1];
}

function decodeText(body: Buffer, contentType: string | null | undefined): string {
  try {
    return new TextDecoder(charsetOf(contentType) ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const utf8 = new TextDecoder('utf-8');
const hasUtf16Bom = (b: Buffer) => b.length >= 2 && ((b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0xff && b[1] === 0xfe));

export function parseHtml(page: FetchedPage): CheerioAPI {
  const label = charsetOf(page.contentType);
  // A page declared UTF-8 (the common case) needs no sniffing: only a byte order mark could override
  // the header, and the decoder drops a UTF-8 one as the sniffer would.
  if (label && /^(utf-?8|unicode-1-1-utf-8)$/i.test(label) && !hasUtf16Bom(page.body)) return load(utf8.decode(page.body));
  return loadBuffer(page.body, { encoding: { defaultEncoding: 'utf-8', ...(label ? { transportLayerEncodingLabel: label } : {}) } });
}

function describeFailure(failure: FetchFailure): string {
  if (failure.kind === 'http') return `GET ${failure.url} ${failure.message}`;
  if (failure.kind === 'target-refused') return failure.message;
  return `GET ${failure.url} failed: ${failure.message}`;
}

/** The run-level message when the start page of an input failed: says what the user can do. */
export function startPageFailureMessage(failure: FetchFailure): string {
  if (failure.kind === 'target-refused') return failure.message;
  if (failure.kind !== 'http' || failure.status === undefined) return `Start page ${failure.url} failed: ${failure.message}`;
  const attempts = failure.attempts > 1 ? ` (after ${failure.attempts} attempts)` : '';
  const answered = `Start page ${failure.url} answered ${statusText(failure.status)}${attempts}`;
  if (failure.status === 403) return `${answered}: the site blocked the request; try a proxy pool or lower concurrency`;
  if (failure.status === 429) return `${answered}: the site is rate limiting requests; lower concurrency or try a proxy pool`;
  if (failure.status === 401 || failure.status === 407) return `${answered}: the site requires authentication`;
  if (failure.status >= 500) return `${answered}: the site is failing; try again later`;
  return answered;
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

type RecordSink = (records: ExtractedRecord[]) => void | Promise<void>;

interface PendingRecord {
  record: ExtractedRecord;
  followUrl: string | null;
  /** The detail fetch was cut short by a stop or the run timeout: the record is incomplete. */
  aborted: boolean;
}

class ExtractionRun {
  readonly stats: ExtractionStats = { pageCount: 0, dataCount: 0, exportCount: 0, errorCount: 0, inputCount: 0, traffic: 0 };
  readonly failedPages: FailedPage[] = [];
  readonly evidence: EvidenceCollector;
  /** Per processed input: the fatal message if its start page failed, null if it did not. */
  readonly startFailures: Array<string | null> = [];
  readonly #controller = new AbortController();
  abortReason: 'stop' | 'timeout' | 'internal' | null = null;

  readonly #def: AgentDefinition;
  readonly #options: ExtractionOptions;
  readonly #mask: (text: string) => string;
  readonly #client: HttpClient;
  readonly #requiredNames: string[];
  readonly #defaults: Record<string, string>;

  constructor(options: ExtractionOptions, mask: (text: string) => string) {
    // Each request waiting out a retry delay listens to this signal; that is expected, not a leak.
    setMaxListeners(0, this.#controller.signal);
    this.#def = options.definition;
    this.#options = options;
    this.#mask = mask;
    this.evidence = new EvidenceCollector(mask);
    this.#defaults = parameterDefaults(options.definition);
    // A required export column means every exported record has a value there, just like a required field.
    const requiredFields = fieldsOf(options.definition).filter((f) => f.required).map((f) => f.name);
    const requiredColumns = (options.definition.export?.columns ?? []).filter((c) => c.required).map((c) => c.name);
    this.#requiredNames = [...new Set([...requiredFields, ...requiredColumns])];
    this.#client = new HttpClient({
      maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      requestTimeoutMs: options.requestTimeoutMs,
      maxRetries: options.maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs,
      proxyUrl: options.proxyUrl,
      allowPrivateTargets: options.allowPrivateTargets,
      signal: this.#controller.signal,
      userAgent: options.userAgent,
      maxBodyBytes: options.maxBodyBytes,
      onRetry: (e) =>
        this.log('Warning', `GET ${e.url} ${e.message}; retrying in ${e.delayMs} ms (attempt ${e.attempt + 1} of ${e.maxAttempts})`),
    });
  }

  #draining = false;
  /** Passed to every page request: a page waiting for a concurrency slot does not start once halted. */
  readonly #startIfRunning = { canStart: () => !this.halted };

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Aborted, or draining: either way no new page is started. */
  get halted(): boolean {
    return this.#draining || this.aborted;
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

  #recordFailure(failure: FetchFailure): void {
    this.stats.errorCount++;
    if (failure.kind === 'http' && failure.status !== undefined) this.evidence.answered(failure.status, failure.url);
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
    for (const name of missing) this.log('Warning', `Input ${index}: parameter '${name}' has no value; substituted an empty string`);
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
      if (!result.ok) {
        if (result.failure.kind === 'aborted') return;
        this.#recordFailure(result.failure);
        if (pageNumber === 1) this.startFailures[failureSlot] = this.#mask(startPageFailureMessage(result.failure));
        else this.evidence.paginationStopped(url);
        return;
      }
      this.stats.pageCount++;
      const page = result.page;
      this.evidence.answered(page.status, page.url);
      const $ = parseHtml(page);
      const pageRecords = await this.#extractListPage($, page);
      if (pageRecords.length > 0) await records(pageRecords);
      this.progress();
      if (this.halted || !this.#def.next) return;

      const href = $(this.#def.next.selector).first().attr('href');
      const nextUrl = href === undefined ? null : resolveUrl(href, page.finalUrl);
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

  /** Extracts the records of one list page, fetching detail pages when the definition follows links. */
  async #extractListPage($: CheerioAPI, page: FetchedPage): Promise<ExtractedRecord[]> {
    const def = this.#def;
    const elements = $(def.list.selector);
    const redirected = page.finalUrl !== page.url ? ` (redirected to ${page.finalUrl})` : '';
    this.log('Info', `GET ${page.url}${redirected} -> ${page.status}, ${page.body.length} bytes, ${elements.length} list matches`);
    this.evidence.listPage(elements.length, page.finalUrl);
    if (elements.length === 0) {
      this.log('Warning', `list selector '${def.list.selector}' matched nothing on ${page.finalUrl}`);
      return [];
    }

    const pending: PendingRecord[] = elements.toArray().map((element, i) => {
      const scope = $(element);
      const record = extractFields($, scope, def.list.fields, page.finalUrl);
      let followUrl: string | null = null;
      if (def.follow) {
        const link = scope.is(def.follow.selector) ? scope : scope.find(def.follow.selector).first();
        const href = link.attr('href');
        followUrl = href === undefined ? null : resolveUrl(href, page.finalUrl);
        if (followUrl === null) {
          this.log('Warning', `follow selector '${def.follow.selector}' found no link in record ${i + 1} on ${page.finalUrl}`);
        }
      }
      return { record, followUrl, aborted: false };
    });

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
      this.stats.dataCount++;
      if (allMissing(item.record)) this.evidence.emptyRecord();
      kept.push(item.record);
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
    const $ = parseHtml(result.page);
    const root: Cheerio<AnyNode> = $.root();
    extractFields($, root, fields, result.page.finalUrl, item.record);
    const redirected = result.page.finalUrl !== result.page.url ? ` (redirected to ${result.page.finalUrl})` : '';
    this.log('Info', `GET ${result.page.url}${redirected} -> ${result.page.status}, ${result.page.body.length} bytes`);
    this.progress();
  }
}

/**
 * Runs a definition over its input rows and returns the extracted records per set. Resolves (never
 * rejects) for anything that happens on the web: failures are in `failedPages`, `stats` and `fatalError`.
 * Rejects only for invalid options.
 */
export async function runExtraction(options: ExtractionOptions): Promise<ExtractionResult> {
  const parallelism = options.parallelism ?? 1;
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (!Number.isInteger(parallelism) || parallelism < 1) throw new RangeError(`parallelism must be a positive integer, got ${parallelism}`);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }

  const def = options.definition;
  // Read defensively: the definition has not been validated yet, and its problems may quote these values.
  const declared: unknown[] = Array.isArray(def?.parameters) ? def.parameters : [];
  const encryptedDefaults = declared
    .map((p) => p as { encrypted?: unknown; defaultValue?: unknown } | null)
    .filter((p) => p?.encrypted === true && typeof p.defaultValue === 'string' && p.defaultValue !== '')
    .map((p) => p?.defaultValue as string);
  const proxySecrets: string[] = [];
  if (options.proxyUrl) {
    try {
      const proxy = new URL(options.proxyUrl);
      if (proxy.password) proxySecrets.push(decodeURIComponent(proxy.password), proxy.password);
    } catch {
      // An unparsable proxy URL fails on first use with its own message.
    }
  }
  const mask = createMasker([...(options.secrets ?? []), ...encryptedDefaults, ...proxySecrets]);

  const validation = validateDefinition(def);
  if (!validation.valid) {
    const fatalError = mask(`definition is invalid: ${validation.problems.join('; ')}`);
    options.log?.('Fatal', fatalError);
    const stats: ExtractionStats = { pageCount: 0, dataCount: 0, exportCount: 0, errorCount: 0, inputCount: 0, traffic: 0 };
    return { sets: [], stats, failedPages: [], stopped: false, fatalError, evidence: emptyEvidence() };
  }
  const run = new ExtractionRun({ ...options, parallelism, maxConcurrency }, mask);

  const onStop = () => run.abort('stop');
  if (options.signal?.aborted) onStop();
  options.signal?.addEventListener('abort', onStop, { once: true });
  const onDrain = () => run.drain();
  if (options.drainSignal?.aborted) onDrain();
  options.drainSignal?.addEventListener('abort', onDrain, { once: true });
  const timer =
    def.timeoutSeconds !== undefined ? setTimeout(() => run.abort('timeout'), def.timeoutSeconds * 1000) : undefined;

  const rows = options.inputRows.length > 0 ? options.inputRows : [parameterDefaults(def)];
  const numbered = rows.map((row, i) => ({ row, index: i + 1 }));
  const chunks = splitIntoSets(numbered, Math.min(parallelism, numbered.length));
  const sets: ExtractionSet[] = chunks.map((_, i) => ({ set: i + 1, records: [] }));
  let internalError: string | undefined;

  try {
    await Promise.all(
      chunks.map(async (chunk, i) => {
        try {
          const sink: RecordSink = options.onRecords
            ? (records) => options.onRecords!(i + 1, records)
            : (records) => {
                for (const record of records) sets[i].records.push(record);
              };
          await run.crawlSet(chunk, sink);
        } catch (error) {
          // A bug must not leave other sets running unobserved: stop everything and report it.
          // The detail goes to the run log only; the Run's errorMessage stays generic (issue 8 item 9).
          if (internalError === undefined) run.log('Error', `internal error: ${(error as Error)?.message ?? String(error)}`);
          internalError ??= 'extraction failed because of an internal error (see the run log)';
          run.abort('internal');
        }
      }),
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onStop);
    options.drainSignal?.removeEventListener('abort', onDrain);
    await run.close();
  }

  let fatalError: string | undefined;
  if (run.abortReason === 'timeout') fatalError = `run timed out after ${def.timeoutSeconds} s`;
  else if (run.abortReason === 'internal') fatalError = mask(internalError ?? 'extraction failed');
  else if (run.abortReason === null && !run.drained && run.startFailures.length > 0 && run.startFailures.every((f) => f !== null)) {
    const first = run.startFailures[0] as string;
    fatalError = run.startFailures.length > 1 ? `${first} (the start pages of all ${run.startFailures.length} inputs failed)` : first;
  }
  if (fatalError) run.log('Fatal', fatalError);
  const stopped = run.abortReason === 'stop' || (run.drained && run.abortReason === null);
  const s = run.stats;
  run.log(
    'Info',
    `Extraction ${stopped ? 'stopped' : 'finished'}: ${s.dataCount} records, ${s.pageCount} pages, ${s.errorCount} errors, ` +
      `${s.inputCount} inputs, ${s.traffic} bytes received`,
  );
  run.progress();
  const warning = stopped || fatalError !== undefined ? undefined : qualityProblem(run.evidence.evidence, def.list.selector, s.dataCount);
  if (warning) run.log('Warning', warning);

  return {
    sets,
    stats: { ...run.stats },
    failedPages: run.failedPages,
    stopped,
    ...(fatalError !== undefined ? { fatalError } : {}),
    evidence: run.evidence.evidence,
    ...(warning !== undefined ? { warning: mask(warning) } : {}),
  };
}
