// What executes a Run with the extraction engine, one at a time, whatever carries its messages: the
// run process (run-child.ts, over IPC). It takes `start` and `stop`, and answers with figures,
// `exporting`, then `done` or `error`.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  createRunLog,
  DEFAULT_FAILED_PAGE_HTML,
  exportFormatOf,
  exportRecords,
  fetchesOnePage,
  missedRecords,
  runExtraction,
  writeSnapshots,
  type PageSnapshot,
  type StoredFile,
  type ExtractionStats,
  type RunLog,
} from '../engine/index.js';
import { LocalStorage, storageFailureOf, type Storage } from '../storage/index.js';
import { RUN_LOG_NAME, runFileKey, runFolderKey, runLogKey, runRecordsKey } from '../services/runs/run-keys.js';
import {
  runScratchDir,
  isBrowserReply,
  type ChildMessage,
  type ChildResult,
  type ChildStartPayload,
  type ParentMessage,
} from '../services/runs/run-protocol.js';
import { isChangesReply } from '../services/changes/changes-protocol.js';
import { remoteBrowserSources } from './remote-browser.js';
import { changesAhead } from './run-changes-ahead.js';
import { workerTracking } from './run-changes-marks.js';
import { createRecordSpool } from './run-spool.js';
import { keptSets, knownDetailsOf, remoteChanges, trackedColumnsOf, trackedSets } from './run-changes.js';
import { checkpointReporter, continuingWriters, previousLog, restoredRecords, resumeLine } from './run-resume.js';
import { runStorage, UnstoredFilesError } from './run-storage.js';

const noop = () => {};
/** Records of a Run kept in memory before they are spooled to scratch files (NDJSON characters). */
const HELD_RECORD_BYTES = 1 << 20;

