// The child process that executes one Run with the extraction engine. It exists so that a second
// kill can end a Run at once (SIGKILL), whatever the engine is blocked on. It dies with its parent.
import { Readable } from 'node:stream';
import {
  createRunLog,
  exportColumnsOf,
  exportFormatOf,
  exportRecords,
  LocalStorage,
  runExtraction,
  type ExtractionStats,
} from '../engine/index.js';
import { runKeyPrefix, runRecordsKey, type ChildMessage, type ChildStartPayload, type ParentMessage } from '../services/runs/run-protocol.js';

// Stop is graceful: no new page starts, pages already requested finish. A kill is SIGKILL.
const drain = new AbortController();
const send = (msg: ChildMessage) => process.send?.(msg);

process.on('disconnect', () => process.exit(1));

async function execute(p: ChildStartPayload) {
  const storage = new LocalStorage(p.storageDir);
  const prefix = runKeyPrefix(p.runId);
  const runLog = createRunLog(storage, `${prefix}/run.log`, { logLevel: p.logLevel, logMode: p.logMode, secrets: p.secrets });
  runLog.log('Info', `Run ${p.runId} started: ${p.inputRows.length || 1} input(s), parallelism ${p.parallelism}, concurrency ${p.maxConcurrency}`);
  // Progress is sent at most every 250 ms, and the latest figures always get out (trailing send).
  let lastProgress = 0;
  let latest: ExtractionStats | null = null;
  let trailing: NodeJS.Timeout | null = null;
  const flush = () => {
    trailing = null;
    if (latest) {
      lastProgress = Date.now();
      send({ type: 'progress', stats: latest });
      latest = null;
    }
  };
  send({ type: 'firstPage' });
  const result = await runExtraction({
    definition: p.definition,
    inputRows: p.inputRows,
    parallelism: p.parallelism,
    maxConcurrency: p.maxConcurrency,
    requestTimeoutMs: p.requestTimeoutMs,
    proxyUrl: p.proxyUrl,
    allowPrivateTargets: p.allowPrivateTargets,
    drainSignal: drain.signal,
    secrets: p.secrets,
    log: runLog.log,
    onProgress: (stats: ExtractionStats) => {
      latest = stats;
      if (Date.now() - lastProgress >= 250) flush();
      else trailing ??= setTimeout(flush, 250);
    },
  });
  if (trailing) clearTimeout(trailing);
  const stats = { ...result.stats };
  // A stop cut short (the run timeout ended a drain) is still a stop: the data so far is exported.
  const stopped = result.stopped || drain.signal.aborted;
  if (result.fatalError && !stopped) {
    // The engine has already logged the fatal error.
    const logFiles = await runLog.finish(result.failedPages);
    send({ type: 'done', result: { stats, files: logFiles, stopped: false, fatalError: result.fatalError } });
    return;
  }
  send({ type: 'exporting', stats });
  const columns = exportColumnsOf(p.definition);
  const exported = await exportRecords({
    storage,
    keyPrefix: prefix,
    format: exportFormatOf(p.definition),
    columns,
    sets: result.sets,
    parallelExport: p.parallelExport,
  });
  const all = result.sets.flatMap((s) => s.records);
  await storage.put(runRecordsKey(p.runId), Readable.from(all.map((r) => JSON.stringify(r) + '\n')));
  stats.exportCount = exported.reduce((n, f) => n + f.records, 0);
  runLog.log('Info', `Exported ${stats.exportCount} records to ${exported.map((f) => f.name).join(', ')}`);
  const logFiles = await runLog.finish(result.failedPages);
  send({
    type: 'done',
    result: { stats, files: [...exported.map(({ records: _r, ...f }) => f), ...logFiles], stopped },
  });
}

process.on('message', (msg: ParentMessage) => {
  if (msg.type === 'stop') drain.abort();
  if (msg.type === 'start') {
    execute(msg.payload).then(
      () => setTimeout(() => process.exit(0), 50),
      (err: Error) => {
        send({ type: 'error', message: err.message });
        setTimeout(() => process.exit(1), 50);
      },
    );
  }
});
