// A change-tracking definition's record hashes (key, values, list values) from a plan of plain data. It
// imports nothing but the engine's change rules, so the worker's hashing thread (record-hasher-thread.ts)
// loads this and no more of the engine.
import { hashedNamesOf, recordKeyOf, valuesHashOf } from '../engine/definition-changes.js';
import type { AgentDefinition } from '../engine/definition.js';
import type { ExtractedRecord } from '../engine/extract.js';

/** A record's hashes: its key (null: no key value), its values and its list values. */
export interface RecordHashes {
  key: string | null;
  values: string;
  list: string;
}

/**
 * What hashing a definition's records needs, as plain data (it goes to the worker's hashing thread): the
 * key's field names, the names whose values make the values hash and the list values hash, and whether
 * values are hashed at all (only tracking changes).
 */
export interface RecordHashPlan {
  key: string[];
  all: string[];
  list: string[];
  values: boolean;
}

export function recordHashPlanOf(def: AgentDefinition): RecordHashPlan {
  const names = hashedNamesOf(def);
  return { key: def.key ?? [], all: names.all, list: names.list, values: Boolean(def.changes) };
}

/** Hashes of records by `plan` (recordHashPlanOf). */
export function hasherOf(plan: RecordHashPlan): (record: ExtractedRecord) => RecordHashes {
  // The list values are all the values but the key when there is no follow: one hash for both.
  const listIsAll = plan.list.length === plan.all.length;
  return (record) => {
    const values = plan.values ? valuesHashOf(record, plan.all) : '';
    return {
      key: recordKeyOf(record, plan.key),
      values,
      list: !plan.values || listIsAll ? values : valuesHashOf(record, plan.list),
    };
  };
}

/** Hashes of a definition's records (`key` needed; values and list hashes only tracking changes). */
export function recordHasher(def: AgentDefinition): (record: ExtractedRecord) => RecordHashes {
  return hasherOf(recordHashPlanOf(def));
}
