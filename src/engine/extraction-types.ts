// The engine's entry point's options and results (runExtraction in crawler.ts).
import type { KnownDetails } from './definition-changes.js';
import type { CriteriaCounts } from './definition-criteria.js';
import type { AgentDefinition } from './definition.js';
import type { RunEvidence } from './evidence.js';
import type { ExtractedRecord } from './extract.js';
import type { EngineFailure } from './failure-codes.js';
import type { PageSource } from './page.js';
import type { ProxyOutcome } from './proxy-rotation.js';
import type { PageSnapshot } from './snapshots.js';

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
  fatalError?: EngineFailure;
  /** What the run observed, for diagnoses. */
  evidence: RunEvidence;
  /** Set when a run that ended normally extracted nothing usable (see `qualityProblem`) or missed its successCriteria. */
  warning?: EngineFailure;
  /** Pages kept because they explain an empty result, for the caller to store (`writeSnapshots`). */
  snapshots?: PageSnapshot[];
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
  /** The Run's proxy pool, `proxyUrl` first; HTTP requests rotate over it as the definition's `proxy` says. */
  proxyPool?: string[];
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
   * CPU time one page's parse and extraction may take (default 5 s); a page that takes longer fails
   * and the run goes on with its other pages.
   */
  pageCpuSeconds?: number;
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
  /** Where the crawl goes on from (a checkpoint it reported before); absent: from the start. */
  resume?: CrawlCheckpoint;
  /**
   * Told where the crawl has got to after each list page, right after that page's records went to
   * `onRecords`: the records given so far are exactly those of the pages the checkpoint counts as done.
   */
  onCheckpoint?: (checkpoint: CrawlCheckpoint) => void;
  /**
   * Detail values the Agent already knows for a list page's records (changes.skipUnchangedDetails): a
   * record that gets them is not followed to its detail page. Absent: every detail page is fetched.
   */
  knownDetails?: KnownDetails;
  /** Where Chromium is, for definitions rendered in the browser; absent: such a Run fails at once. */
  browser?: BrowserSettings;
  /**
   * Opens the Run's browser page sources (render `browser`, and `auto`'s rendered pages); default: pages
   * in this process's browser pool. A run process passes one that renders in its worker's pool.
   */
  openBrowserSource?: BrowserSourceFactory;
}

/** What a Run's browser page source renders with: its definition and its own guard and retry settings. */
export interface BrowserSourceSettings {
  definition: AgentDefinition;
  allowPrivateTargets: boolean;
  /** The Run's proxy pool (its own proxy first; the proxy rule of ssrf.ts), rotated as the definition's `proxy` says. */
  upstreamProxyPool?: string[];
  userAgent?: string;
  maxRetries?: number;
  retryBaseDelayMs?: number;
}

/** What a browser page source tells the Run as it renders (the Run's evidence and host gate). */
export interface BrowserSourceEvents {
  /** One attempt through the pool's proxy `label` (`host:port`) and what it came to. */
  proxyOutcome?: (label: string, outcome: ProxyOutcome) => void;
  /** The host of `url` answered 429 or 503 with Retry-After: wait `ms` before any request to it. */
  retryAfter?: (url: string, ms: number) => void;
}

/**
 * Opens one browser page source; `signal` aborts it (its pages close), `log` takes its retry warnings,
 * `events` its proxy outcomes and Retry-After waits.
 */
export type BrowserSourceFactory = (
  settings: BrowserSourceSettings,
  signal: AbortSignal,
  log: LogFunction,
  events?: BrowserSourceEvents,
) => PageSource;

/** The browser settings of a worker (CHROMIUM_PATH, BROWSER_MAX_PAGES, BROWSER_MAX_RSS_MB). */
export interface BrowserSettings {
  executablePath: string;
  maxPages: number;
  maxRssMb: number;
}

export const DEFAULT_MAX_CONCURRENCY = 4;
export const DEFAULT_FAILED_PAGE_HTML = { maxPages: 100, maxBytes: 256 * 1024 };

// Where a crawl has got to (reported through `onCheckpoint`, taken back as `resume`; see checkpoint.ts).
export const CHECKPOINT_VERSION = 1;

export interface SetCheckpoint {
  /** Inputs of the set (in order) whose crawl is over. */
  inputsDone: number;
  /** The input after them, when it has more list pages to go: the next one, its number, the pages seen. */
  current: { url: string; pageNumber: number; visited: string[] } | null;
}

export interface CrawlCheckpoint {
  version: typeof CHECKPOINT_VERSION;
  sets: SetCheckpoint[];
  stats: ExtractionStats;
  /** Per input begun: why its start page failed, null if it did not (for the all-failed rule). */
  startFailures: Array<EngineFailure | null>;
  /** What successCriteria's minFillRate has counted so far (absent in checkpoints written before it was kept). */
  criteria?: CriteriaCounts;
  // A cookie jar, when the engine keeps one, belongs here: it is state of the crawl like the pages.
}
