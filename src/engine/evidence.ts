// What a Run observed on the web, kept with the Run so a diagnosis can quote numbers ("37 of 40 pages
// answered 403") without reading logs. Bounded in size whatever the Run does: at most MAX_KEYS
// distinct status codes and field names, one first URL per kind, each URL cut to MAX_URL_LENGTH.
import { Type, type Static } from '@sinclair/typebox';
import { EngineFailureCode, type EngineFailure } from './failure-codes.js';
import { MAX_SNAPSHOTS, type SnapshotRef } from './snapshots.js';

export const MAX_KEYS = 20;
export const MAX_URL_LENGTH = 300;
/** Network error kinds counted separately; everything else that is not HTTP counts as `other`. */
export const NETWORK_KINDS = ['dns', 'refused', 'reset', 'tls', 'timeout', 'other'] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));
const SnapshotRefSchema = Type.Object({
  html: Type.String({ description: 'The Run file of the page as the engine saw it (listed by the files endpoint).' }),
  png: Type.Optional(Type.String({ description: 'The Run file of its screenshot, when Chromium rendered it.' })),
  url: Type.String(),
  reason: Type.Union([Type.Literal('emptyList'), Type.Literal('requiredMissing')]),
});

const ProxyCounts = Type.Object({
  requests: Type.Integer({ minimum: 0 }),
  bans: Type.Integer({ minimum: 0 }),
  errors: Type.Integer({ minimum: 0 }),
});

