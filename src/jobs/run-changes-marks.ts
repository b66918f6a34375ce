// In a run process: change tracking done by the worker (run-changes-tracker.ts), for a Run of one set
// that is not resumed and reports checkpoints. Its tracking begins when it starts, asking the worker to
// track the records its checkpoints carry; the crawl does nothing more than count its records. The
// export asks for the records' marks in windows, in order, and marks, filters and counts duplicates by
// them, with no hashing and no question of its own; the keys the Run did not see follow as `deleted`.
import {
  CHANGE_COLUMN,
  ChangeKind,
  changesOf,
  exportsChange,
  type AgentDefinition,
  type ExtractedRecord,
} from '../engine/index.js';
import { RecordMark } from '../services/changes/changes-protocol.js';
import type { ChangesAsk, DeletedRecord } from '../services/changes/changes.service.js';
import type { TrackerAsk } from '../services/changes/changes-protocol.js';

/**
 * Records per `marks` question (one character each). Each window is answered once its own records are
 * looked up, so a small window lets the export write the first records while the worker still looks up
 * the last ones (the crawl's end leaves it some to do); a question costs a message each way.
 */
const MARKS_WINDOW = 1_000;
/** Windows asked before they are needed (their answers come in order). */
const WINDOWS_AHEAD = 2;
/** Deleted rows per page of their walk (with their values). */
const DELETED_PAGE = 2_000;

interface Asker {
  ask<T>(ask: ChangesAsk | TrackerAsk): Promise<T>;
}

const KIND_OF: Record<Exclude<RecordMark, typeof RecordMark.Duplicate>, ChangeKind> = {
  [RecordMark.New]: ChangeKind.New,
  [RecordMark.Updated]: ChangeKind.Updated,
  [RecordMark.Unchanged]: ChangeKind.Unchanged,
};

export interface WorkerTracking {
  /** A page's records, counted (the worker's count must agree when the export asks). */
  given(records: readonly ExtractedRecord[]): void;
  /**
   * The set as exported, from the worker's marks, or null when the worker gave up (the export then does
   * the work itself, beginning again). `rest`: the JSON lines of the records no checkpoint carried.
   */
  exported(
    records: AsyncIterable<ExtractedRecord>,
    rest: string,
    opts: { partial: boolean },
    counts: { duplicates: number },
  ): Promise<AsyncIterable<ExtractedRecord> | null>;
}

/** The worker's tracking of a change-tracking Run's records (null for a definition that tracks no changes). */
export function workerTracking(def: AgentDefinition, changes: Asker): WorkerTracking | null {
  if (!def.changes || !def.key) return null;
  const tracking = changesOf(def.changes);
  // A beginning that fails makes the worker give up: the export finds it so and begins again.
  changes.ask({ op: 'begin', trackDeletes: tracking.trackDeletes, observe: true }).catch(() => {});
  let total = 0;
  const window = (from: number, rest = '') =>
    changes.ask<string | null>({ op: 'marks', from, count: MARKS_WINDOW, rest, total });
  return {
    given(records) {
      total += records.length;
    },
    async exported(records, rest, opts, counts) {
      const first = await window(0, rest);
      if (first === null) return null;
      return (async function* () {
        let marks = first;
        let start = 0;
        // The next windows are asked while this one is exported.
        const next: Array<Promise<string | null>> = [];
        const askAhead = () => {
          while (next.length < WINDOWS_AHEAD) {
            const from = start + (next.length + 1) * MARKS_WINDOW;
            if (from >= total) return;
            next.push(window(from));
          }
        };
        askAhead();
        let i = 0;
        for await (const record of records) {
          if (i - start >= MARKS_WINDOW) {
            start += MARKS_WINDOW;
            const answer = await (next.shift() ?? window(start));
            if (answer === null) throw new Error('the worker lost the change tracking of this Run');
            marks = answer;
            askAhead();
          }
          const mark = marks[i++ - start] as RecordMark;
          if (mark === RecordMark.Duplicate) {
            counts.duplicates++;
            continue;
          }
          const kind = KIND_OF[mark];
          // Object.assign rather than a spread: a spread copy of each record cost ten times as much.
          if (exportsChange(tracking.export, kind)) yield Object.assign({}, record, { [CHANGE_COLUMN]: kind });
        }
        // Windows asked and not needed (the records ended sooner than counted) are not waited for.
        for (const unused of next) unused.catch(() => {});
        // Every new and updated record is staged before the set's export ends (and so before the Run's),
        // and the Run's keys are kept as seen before its deleted rows are asked for.
        if (!(await changes.ask<boolean>({ op: 'staged' })))
          throw new Error('the worker could not stage the new and updated records of this Run');
        if (tracking.trackDeletes && !opts.partial) yield* deletedRows(def, changes);
      })();
    },
  };
}

/** The names of a definition's fields in the order a record has them (list fields, then detail fields). */
function fieldOrderOf(def: AgentDefinition): string[] {
  return [...def.list.fields, ...(def.follow?.fields ?? [])].map((f) => f.name);
}

/**
 * The Agent's keys the Run did not see, with their last values, as `deleted` rows: pages of a walk over
 * the known keys in key order, the Run's own keys (its seen rows) left out by the worker's statement, so
 * only deleted rows travel. A row's values come back with their keys in the database's order: they are
 * put back in the order of the definition's fields, as the records the Run extracted have them.
 */
export async function* deletedRows(def: AgentDefinition, changes: Asker): AsyncGenerator<ExtractedRecord> {
  const fieldOrder = fieldOrderOf(def);
  let after: string | null = null;
  for (;;) {
    const page: DeletedRecord[] = await changes.ask<DeletedRecord[]>({
      op: 'unseenAfter',
      after,
      limit: DELETED_PAGE,
    });
    for (const k of page) {
      const values = k.values as ExtractedRecord;
      const row: ExtractedRecord = {};
      for (const name of fieldOrder) if (name in values) row[name] = values[name];
      for (const name of Object.keys(values)) if (!(name in row)) row[name] = values[name];
      row[CHANGE_COLUMN] = ChangeKind.Deleted;
      yield row;
    }
    if (page.length < DELETED_PAGE) return;
    after = page[page.length - 1].keyHash;
  }
}