// Stop is graceful: no new page or retry starts, requests still in flight after the stop grace are
// aborted, then the data so far is exported. A kill is SIGKILL (the log lines written so far stay).
export function createRunHost(deps: {
  send: (msg: ChildMessage) => void;
  /** The worker's pid: the Run's scratch folder is named after it (the worker removes it). */
  workerPid: number;
  /** After an unexpected error the host is not trusted with another Run. */
  onFatal: () => void;
  /** Where the Run executes, for its log's first line: "in a run process" or "in the worker process". */
  where: string;
}) {
  const { send } = deps;
  // Browser pages are rendered by the worker, in its one browser pool.
  const browsers = remoteBrowserSources(send);
  // Questions about the Run's records (key, changes) are answered by the worker, which has the database.
  const changes = remoteChanges(send);

  async function execute(p: ChildStartPayload, drain: AbortController, abort: AbortController): Promise<ChildResult> {
    let warn: (message: string) => void = noop;
    const storage = runStorage(p, (message) => warn(message));
    // Spooled records are scratch: a folder of this host's temporary directory, never the store.
    const scratchDir = runScratchDir(deps.workerPid, p.runId);
    const local = new LocalStorage(scratchDir);
    // A small Run holds its records in memory and never makes the folder: nothing to remove then.
    let used = false;
    const scratch: Pick<Storage, 'openWriter' | 'get'> = {
      openWriter: (key) => ((used = true), local.openWriter(key)),
      get: (key) => local.get(key),
    };
    const logKey = runLogKey(p.runId);
    // A resumed Run's log keeps its earlier attempts: the new lines follow them.
    const earlier = p.resume ? await previousLog(storage, logKey).catch(() => '') : '';
    const runLog = createRunLog(continuingWriters(storage, earlier), logKey, {
      logLevel: p.logLevel,
      logMode: p.logMode,
      secrets: p.secrets,
    });
    warn = (message) => runLog.log('Warning', message);
    try {
      return await executeWith(p, drain, abort, storage, scratch, runLog);
    } catch (err) {
      // A Run that fails on an error (its files could not be stored) closes its log all the same: what it
      // wrote is kept where the store still takes it, and an S3 log's temporary file is removed before the
      // run process exits. A log already finished (its own last write failed) refuses a second finish.
      await runLog.finish().catch(() => {});
      throw p.storage.driver === 's3' && p.unstoredDir && storageFailureOf(err)
        ? new UnstoredFilesError(err, path.join(p.unstoredDir, runFolderKey(p.runId)))
        : err;
    } finally {
      if (used) await rm(scratchDir, { recursive: true, force: true });
    }
  }

  async function executeWith(
    p: ChildStartPayload,
    drain: AbortController,
    abort: AbortController,
    storage: Storage,
    scratch: Pick<Storage, 'openWriter' | 'get'>,
    runLog: RunLog,
  ): Promise<ChildResult> {
    runLog.log(
      'Info',
      `Run ${p.runId} started: ${p.inputRows.length || 1} input(s), parallelism ${p.parallelism}, concurrency ${p.maxConcurrency}, ${deps.where}`,
    );
    // Progress is sent at most every 250 ms, and the latest figures always get out (trailing send).
    // The first figures wait 250 ms too: a short Run's figures go with `exporting` (no message, no write).
    let lastProgress = Date.now();
    let latest: ExtractionStats | null = null;
    let trailing: NodeJS.Timeout | null = null;
    // Running is reported after 250 ms too (always before any figures): a short Run goes from Starting
    // straight to Exporting, one message and one status write fewer.
    let running = false;
    const reportRunning = () => {
      clearTimeout(runningTimer);
      if (!running) send({ type: 'firstPage' });
      running = true;
    };
    const runningTimer = setTimeout(reportRunning, 250);
    const flush = () => {
      trailing = null;
      reportRunning();
      if (latest) {
        lastProgress = Date.now();
        send({ type: 'progress', stats: latest });
        latest = null;
      }
    };
    const recordSpool = createRecordSpool(scratch, HELD_RECORD_BYTES);
    // An interrupted Run goes on from its checkpoint, with the records it had; a multi-page Run reports
    // its checkpoints as it goes (a one-page Run has nothing to go on from).
    const setCount = Math.min(p.parallelism, Math.max(1, p.inputRows.length));
    const resumed = p.resume ? resumeLine(p.resume, setCount) : null;
    if (p.resume && resumed) {
      runLog.log('Info', resumed.line);
      // Records go with the checkpoint that accounts for them: without it the crawl starts again.
      if (resumed.checkpoint) for (const { set, records } of restoredRecords(p.resume)) recordSpool.spool(set, records);
    }
    const reporter = fetchesOnePage(p.definition, p.inputRows) ? null : checkpointReporter(send);
    // Change tracking's hashing, lookups and staging, done as the records come: by the worker from the
    // checkpoints' records for a Run of one set that is not resumed (run-changes-marks.ts), else here
    // (run-changes-ahead.ts), where a resumed Run or one of several sets stages at its export only (the
    // order of its records differs).
    const oneFreshSet = setCount === 1 && !resumed?.checkpoint;
    const byWorker = reporter && oneFreshSet ? workerTracking(p.definition, changes) : null;
    const ahead = byWorker ? null : changesAhead(p.definition, changes, { stage: oneFreshSet });
    const result = await runExtraction({
      onRecords: (set, records) => {
        reporter?.records(set, records);
        byWorker?.given(records);
        ahead?.observe(records);
        recordSpool.spool(set, records);
      },
      resume: resumed?.checkpoint,
      onCheckpoint: reporter?.checkpoint,
      definition: p.definition,
      inputRows: p.inputRows,
      parallelism: p.parallelism,
      maxConcurrency: p.maxConcurrency,
      requestTimeoutMs: p.requestTimeoutMs,
      pageCpuSeconds: p.pageCpuSeconds,
      proxyUrl: p.proxyUrl,
      proxyPool: p.proxyPool,
      allowPrivateTargets: p.allowPrivateTargets,
      browser: p.browser,
      openBrowserSource: browsers.open,
      knownDetails: knownDetailsOf(p.definition, changes),
      drainSignal: drain.signal,
      signal: abort.signal,
      secrets: p.secrets,
      // Failed pages' HTML is kept only when the log saves it (and capped).
      failedPageHtml: p.logMode === 'TextAndHtml' ? DEFAULT_FAILED_PAGE_HTML : null,
      log: runLog.log,
      onProgress: (stats: ExtractionStats) => {
        latest = stats;
        if (Date.now() - lastProgress >= 250) flush();
        else trailing ??= setTimeout(flush, 250);
      },
    });
    if (trailing) clearTimeout(trailing);
    clearTimeout(runningTimer);
    await recordSpool.closeSpools();
    const stats = { ...result.stats };
    // A stop cut short (the run timeout ended a drain) is still a stop: the data so far is exported.
    clearTimeout(abortTimer);
    const stopped = result.stopped || drain.signal.aborted;
    if (halted) {
      // Killed (an inline Run, which no SIGKILL can end): what it logged is kept, nothing is exported.
      await runLog.finish();
      return { stats, files: [], stopped: true };
    }
    if (result.fatalError && !stopped) {
      // The engine has already logged the fatal error.
      const snapshots = await keepSnapshots(storage, p.runId, result.snapshots, runLog);
      const logFiles = await runLog.finish(result.failedPages);
      const files = [...snapshots, ...logFiles];
      return { stats, files, stopped: false, fatalError: result.fatalError, evidence: result.evidence };
    }
    // Exporting is reported after 250 ms too, like Running: a short export goes straight to the Run's end
    // (one message and one status write fewer); its figures go with the end.
    const exportingTimer = setTimeout(() => send({ type: 'exporting', stats }), 250);
    let exported: Awaited<ReturnType<typeof exportRecords>>;
    let logFiles: Awaited<ReturnType<typeof runLog.finish>>;
    let snapshots: StoredFile[];
    const counts = { duplicates: 0 };
    // A Run that missed pages may not have met keys the site still lists: it reports none deleted.
    const missed = p.definition.changes?.trackDeletes && !stopped ? missedRecords(result.evidence) : undefined;
    if (missed) runLog.log('Warning', `No record is reported deleted: this Run did not see every record (${missed}).`);
    // A synchronous start's records (keepRecords) are the records as exported, written as the export reads them.
    const kept = p.keepRecords ? storage.openWriter(runRecordsKey(p.runId)) : null;
    try {
      exported = await exportRecords({
        storage,
        keyPrefix: runFolderKey(p.runId),
        format: exportFormatOf(p.definition),
        columns: trackedColumnsOf(p.definition),
        sets: keptSets(
          await trackedSets(
            p.definition,
            changes,
            result.sets.map((s) => ({ set: s.set, records: recordSpool.spooledRecords(s.set) })),
            {
              partial: stopped || missed !== undefined,
              ahead,
              byWorker: byWorker && reporter && { tracking: byWorker, rest: () => reporter.unsent(result.sets[0].set) },
            },
            counts,
          ),
          kept,
        ),
        parallelExport: p.parallelExport,
      });
      if (counts.duplicates > 0) result.evidence.duplicateRecords = counts.duplicates;
      await kept?.close();
      clearTimeout(exportingTimer);
      stats.exportCount = exported.reduce((n, f) => n + f.records, 0);
      runLog.log('Info', `Exported ${stats.exportCount} records to ${exported.map((f) => f.name).join(', ')}`);
      snapshots = await keepSnapshots(storage, p.runId, result.snapshots, runLog);
      logFiles = await runLog.finish(result.failedPages);
    } catch (err) {
      clearTimeout(exportingTimer);
      await kept?.close().catch(() => {});
      // The Run ends with this error and no files listed: the data files it stored a moment ago (a full
      // volume may take the log's last lines after the CSV) would be left behind, listed nowhere.
      await removeDataFiles(storage, p.runId);
      throw err;
    }
    return {
      stats,
      files: [...exported.map(({ records: _r, ...f }) => f), ...snapshots, ...logFiles],
      stopped,
      evidence: result.evidence,
      warning: result.warning,
    };
  }

  let current: { drain: AbortController; abort: AbortController; graceMs: number; settled: Promise<void> } | null =
    null;
  let abortTimer: NodeJS.Timeout | undefined;
  let halted = false;

  /** Aborts the Run at once and resolves when it has stopped writing (its result is not sent). */
  async function halt(): Promise<void> {
    halted = true;
    const c = current;
    if (!c) return;
    c.drain.abort();
    c.abort.abort();
    await c.settled;
  }

  function receive(msg: ParentMessage) {
    if (isBrowserReply(msg)) return browsers.receive(msg);
    if (isChangesReply(msg)) return changes.receive(msg);
    if (msg.type === 'stop' && current && !current.drain.signal.aborted) {
      const c = current;
      c.drain.abort();
      abortTimer = setTimeout(() => c.abort.abort(), c.graceMs);
    }
    if (msg.type === 'start') {
      if (current) {
        send({ type: 'error', message: 'the run process is already executing a Run' });
        return;
      }
      const drain = new AbortController();
      const abort = new AbortController();
      const running = execute(msg.payload, drain, abort);
      current = { drain, abort, graceMs: msg.payload.stopGraceMs, settled: running.then(noop, noop) };
      running.then(
        (result) => {
          // Ready for the next Run before saying so: the worker may hand this process its next Run as soon
          // as it reads `done` (the scratch folder is already removed by then).
          current = null;
          send({ type: 'done', result });
        },
        (err: Error) => {
          // After an unexpected error the process is not trusted with another Run.
          const failure = storageFailureOf(err);
          send({
            type: 'error',
            message: err.message,
            storageFailure: failure ?? undefined,
            ...(err instanceof UnstoredFilesError ? { kept: err.kept } : {}),
          });
          deps.onFatal();
        },
      );
    }
  }

  return { receive, halt };
}

/** Stores the pages the engine kept as snapshots among the Run's files, and says so in its log. */
async function keepSnapshots(
  storage: Storage,
  runId: number,
  snapshots: PageSnapshot[] | undefined,
  runLog: RunLog,
): Promise<StoredFile[]> {
  if (!snapshots || snapshots.length === 0) return [];
  const files = await writeSnapshots(storage, runFolderKey(runId), snapshots);
  for (const s of snapshots)
    runLog.log('Info', `Page ${s.url} kept as ${[s.html, ...(s.png ? [s.png] : [])].join(' and ')} (${s.reason})`);
  return files;
}

/** Removes what a Run stored in its folder, but its log (a Run whose files could not all be stored). */
async function removeDataFiles(storage: Storage, runId: number): Promise<void> {
  const names = await storage.list(runFolderKey(runId)).catch(() => [] as string[]);
  for (const name of names) {
    if (name !== RUN_LOG_NAME) await storage.delete(runFileKey(runId, name)).catch(() => {});
  }
}