export const RunEvidenceSchema = Type.Object(
  {
    /** Page requests with a final outcome (answered or failed after retries). */
    requests: Type.Integer({ minimum: 0 }),
    /** Final answers by class ('2xx', '4xx', ...) and by code ('403'); codes beyond MAX_KEYS go to 'other'. */
    responsesByClass: Counts,
    responsesByCode: Counts,
    /** Requests that got no answer, by kind. */
    networkErrors: Counts,
    /** List pages parsed, and those where the list selector matched nothing. */
    listPages: Type.Integer({ minimum: 0 }),
    emptyListPages: Type.Integer({ minimum: 0 }),
    /** List matches (candidate records), records dropped for an empty required value, and kept records with every field empty. */
    listMatches: Type.Integer({ minimum: 0 }),
    requiredMissing: Type.Integer({ minimum: 0 }),
    requiredMissingByField: Counts,
    emptyRecords: Type.Integer({ minimum: 0 }),
    /** Empty list pages that carry scripts (the list may be built by JavaScript), pages rendered in the browser,
     *  and pages `render: "auto"` fetched over HTTP and then rendered. Absent in evidence stored before these counts existed. */
    scriptedEmptyListPages: Type.Optional(Type.Integer({ minimum: 0 })),
    renderedPages: Type.Optional(Type.Integer({ minimum: 0 })),
    autoRenderedPages: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Inputs whose pagination ended before the site's last page (next page failed or looped). */
    paginationStoppedEarly: Type.Integer({ minimum: 0 }),
    /** Pages fetched but not processed: over the page CPU budget (ENGINE_PAGE_CPU_SECONDS). Absent before it existed. */
    overBudgetPages: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Pages parsed by each parser: the fast path, or the standard's (parse5) where the fast
     *  path could not prove it builds the same tree. Absent before it existed. */
    parser: Type.Optional(Type.Object({ fast: Type.Integer({ minimum: 0 }), standard: Type.Integer({ minimum: 0 }) })),
    /** Values a date transform could not parse (they became null). Absent when there were none. */
    unparsedDates: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Pages whose fetch or processing failed after retries (the successCriteria error ratio's numerator). Absent before it existed. */
    failedPages: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Pages kept as Run files because they explain an empty result (snapshots.ts); absent when none was. */
    snapshots: Type.Optional(Type.Array(SnapshotRefSchema, { maxItems: MAX_SNAPSHOTS })),
    /** Records dropped because an earlier record of the Run had the same `key`. Absent when there were none. */
    duplicateRecords: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Detail pages not fetched: the record's key was known and unchanged (changes.skipUnchangedDetails). Absent when none. */
    skippedDetailPages: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Pages not fetched because the host's robots.txt disallows them ("skipped by robots.txt"). Absent when none were. */
    skippedByRobots: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Per proxy of the Run's pool (`host:port`, never credentials): attempts through it, those answered
     *  with a ban (proxy.banStatuses, proxy.banText) and those that got no answer. Absent without a pool. */
    proxies: Type.Optional(Type.Record(Type.String(), ProxyCounts)),
    /** Requests the definition's `login` sent (its login page and its form's submission, each with its
     *  redirects and retries), not counted in `requests`. Absent without a login. */
    loginRequests: Type.Optional(Type.Integer({ minimum: 0 })),
    /** First URL of each kind of problem: 'http403', 'dns', 'timeout', 'emptyList', 'pagination', ... */
    firstUrls: Type.Record(Type.String(), Type.String()),
  },
  { $id: 'RunEvidence', description: 'What the engine observed during the Run (bounded in size).' },
);
export type RunEvidence = Static<typeof RunEvidenceSchema>;

export function emptyEvidence(): RunEvidence {
  return {
    requests: 0,
    responsesByClass: {},
    responsesByCode: {},
    networkErrors: {},
    listPages: 0,
    emptyListPages: 0,
    listMatches: 0,
    requiredMissing: 0,
    requiredMissingByField: {},
    emptyRecords: 0,
    paginationStoppedEarly: 0,
    overBudgetPages: 0,
    firstUrls: {},
  };
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

function bump(counts: Record<string, number>, key: string): void {
  const k = key in counts || Object.keys(counts).length < MAX_KEYS ? key : 'other';
  counts[k] = (counts[k] ?? 0) + 1;
}

/** Collects the evidence of one Run; URLs pass through `mask` so no secret is stored. */
export class EvidenceCollector {
  readonly evidence = emptyEvidence();

  constructor(private readonly mask: (text: string) => string) {}

  #first(kind: string, url: string): void {
    if (kind in this.evidence.firstUrls) return;
    this.evidence.firstUrls[kind] = this.mask(url).slice(0, MAX_URL_LENGTH);
  }

  answered(status: number, url: string): void {
    this.evidence.requests++;
    bump(this.evidence.responsesByClass, STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`);
    bump(this.evidence.responsesByCode, String(status));
    if (status >= 400) this.#first(`http${status}`, url);
  }

  /** A request that failed without an HTTP answer (`kind` is the HTTP client's failure kind). */
  networkError(kind: string, url: string): void {
    this.evidence.requests++;
    const k: NetworkKind = (NETWORK_KINDS as readonly string[]).includes(kind) ? (kind as NetworkKind) : 'other';
    bump(this.evidence.networkErrors, k);
    this.#first(k, url);
  }

  listPage(matches: number, url: string, scripted = false): void {
    this.evidence.listPages++;
    this.evidence.listMatches += matches;
    if (matches === 0) {
      this.evidence.emptyListPages++;
      this.#first('emptyList', url);
    }
    if (scripted) this.evidence.scriptedEmptyListPages = (this.evidence.scriptedEmptyListPages ?? 0) + 1;
  }

  /** A page rendered in the browser; `auto` when render "auto" chose to after fetching it over HTTP. */
  rendered(url: string, auto: boolean): void {
    this.evidence.renderedPages = (this.evidence.renderedPages ?? 0) + 1;
    if (auto) {
      this.evidence.autoRenderedPages = (this.evidence.autoRenderedPages ?? 0) + 1;
      this.#first('autoRendered', url);
    }
  }

  requiredMissing(field: string, url: string): void {
    this.evidence.requiredMissing++;
    bump(this.evidence.requiredMissingByField, field);
    this.#first('requiredMissing', url);
  }

  emptyRecord(): void {
    this.evidence.emptyRecords++;
  }

  parsed(parser: 'fast' | 'standard' | 'json'): void {
    if (parser === 'json') return;
    this.evidence.parser ??= { fast: 0, standard: 0 };
    this.evidence.parser[parser]++;
  }

  unparsedDates(count: number): void {
    if (count > 0) this.evidence.unparsedDates = (this.evidence.unparsedDates ?? 0) + count;
  }

  overBudget(url: string): void {
    this.evidence.overBudgetPages = (this.evidence.overBudgetPages ?? 0) + 1;
    this.#first('overBudget', url);
  }

  pageFailed(): void {
    this.evidence.failedPages = (this.evidence.failedPages ?? 0) + 1;
  }

  snapshot(ref: SnapshotRef): void {
    (this.evidence.snapshots ??= []).push(ref);
  }

  skippedDetails(count: number): void {
    if (count > 0) this.evidence.skippedDetailPages = (this.evidence.skippedDetailPages ?? 0) + count;
  }

  /** A request of the login (its page or its form's submission). */
  loginRequest(): void {
    this.evidence.loginRequests = (this.evidence.loginRequests ?? 0) + 1;
  }

  /** A page not fetched: robots.txt disallows it. */
  robotsSkipped(url: string): void {
    this.evidence.skippedByRobots = (this.evidence.skippedByRobots ?? 0) + 1;
    this.#first('robots', url);
  }

  /** One attempt through the proxy `label` (`host:port`) and what it came to. */
  proxyOutcome(label: string, outcome: 'ok' | 'ban' | 'error'): void {
    const proxies = (this.evidence.proxies ??= {});
    const key = label in proxies || Object.keys(proxies).length < MAX_KEYS ? label : 'other';
    const counts = (proxies[key] ??= { requests: 0, bans: 0, errors: 0 });
    counts.requests++;
    if (outcome === 'ban') counts.bans++;
    if (outcome === 'error') counts.errors++;
  }

  paginationStopped(url: string): void {
    this.evidence.paginationStoppedEarly++;
    this.#first('pagination', url);
  }
}

/**
 * Why a Run that ended normally is not a plain Success, or undefined: the list selector matched
 * nothing on any page, every record lost a required value, or every kept record is entirely empty.
 */
export function qualityProblem(e: RunEvidence, list: string, kept: number): EngineFailure | undefined {
  if (e.listPages > 0 && e.emptyListPages === e.listPages)
    return { code: EngineFailureCode.ListMatchedNothing, params: { list, pages: e.listPages } };
  if (kept === 0 && e.listMatches > 0 && e.requiredMissing === e.listMatches) {
    const fields = Object.keys(e.requiredMissingByField)
      .map((f) => `'${f}'`)
      .join(', ');
    return { code: EngineFailureCode.RequiredFieldsMissing, params: { fields, records: e.listMatches } };
  }
  if (kept > 0 && e.emptyRecords === kept) return { code: EngineFailureCode.FieldsEmpty, params: { records: kept } };
  return undefined;
}

/**
 * What kept a Run from seeing every record the site lists, in words for its log, or undefined when
 * nothing did: a list page that matched nothing (a redesign, a block page answering 200), or pagination
 * that ended before the site's last page. Keys such a Run did not meet may still be listed, so it reports
 * none of them deleted. A failed detail page hides no key: its list record is still exported.
 */
export function missedRecords(e: RunEvidence): string | undefined {
  const missed = [
    e.emptyListPages > 0 && `${e.emptyListPages} list page(s) matched nothing`,
    e.paginationStoppedEarly > 0 && `pagination stopped early on ${e.paginationStoppedEarly} input(s)`,
  ].filter((m): m is string => typeof m === 'string');
  return missed.length > 0 ? missed.join(', ') : undefined;
}
