// In the worker: change tracking's work for a Run of one set that is not resumed, done from the records
// its run process reports with its checkpoints (they come to the worker anyway, as JSON lines, to be
// stored). As each checkpoint arrives, its records are hashed (key, values, list values) by the worker's
// hashing thread, at a lower CPU priority than the crawls (record-hasher.ts). In the order they came, a
// key met before in the Run is marked a duplicate (the first record of a key wins: the export reads them
// in this order), and the keys are looked up in questions of TRACKED_BATCH keys, one at a time; once a
// batch is answered, its new and updated records are staged with their JSON lines as they came, and,
// tracking deletes, its keys are kept as seen (the stages wait for the export, up to STAGES_HELD
// batches). The run process does none of this while it crawls: its export asks for each record's mark,
// in order, in windows (`marks`, each answered once its own records' keys are looked up, so the export
// writes the first records while the last ones are still hashed and looked up), and only marks and
// filters; before its end it asks whether every stage is written (`staged`).
//
// On a failure, past TRACKED_RECORDS records, or when the records it saw are not the Run's (another set,
// another count), the tracker gives up and answers null: the run process then does the whole export's
// work itself, from a new beginning of its tracking (which removes what the tracker staged).
import { changeKindOf, ChangeKind, type AgentDefinition } from '../engine/index.js';
import { RecordMark, type TrackerAsk } from '../services/changes/changes-protocol.js';
import type { RunChangesService } from '../services/changes/changes.service.js';
import { hashLines, type HashedLines } from './record-hasher.js';
import { recordHashPlanOf } from './record-hashes.js';

/** Keys per lookup (the checkpoints' records are gathered until there are this many, or the export asks). */
const TRACKED_BATCH = 1_000;
/** Most records tracked: a longer Run's export does its own work (the marks and keys held stay bounded). */
const TRACKED_RECORDS = 100_000;
/**
 * Stage batches held until the export asks for the marks (their records' lines stay in memory): a longer
 * crawl stages as it goes from then on.
 */
const STAGES_HELD = 16;

/** The mark of a record the Run found (never deleted: deleted rows are the keys it did not find). */
const markOf = (kind: ChangeKind): RecordMark =>
  kind === ChangeKind.Unchanged
    ? RecordMark.Unchanged
    : kind === ChangeKind.Updated
      ? RecordMark.Updated
      : RecordMark.New;

/** A record waiting for its key's lookup. */
interface Waiting {
  index: number;
  key: string;
  values: string;
  list: string;
  line: string;
}

export interface RunChangesTracker {
  /** A checkpoint's records, per set, as JSON lines. */
  observe(records: ReadonlyArray<{ set: number; ndjson: string }>): void;
  /**
   * The marks of a window of the records, once its records' keys are looked up; null once the tracker has
   * given up (or when the records it saw are not as many as the Run gave).
   */
  marks(ask: Extract<TrackerAsk, { op: 'marks' }>): Promise<string | null>;
  /** Whether every stage (and seen row) is written, once they are: false when the tracker gave up. */
  staged(): Promise<boolean>;
}

/**
 * Tracks Run `runId`'s records (its definition `def` tracks changes by `key`); `begun` is the answer to
 * the Run's `begin` (the lookups wait for it: the Agent's state is whole then).
 */
