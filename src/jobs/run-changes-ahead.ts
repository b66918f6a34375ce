// In a run process: change tracking's work done ahead, during the crawl, so the export finds it done, for
// a Run whose records the worker does not track from its checkpoints (run-changes-marks.ts: a Run of
// several sets, a resumed Run, a Run of one page). The attempt's tracking begins when it starts; as the engine gives a page's records, each record's key and
// values hashes are computed (the run process's main thread is mostly waiting then: pages are fetched and
// parsed elsewhere), the keys' previous values hashes are asked of the worker (read-only questions of
// about 1,000 keys, gathered over pages), and, in a Run of one set that is not resumed, the new and
// updated records are staged once the answer is there (one question per answer). The export pass
// (trackedSets) then marks a batch whose keys were all looked up without a question of its own, and
// stages only what was not staged ahead. What was not done
// ahead (records restored from a checkpoint, records re-read from a spool file, keys past the limit, a
// question that failed) the export does as before.
//
// Staging ahead keeps "the first record of a key wins": in one set records arrive in the order the export
// reads them. With several sets, or records restored from a checkpoint, the export's order differs from
// the crawl's, so only the export stages then.
import { ChangeKind, changeKindOf, changesOf, type AgentDefinition, type ExtractedRecord } from '../engine/index.js';
import { MAX_CHANGES_BATCH, type ChangesAsk } from '../services/changes/changes.service.js';
import { recordHasher, type RecordHashes } from './record-hashes.js';

/** Where questions go (RemoteChanges). */
interface Asker {
  ask<T>(ask: ChangesAsk): Promise<T>;
}

/** Most keys whose previous values hash is held for the export (about 100 bytes each). */
const AHEAD_KEYS = 100_000;
/** Keys per lookup question during the crawl (the pages' keys are gathered until there are this many). */
const AHEAD_BATCH = 1_000;

export interface ChangesAhead {
  /** The records of a page, as the engine gives them. */
  observe(records: readonly ExtractedRecord[]): void;
  /** A record's hashes, from the crawl when it computed them (the same object), else computed now. */
  hashesOf: (record: ExtractedRecord) => RecordHashes;
  /**
   * Once the attempt's tracking has begun and every lookup asked ahead is answered: the previous values
   * hash of each key looked up, and the keys whose record is staged ahead (asked; see settled).
   */
  done(): Promise<{ previous: ReadonlyMap<string, string | null>; staged: ReadonlySet<string> }>;
  /** Once every stage asked ahead is answered (rejects if one failed). */
  settled(): Promise<void>;
}

/**
 * The work ahead for a change-tracking definition (null for one that tracks no changes); its tracking
 * begins now. `stage`: whether new and updated records are staged during the crawl (a Run of one set,
 * not resumed).
 */
export function changesAhead(def: AgentDefinition, changes: Asker, opts: { stage: boolean }): ChangesAhead | null {
  if (!def.changes || !def.key) return null;
  const { trackDeletes } = changesOf(def.changes);
  const hash = recordHasher(def);
  const hashes = new WeakMap<ExtractedRecord, RecordHashes>();
  const previous = new Map<string, string | null>();
  const staged = new Set<string>();
  const asked = new Set<string>();
  const began = changes.ask({ op: 'begin', trackDeletes });
  // Awaited by done(); a rejection before then must not count as unhandled.
  began.catch(() => {});
  const lookups: Array<Promise<unknown>> = [];
  const stages: Array<Promise<unknown>> = [];
  let stageBatch = 0;

  /**
   * Stages a page's new and updated records once their keys are looked up (a batch of its own, below
   * zero). Their keys count as staged from the moment the question is asked: the export then neither
   * waits for the answer nor stages them again, and waits for every stage only before it ends (settled).
   */
  function stageNewAndUpdated(page: Array<{ record: ExtractedRecord; hashes: RecordHashes }>) {
    const changed = page.filter(
      (r) => changeKindOf(r.hashes.values, previous.get(r.hashes.key!)!) !== ChangeKind.Unchanged,
    );
    if (changed.length === 0) return;
    for (const r of changed) staged.add(r.hashes.key!);
    const stage = began.then(() =>
      changes.ask({
        op: 'stage',
        batch: --stageBatch,
        keys: changed.map((r) => r.hashes.key!),
        valuesHashes: changed.map((r) => r.hashes.values),
        listHashes: changed.map((r) => r.hashes.list),
        values: changed.map((r) => JSON.stringify(r.record)),
      }),
    );
    // Awaited by settled(); a rejection before then must not count as unhandled.
    stage.catch(() => {});
    stages.push(stage);
  }

  // Keys not asked about yet, in the order the records came: gathered over pages into questions of
  // AHEAD_BATCH keys, as a question costs the worker and PostgreSQL about as much again as its lookups.
  let unasked: Array<{ record: ExtractedRecord; hashes: RecordHashes }> = [];

  /** A page's records: hashed, and their keys not asked before gathered for a lookup. */
  function gather(records: readonly ExtractedRecord[]) {
    for (const record of records) {
      const h = hash(record);
      hashes.set(record, h);
      if (h.key === null || asked.has(h.key) || asked.size >= AHEAD_KEYS) continue;
      asked.add(h.key);
      unasked.push({ record, hashes: h });
    }
  }

  /** Looks up the keys gathered (then stages, see above): once there are AHEAD_BATCH of them, or all with `all`. */
  function lookUpGathered(all: boolean) {
    if (unasked.length === 0 || (!all && unasked.length < AHEAD_BATCH)) return;
    const gathered = unasked;
    unasked = [];
    for (let i = 0; i < gathered.length; i += MAX_CHANGES_BATCH) {
      const part = gathered.slice(i, i + MAX_CHANGES_BATCH);
      const keys = part.map((r) => r.hashes.key!);
      const lookup = changes.ask<Array<string | null>>({ op: 'lookup', keys }).then(
        (answer) => {
          keys.forEach((k, j) => previous.set(k, answer[j]));
          if (opts.stage) stageNewAndUpdated(part);
        },
        // Not looked up: the export asks for these keys itself.
        () => {},
      );
      lookups.push(lookup);
    }
  }

  // The pages given and not yet looked up. The engine gives a list page's records just before it asks for
  // the next page: the hashing waits for the next macrotask, so that it overlaps that page's fetch and
  // parse instead of delaying them.
  let waiting: Array<readonly ExtractedRecord[]> = [];
  let turn: NodeJS.Immediate | null = null;
  const lookUpWaiting = (all: boolean) => {
    if (turn) clearImmediate(turn);
    turn = null;
    const pages = waiting;
    waiting = [];
    for (const records of pages) gather(records);
    lookUpGathered(all);
  };

  return {
    observe(records) {
      waiting.push(records);
      turn ??= setImmediate(() => lookUpWaiting(false));
    },
    hashesOf: (record) => hashes.get(record) ?? hash(record),
    async done() {
      lookUpWaiting(true);
      await began;
      await Promise.all(lookups);
      return { previous, staged };
    },
    // A stage that failed fails the export, as a stage question of the export's own does.
    settled: () => Promise.all(stages).then(() => {}),
  };
}
