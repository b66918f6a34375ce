// Where a Run's files live in storage, in one place: every key is `runs/<runId>/<name>`. Files whose
// name starts with `_` are internal (records kept for a synchronous start) and never listed as Run files.

/** The folder all Runs' files are under. */
export const RUNS_ROOT = 'runs';
/** The name of a Run's log file in its folder (and as a Run file). */
export const RUN_LOG_NAME = 'run.log';
const RECORDS_NAME = '_records.ndjson';

/** A Run's folder: every file of the Run is directly in it. */
export const runFolderKey = (runId: number) => `${RUNS_ROOT}/${runId}`;
/** One file of a Run. */
export const runFileKey = (runId: number, name: string) => `${runFolderKey(runId)}/${name}`;
/** The Run's log. */
export const runLogKey = (runId: number) => runFileKey(runId, RUN_LOG_NAME);
/** Every extracted record as NDJSON, kept for synchronous starts (not listed as a Run file). */
export const runRecordsKey = (runId: number) => runFileKey(runId, RECORDS_NAME);

/** Whether a file of a Run's folder is internal rather than a file users download. */
export const isInternalRunFile = (name: string) => name.startsWith('_');

const RUN_KEY = new RegExp(`^${RUNS_ROOT}/([1-9]\\d{0,9})/(.+)$`);

/** The Run a key belongs to and the rest of the key below its folder; null for a key outside any Run's folder. */
export function parseRunKey(key: string): { runId: number; rest: string } | null {
  const m = RUN_KEY.exec(key);
  return m ? { runId: Number(m[1]), rest: m[2] } : null;
}