export function createRunChangesTracker(
  runId: number,
  def: AgentDefinition,
  changes: RunChangesService,
  begun: Promise<unknown>,
  trackDeletes: boolean,
): RunChangesTracker {
  const plan = recordHashPlanOf(def);
  let marks: RecordMark[] = [];
  let keys = new Set<string>();
  let waiting: Waiting[] = [];
  let set: number | null = null;
  let failed = false;
  // Every observed checkpoint's records taken (their hashes come from the hashing thread).
  let observed: Promise<void> = Promise.resolve();
  let batch = 0;
  // Giving up drops what was tracked (the export then does the work itself).
  const giveUp = () => {
    failed = true;
    marks = [];
    keys = new Set();
    waiting = [];
  };
  // One lookup at a time, after the beginning; one stage at a time, each after its lookup. The marks
  // need only the lookups: the export goes on while the stages are written. The stages wait for the
  // export (or for STAGES_HELD batches): while the Run crawls its cores are the crawl's, while it exports
  // the run process uses one of them, and the stages then go on the other.
  let lookups: Promise<void> = begun.then(() => {}, giveUp);
  let releaseStages = () => {};
  const stagesReleased = new Promise<void>((resolve) => (releaseStages = resolve));
  let stages: Promise<void> = Promise.all([lookups, stagesReleased]).then(() => {});
  let held = 0;
  // Records observed so far (lines counted as they come, before they are hashed), and the points where
  // they become final: the end (index after the last record) of each observation once taken, and of
  // each lookup once answered. Both lists are in index order, one entry per checkpoint or lookup.
  let observedLines = 0;
  const takenUpTo: Array<{ end: number; done: Promise<void> }> = [];
  const lookedUpTo: Array<{ end: number; done: Promise<void> }> = [];
  // Once the export asks, every record is observed: the last part batch is looked up when all are taken.
  let flushed: Promise<void> | null = null;

  /** Looks up the waiting records' keys, then stages the new and updated ones and keeps the keys as seen. */
  function lookUp(part: Waiting[]) {
    const changed = lookups.then(async () => {
      if (failed) return [];
      const previous = await changes.lookupBegun(
        runId,
        part.map((w) => w.key),
      );
      const found: Waiting[] = [];
      part.forEach((w, j) => {
        const kind = changeKindOf(w.values, previous[j]);
        marks[w.index] = markOf(kind);
        if (kind !== ChangeKind.Unchanged) found.push(w);
      });
      return found;
    });
    lookups = changed.then(() => {}, giveUp);
    lookedUpTo.push({ end: part[part.length - 1].index + 1, done: lookups });
    const no = --batch;
    if (++held >= STAGES_HELD) releaseStages();
    stages = Promise.all([stages, changed])
      .then(async ([, found]) => {
        if (failed) return;
        if (found.length > 0)
          await changes.answer(runId, {
            op: 'stage',
            batch: no,
            keys: found.map((w) => w.key),
            valuesHashes: found.map((w) => w.values),
            listHashes: found.map((w) => w.list),
            values: found.map((w) => w.line),
          });
        if (trackDeletes)
          await changes.answer(runId, {
            op: 'seen',
            batch: no,
            keys: part.map((w) => w.key),
          });
      })
      .catch(giveUp);
  }

  /** Looks up the waiting records in batches of TRACKED_BATCH; the rest waits for more unless `all`. */
  function lookUpWaiting(all: boolean) {
    let from = 0;
    for (; waiting.length - from >= TRACKED_BATCH; from += TRACKED_BATCH)
      lookUp(waiting.slice(from, from + TRACKED_BATCH));
    if (all && from < waiting.length) {
      lookUp(waiting.slice(from));
      from = waiting.length;
    }
    if (from > 0) waiting = waiting.slice(from);
  }

  /** A checkpoint's lines with their hashes (in the order observed: the first record of a key wins). */
  function take(lines: string[], hashed: HashedLines) {
    if (hashed.keys.length !== lines.length) return giveUp();
    for (let i = 0; i < lines.length; i++) {
      if (marks.length >= TRACKED_RECORDS) return giveUp();
      const key = hashed.keys[i];
      const index = marks.length;
      if (key === null) {
        // Without any key value a record cannot be recognised later: new every time, not remembered.
        marks.push(RecordMark.New);
      } else if (keys.has(key)) {
        marks.push(RecordMark.Duplicate);
      } else {
        keys.add(key);
        // Marked when its lookup is answered.
        marks.push(RecordMark.New);
        waiting.push({ index, key, values: hashed.values[i], list: hashed.lists[i], line: lines[i] });
      }
    }
    lookUpWaiting(false);
  }

  function observe(records: ReadonlyArray<{ set: number; ndjson: string }>) {
    for (const r of records) {
      if (failed) return;
      set ??= r.set;
      if (r.set !== set) return giveUp();
      const lines = r.ndjson.split('\n').filter((line) => line.length > 0);
      observedLines += lines.length;
      // Hashed by the worker's hashing thread while this thread goes on; taken in the order observed.
      const hashed = hashLines(plan, r.ndjson);
      observed = Promise.all([observed, hashed]).then(([, h]) => {
        if (!failed) take(lines, h);
      }, giveUp);
      takenUpTo.push({ end: observedLines, done: observed });
    }
  }

  /**
   * Waits until the marks of the records before `end` are final: those records taken (hashed, in order)
   * and the lookups of their keys answered. Lookups go in index order, so the first lookup ending at or
   * after `end` covers every one of them; none yet means some wait for the last part batch (flushed).
   */
  async function finalUpTo(end: number) {
    await (takenUpTo.find((t) => t.end >= end)?.done ?? observed);
    const covering = () => lookedUpTo.find((l) => l.end >= end)?.done;
    let done = covering();
    if (!done) {
      await flushed;
      done = covering() ?? lookups;
    }
    await done;
  }

  return {
    observe,
    async marks(ask) {
      releaseStages();
      if (ask.rest.length > 0) observe([{ set: set ?? 0, ndjson: ask.rest }]);
      if (!failed && observedLines !== ask.total) giveUp();
      flushed ??= observed.then(() => {
        if (!failed) lookUpWaiting(true);
      });
      await finalUpTo(Math.min(ask.from + ask.count, ask.total));
      if (failed) return null;
      return marks.slice(ask.from, ask.from + ask.count).join('');
    },
    async staged() {
      await stages;
      return !failed;
    },
  };
}
