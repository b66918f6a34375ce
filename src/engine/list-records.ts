// The records of one list page worth keeping: each item the list matched, completed from its detail page
// when the definition follows links (or from the values the Agent already knows of it), kept unless a
// required field has no value, and no more than the definition's maxRecords over the whole Run.
import type { AgentDefinition, AgentField } from './definition.js';
import type { KnownDetails } from './definition-changes.js';
import type { CriteriaTally } from './definition-criteria.js';
import type { EvidenceCollector } from './evidence.js';
import { isMissing, type ExtractedRecord } from './extract.js';
import type { ExtractionStats, LogLevel } from './extraction-types.js';
import type { ListPageResult } from './page-extract.js';
import type { PageFetcher } from './page-fetch.js';
import type { FetchedPage, FetchFailure, PageRequest } from './page.js';
import type { SnapshotKeeper } from './snapshots.js';

/** How the run log names a locator: `selector '.item'` (as it always has), `xpath '//li'`, `jsonPath '$.items[*]'`. */
export function locatorText(locator: { selector?: string; xpath?: string; jsonPath?: string }): string {
  if (locator.selector !== undefined) return `selector '${locator.selector}'`;
  if (locator.xpath !== undefined) return `xpath '${locator.xpath}'`;
  return `jsonPath '${locator.jsonPath}'`;
}

/** What keeping a list page's records reads and counts: the Run's (ExtractionRun). */
export interface ListRecordsContext {
  readonly def: AgentDefinition;
  /** Fields and required export columns that a kept record must have a value for. */
  readonly requiredNames: readonly string[];
  readonly stats: ExtractionStats;
  readonly evidence: EvidenceCollector;
  readonly snapshots: SnapshotKeeper;
  readonly criteria: CriteriaTally;
  readonly pages: PageFetcher;
  readonly knownDetails?: KnownDetails;
  log(level: LogLevel, message: string): void;
  progress(): void;
  /** A detail page that failed: counted, logged and listed by the Run. */
  recordFailure(failure: FetchFailure): void;
}

/** How the run log names the renderer of a page: GET over HTTP, RENDER in the browser. */
const verbOf = (page: FetchedPage) => (page.renderer === 'browser' ? 'RENDER' : 'GET');

function setNull(record: ExtractedRecord, fields: AgentField[]): void {
  for (const field of fields) record[field.name] = null;
}

function firstMissing(record: ExtractedRecord, names: readonly string[]): string | undefined {
  for (const name of names) if (isMissing(record[name])) return name;
  return undefined;
}

function allMissing(record: ExtractedRecord): boolean {
  for (const key in record) if (!isMissing(record[key])) return false;
  return true;
}

interface PendingRecord {
  record: ExtractedRecord;
  followUrl: string | null;
  /** The detail fetch was cut short by a stop or the run timeout: the record is incomplete. */
  aborted: boolean;
}

export class ListRecords {
  readonly #ctx: ListRecordsContext;
  #full = false;

  constructor(ctx: ListRecordsContext) {
    this.#ctx = ctx;
  }

  /** The definition's maxRecords was reached: no new page is started, and the Run ends as it would have. */
  get full(): boolean {
    return this.#full;
  }

  /** The records of one list page worth keeping, completed from their detail pages when the definition follows links. */
  async keep(listed: ListPageResult, page: FetchedPage, detail?: PageRequest): Promise<ExtractedRecord[]> {
    const { def } = this.#ctx;
    const redirected = page.finalUrl !== page.url ? ` (redirected to ${page.finalUrl})` : '';
    this.#ctx.log(
      'Info',
      `${verbOf(page)} ${page.url}${redirected} -> ${page.status}, ${page.body.length} bytes, ${listed.matches} list matches`,
    );
    this.#ctx.evidence.listPage(listed.matches, page.finalUrl, listed.scripted);
    if (listed.matches === 0) {
      this.#ctx.log('Warning', `list ${locatorText(def.list)} matched nothing on ${page.finalUrl}`);
      this.#ctx.snapshots.keep(page, 'emptyList');
      return [];
    }

