// In a run process: change tracking's work done ahead, during the crawl, so the export finds it done. As
// the engine gives a page's records, each record's key and values hashes are computed (the run process's
// main thread is mostly waiting then: pages are fetched and parsed elsewhere) and the keys' previous
// values hashes are asked of the worker, one read-only question per page. The export pass (trackedSets)
// then marks a batch whose keys were all looked up without a question of its own. What was not done ahead
// (records restored from a checkpoint, records re-read from a spool file, keys past the limit, a question
// that failed) the export does as before.
import {
  hashedNamesOf,
  recordKeyOf,
  valuesHashOf,
  type AgentDefinition,
  type ExtractedRecord,
} from '../engine/index.js';
import { MAX_CHANGES_BATCH, type ChangesAsk } from '../services/changes/changes.service.js';

/** Where questions go (RemoteChanges). */
interface Asker {
  ask<T>(ask: ChangesAsk): Promise<T>;
}

/** Most keys whose previous values hash is held for the export (about 100 bytes each). */
const AHEAD_KEYS = 100_000;

/** A record's hashes: its key (null: no key value), its values and its list values. */
export interface RecordHashes {
  key: string | null;
  values: string;
  list: string;
}

export interface ChangesAhead {
  /** The records of a page, as the engine gives them. */
  observe(records: readonly ExtractedRecord[]): void;
  /** A record's hashes, from the crawl when it computed them (the same object), else computed now. */
  hashesOf: (record: ExtractedRecord) => RecordHashes;
  /** Once every question asked ahead is answered: the previous values hash of each key looked up. */
  previous(): Promise<ReadonlyMap<string, string | null>>;
}

/** Hashes of a definition's records (`key` needed; values and list hashes only tracking changes). */
export function recordHasher(def: AgentDefinition): (record: ExtractedRecord) => RecordHashes {
  const key = def.key ?? [];
  const names = hashedNamesOf(def);
  // The list values are all the values but the key when there is no follow: one hash for both.
  const listIsAll = names.list.length === names.all.length;
  return (record) => {
    const values = def.changes ? valuesHashOf(record, names.all) : '';
    return {
      key: recordKeyOf(record, key),
      values,
      list: !def.changes || listIsAll ? values : valuesHashOf(record, names.list),
    };
  };
}

/** The work ahead for a change-tracking definition; null for one that tracks no changes. */
export function changesAhead(def: AgentDefinition, changes: Asker): ChangesAhead | null {
  if (!def.changes || !def.key) return null;
  const hash = recordHasher(def);
  const hashes = new WeakMap<ExtractedRecord, RecordHashes>();
  const answers = new Map<string, string | null>();
  const asked = new Set<string>();
  const questions: Array<Promise<void>> = [];

  return {
    observe(records) {
      const keys: string[] = [];
      for (const record of records) {
        const h = hash(record);
        hashes.set(record, h);
        if (h.key === null || asked.has(h.key) || asked.size >= AHEAD_KEYS) continue;
        asked.add(h.key);
        keys.push(h.key);
      }
      for (let i = 0; i < keys.length; i += MAX_CHANGES_BATCH) {
        const batch = keys.slice(i, i + MAX_CHANGES_BATCH);
        const question = changes.ask<Array<string | null>>({ op: 'lookup', keys: batch }).then(
          (previous) => batch.forEach((k, j) => answers.set(k, previous[j])),
          // Not looked up: the export asks for these keys itself.
          () => {},
        );
        questions.push(question);
      }
    },
    hashesOf: (record) => hashes.get(record) ?? hash(record),
    async previous() {
      await Promise.all(questions);
      return answers;
    },
  };
}
