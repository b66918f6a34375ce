// What a diagnosis rule reads (DiagnosisInput) and says (Finding), and the small helpers the rules
// share. Pure: no I/O, no clock.
import type { RunEvidence } from '../../engine/index.js';
import type { FailureParams, RunFailureCode } from '../runs/run-errors.js';
import { RunStatus } from '../runs/status-machine.js';

export interface DiagnosisInput {
  agentId: number;
  runId: number;
  status: number;
  errorMessage: string | null;
  /** Why the Run failed or ended early (rules decide on this, never on the message's wording). */
  errorCode: RunFailureCode | null;
  errorParams: FailureParams | null;
  stats: { dataCount: number; pageCount: number; errorCount: number; inputCount: number; exportCount: number };
  evidence: RunEvidence | null;
  run: { proxyPoolId: number | null; parallelMaxConcurrency: number; timeoutSeconds: number | null };
  /** The definition the Run executed (selectors only; null when its version is gone). */
  definition: {
    startUrl: string;
    listSelector: string;
    nextSelector: string | null;
    fields: Array<{ name: string; selector?: string; required?: boolean }>;
    timeoutSeconds: number | null;
  } | null;
  /** Records extracted by the Agent's recent successful Runs before this one, newest first. */
  recentRecordCounts: number[];
}

export interface Finding {
  rule: string;
  cause: string;
  actions: string[];
}

export interface DiagnosisRule {
  name: string;
  diagnose(input: DiagnosisInput): Finding | null;
}

/** A drop is reported when a Run extracts less than this share of the recent median. */
export const RECORD_DROP_RATIO = 0.5;
/** The median needs at least this many earlier successful Runs to mean anything. */
export const RECORD_DROP_MIN_HISTORY = 3;

export const S = RunStatus;
export const isStopped = (i: DiagnosisInput) => i.status === S.Stopped;
export const isFailed = (i: DiagnosisInput) =>
  i.status === S.Failure || i.status === S.Failed || i.status === S.Waiting;
export const msg = (i: DiagnosisInput) => i.errorMessage ?? '';
export const param = (i: DiagnosisInput, name: string) => i.errorParams?.[name];
export const count = (c: Record<string, number> | undefined, k: string) => c?.[k] ?? 0;
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
export const firstAt = (e: RunEvidence | null, kind: string) =>
  e?.firstUrls[kind] ? ` (first: ${e.firstUrls[kind]})` : '';

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function proxyAction(i: DiagnosisInput): string {
  return i.run.proxyPoolId === null
    ? `Assign a proxy pool to the Agent (PUT /api/v1/agent/${i.agentId} with proxyPoolId) or start the Run with one, so requests come from other addresses.`
    : `Try another proxy pool: the one this Run used (proxy pool ${i.run.proxyPoolId}) was refused too.`;
}

export const restart = (i: DiagnosisInput) => `Start the Agent again (POST /api/v1/agent/${i.agentId}/start).`;

export function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}