    const pending: PendingRecord[] = listed.items.map(({ record, followUrl }, i) => {
      if (def.follow && followUrl === null) {
        this.#ctx.log(
          'Warning',
          `follow ${locatorText(def.follow)} found no link in record ${i + 1} on ${page.finalUrl}`,
        );
      }
      return { record, followUrl, aborted: false };
    });

    // Records beyond maxRecords are not worth their detail pages.
    if (def.maxRecords !== undefined) pending.splice(Math.max(def.maxRecords - this.#ctx.stats.dataCount, 0));
    if (def.follow) {
      const followFields = def.follow.fields;
      const toFetch = await this.#withoutKnownDetails(pending);
      await Promise.all(toFetch.map((item) => this.#followDetail(item, followFields, detail)));
    }

    const kept: ExtractedRecord[] = [];
    let dropped = 0;
    for (let i = 0; i < pending.length; i++) {
      const item = pending[i];
      if (item.aborted) continue;
      const missing = firstMissing(item.record, this.#ctx.requiredNames);
      if (missing !== undefined) {
        dropped++;
        this.#ctx.stats.errorCount++;
        this.#ctx.evidence.requiredMissing(missing, page.finalUrl);
        this.#ctx.log('Error', `record ${i + 1} on ${page.finalUrl} dropped: required field '${missing}' has no value`);
        continue;
      }
      if (this.#full) break;
      this.#ctx.stats.dataCount++;
      if (allMissing(item.record)) this.#ctx.evidence.emptyRecord();
      kept.push(item.record);
      this.#ctx.criteria.record(item.record);
      if (this.#ctx.stats.dataCount === def.maxRecords) {
        this.#full = true;
        this.#ctx.log('Info', `reached maxRecords (${def.maxRecords}); the Run stops extracting`);
      }
    }
    if (dropped > 0 && kept.length === 0 && dropped === pending.filter((p) => !p.aborted).length)
      this.#ctx.snapshots.keep(page, 'requiredMissing');
    return kept;
  }

  /**
   * The records whose detail page is still to fetch: those whose detail values the Agent already knows
   * (changes.skipUnchangedDetails, asked once per list page) take them instead. A failed lookup fetches all.
   */
  async #withoutKnownDetails(pending: PendingRecord[]): Promise<PendingRecord[]> {
    const known = this.#ctx.knownDetails;
    const linked = pending.filter((p) => p.followUrl !== null);
    if (!known || linked.length === 0) return pending;
    let details: Array<ExtractedRecord | null>;
    try {
      details = await known(linked.map((p) => p.record));
    } catch (error) {
      this.#ctx.log(
        'Warning',
        `known records could not be looked up (${(error as Error).message}); fetching every detail page`,
      );
      return pending;
    }
    const skipped = new Set<PendingRecord>();
    linked.forEach((item, i) => {
      const detail = details[i];
      if (!detail) return;
      Object.assign(item.record, detail);
      skipped.add(item);
    });
    this.#ctx.evidence.skippedDetails(skipped.size);
    return pending.filter((p) => !skipped.has(p));
  }

  async #followDetail(item: PendingRecord, fields: AgentField[], request?: PageRequest): Promise<void> {
    if (item.followUrl === null) {
      setNull(item.record, fields);
      return;
    }
    const fetched = await this.#ctx.pages.fetch(
      item.followUrl,
      (page) => ({ kind: 'detail', page, fields }) as const,
      request,
    );
    if (!fetched.ok) {
      if (fetched.failure.kind === 'aborted') item.aborted = true;
      else {
        this.#ctx.recordFailure(fetched.failure);
        setNull(item.record, fields);
      }
      return;
    }
    const { page } = fetched;
    Object.assign(item.record, fetched.value.record);
    const redirected = page.finalUrl !== page.url ? ` (redirected to ${page.finalUrl})` : '';
    this.#ctx.log('Info', `${verbOf(page)} ${page.url}${redirected} -> ${page.status}, ${page.body.length} bytes`);
    this.#ctx.progress();
  }
}
