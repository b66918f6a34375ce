// A Run's figures as metrics (lib/metrics.ts). The engine knows nothing of metrics and Runs execute in
// child run processes: the worker translates the result a run process sends back when the Run ends
// (its stats, files and evidence) into the worker's own counters. A run process killed or crashed
// before it sent a result adds no pages, errors or bytes (its Run is still counted as ended).
import type { RunFileType } from '../../engine/index.js';
import { declareRunEndStatuses, recordRunEnded, recordRunWork, type FetchErrorKind } from '../../lib/metrics.js';
import type { ChildResult } from './run-protocol.js';
import type { RunRow } from './runs.repository.js';
import { RUN_STATUS_NAMES, TERMINAL_STATUSES, type RunStatusValue } from './status-machine.js';

/** Files that are the Run's data (logs and failed pages' HTML are not exports). */
const EXPORT_FILE_TYPES: ReadonlySet<RunFileType> = new Set(['Csv', 'Json', 'Ndjson']);

declareRunEndStatuses(TERMINAL_STATUSES.map((s) => RUN_STATUS_NAMES[s]));

/** Called once per terminal transition, by the process that made it (API or worker). */
export function recordRunEnd(run: Pick<RunRow, 'status' | 'startTime' | 'endTime'>): void {
  const status = RUN_STATUS_NAMES[run.status as RunStatusValue] ?? 'Invalid';
  const seconds = run.startTime && run.endTime ? (run.endTime.getTime() - run.startTime.getTime()) / 1000 : null;
  recordRunEnded(status, seconds);
}

/** What the run process reported at the end of a Run: pages, fetch errors by kind, bytes exported. */
export function recordRunResult(result: ChildResult): void {
  const e = result.evidence;
  const fetchErrors: Partial<Record<FetchErrorKind, number>> = {
    ...(e?.networkErrors as Partial<Record<FetchErrorKind, number>> | undefined),
    http_4xx: e?.responsesByClass['4xx'] ?? 0,
    http_5xx: e?.responsesByClass['5xx'] ?? 0,
  };
  recordRunWork({
    pages: result.stats.pageCount,
    exportedBytes: result.files.reduce((n, f) => n + (EXPORT_FILE_TYPES.has(f.fileType) ? f.size : 0), 0),
    fetchErrors,
  });
}
