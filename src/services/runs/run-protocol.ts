// Messages between a worker and the child process that executes one Run. The payload carries the
// Run's resolved (decrypted) parameters over the IPC channel only: never argv, env or job data.
import os from 'node:os';
import path from 'node:path';
import type {
  AgentDefinition,
  BrowserSettings,
  BrowserSourceSettings,
  CrawlCheckpoint,
  ExtractionStats,
  FetchResult,
  PageRequest,
  LogLevel,
  ProxyOutcome,
  RunEvidence,
  EngineFailure,
  StoredFile,
} from '../../engine/index.js';
import type { StorageFailure, StorageSettings } from '../../storage/index.js';
import type { ChangesReply, ChangesRequest } from '../changes/changes-protocol.js';

export interface ChildStartPayload {
  runId: number;
  /** Where the Run's files go (the object store's credentials travel over IPC only, like secrets). */
  storage: StorageSettings;
  definition: AgentDefinition;
  inputRows: Array<Record<string, string>>;
  parallelism: number;
  maxConcurrency: number;
  parallelExport: 'Combined' | 'Separated';
  requestTimeoutMs: number;
  pageCpuSeconds: number;
  proxyUrl?: string;
  /** The Run's proxy pool, proxyUrl first, when it has more than one proxy (the definition's proxy rotation). */
  proxyPool?: string[];
  allowPrivateTargets: boolean;
  /** Absent: the Run cannot render in the browser. */
  browser?: BrowserSettings;
  logLevel: 'Fatal' | 'Error' | 'Warning' | 'Info';
  logMode: 'Text' | 'TextAndHtml';
  secrets: string[];
  /** Every record is also kept as NDJSON (run-keys.ts, runRecordsKey): a synchronous start answers with them. */
  keepRecords: boolean;
  /** After a stop, requests still in flight are aborted after this long and the Run exports. */
  stopGraceMs: number;
  /** How long storing the Run's files waits for an object store that cannot be reached (absent: no wait). */
  storageRetryMs?: number;
  /** Where files that could not be stored are kept on the worker (`<dir>/runs/<id>/...`; absent: removed). */
  unstoredDir?: string;
  /** An interrupted Run's next attempt: where its crawl goes on, and the records it had until then. */
  resume?: ResumePayload;
}

export interface ResumePayload {
  /** The crawl's last checkpoint (the engine checks its shape); null: it was interrupted before one. */
  checkpoint: unknown;
  /** The records the checkpoint accounts for, per set, in order. */
  records: Array<{ set: number; ndjson: string }>;
  /** This attempt's number (2 after one interruption). */
  attempt: number;
}

/**
 * A run process's browser pages, rendered in its worker's browser pool (one pool per worker): each
 * browser page source of the Run is a session there, with its own browser context.
 */
export type BrowserRequest =
  | { type: 'browser:open'; session: number; settings: BrowserSourceSettings }
  | { type: 'browser:get'; session: number; request: number; url: string; page?: PageRequest; listPage?: boolean }
  /** The crawl halted (a stop): the request starts no further attempt. */
  | { type: 'browser:halt'; session: number; request: number }
  /** The Run was aborted: the session's pages close at once. */
  | { type: 'browser:abort'; session: number }
  | { type: 'browser:close'; session: number };

/** The worker's answers (bodies travel as Buffers: the channel uses the `advanced` serialization). */
export type BrowserReply =
  | { type: 'browser:result'; session: number; request: number; result: FetchResult; receivedBytes: number }
  /** A line of the session's (its retries), for the Run's log. */
  | { type: 'browser:log'; session: number; level: LogLevel; message: string }
  /** An attempt through a proxy of the Run's pool (`host:port`), for the Run's evidence. */
  | { type: 'browser:proxy'; session: number; label: string; outcome: ProxyOutcome }
  /** A host answered 429 or 503 with Retry-After: the Run's host gate holds every request to it. */
  | { type: 'browser:retry-after'; session: number; url: string; ms: number }
  | { type: 'browser:closed'; session: number; receivedBytes: number };

export type ParentMessage =
  { type: 'start'; payload: ChildStartPayload } | { type: 'stop' } | BrowserReply | ChangesReply;

export const isBrowserReply = (msg: ParentMessage): msg is BrowserReply => msg.type.startsWith('browser:');

export interface ChildResult {
  stats: ExtractionStats;
  files: StoredFile[];
  stopped: boolean;
  fatalError?: EngineFailure;
  /** What the engine observed (stored as Run.evidence for diagnoses). */
  evidence?: RunEvidence;
  /** The Run ended normally but extracted nothing usable: it ends Completed with this failure. */
  warning?: EngineFailure;
}

export type ChildMessage =
  | { type: 'firstPage' }
  | { type: 'progress'; stats: ExtractionStats }
  | { type: 'exporting'; stats: ExtractionStats }
  | { type: 'done'; result: ChildResult }
  /** `kept`: where the files that could not be stored wait on the worker (the s3 driver's recovery folder). */
  | { type: 'error'; message: string; storageFailure?: StorageFailure; kept?: { host: string; dir: string } }
  /** Where the crawl has got to, with the records (NDJSON per set) extracted since the previous one. */
  | { type: 'checkpoint'; checkpoint: CrawlCheckpoint; records: Array<{ set: number; ndjson: string }> }
  | BrowserRequest
  | ChangesRequest;

export const isBrowserRequest = (msg: ChildMessage): msg is BrowserRequest => msg.type.startsWith('browser:');

/** The folder on a worker that keeps the files its Runs could not store (copy them to the store). */
export function unstoredDir(storageDir: string): string {
  return path.join(storageDir, 'unstored');
}
/** A run process's records of one set, spooled as NDJSON while it runs, in its scratch folder. */
export const runSpoolKey = (set: number) => `_spool-${set}.ndjson`;
/**
 * The scratch folder of a Run on this host: per worker process (`workerPid`) and never shared, so it
 * may vanish with the host. The worker removes it whatever way the Run ended.
 */
export const runScratchDir = (workerPid: number, runId: number) =>
  path.join(os.tmpdir(), `cxs-run-${workerPid}-${runId}`);

export type { RunSignalKind, RunSignals } from '../../queues/run-signals.js';
