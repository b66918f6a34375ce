// Messages between a worker and the child process that executes one Run. The payload carries the
// Run's resolved (decrypted) parameters over the IPC channel only: never argv, env or job data.
import type { AgentDefinition, BrowserSettings, ExtractionStats, RunEvidence, StoredFile } from '../../engine/index.js';

export interface ChildStartPayload {
  runId: number;
  storageDir: string;
  definition: AgentDefinition;
  inputRows: Array<Record<string, string>>;
  parallelism: number;
  maxConcurrency: number;
  parallelExport: 'Combined' | 'Separated';
  requestTimeoutMs: number;
  proxyUrl?: string;
  allowPrivateTargets: boolean;
  /** Absent: the Run cannot render in the browser. */
  browser?: BrowserSettings;
  logLevel: 'Fatal' | 'Error' | 'Warning' | 'Info';
  logMode: 'Text' | 'TextAndHtml';
  secrets: string[];
  /** After a stop, requests still in flight are aborted after this long and the Run exports. */
  stopGraceMs: number;
}

export type ParentMessage = { type: 'start'; payload: ChildStartPayload } | { type: 'stop' };

export interface ChildResult {
  stats: ExtractionStats;
  files: StoredFile[];
  stopped: boolean;
  fatalError?: string;
  /** What the engine observed (stored as Run.evidence for diagnoses). */
  evidence?: RunEvidence;
  /** The Run ended normally but extracted nothing usable: it ends Completed with this message. */
  warning?: string;
}

export type ChildMessage =
  | { type: 'firstPage' }
  | { type: 'progress'; stats: ExtractionStats }
  | { type: 'exporting'; stats: ExtractionStats }
  | { type: 'done'; result: ChildResult }
  | { type: 'error'; message: string };

/** Where a Run's files live in storage. */
export const runKeyPrefix = (runId: number) => `runs/${runId}`;
/** A run process's records of one set, spooled as NDJSON while it runs (removed when it ends). */
export const runSpoolKey = (runId: number, set: number) => `runs/${runId}/_spool-${set}.ndjson`;
/** Every extracted record as NDJSON, kept for synchronous starts (not listed as a Run file). */
export const runRecordsKey = (runId: number) => `runs/${runId}/_records.ndjson`;

export type RunSignalKind = 'stop' | 'kill' | 'ended';

/** Signals about a Run between API instances and workers (implemented over Redis pub/sub). */
export interface RunSignals {
  /** Best effort: never throws (the database carries the same state). */
  publish(runId: number, kind: RunSignalKind): Promise<void>;
  /** Calls `fn` for the Run's signals until closed; `ready` resolves once signals are being received (or cannot be). */
  listen(runId: number, fn: (kind: RunSignalKind) => void): { ready: Promise<void>; close(): void };
}
