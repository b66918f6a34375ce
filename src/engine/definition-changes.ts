// The `key` and `changes` keywords of a definition: which fields identify a record (records with the
// same key within one Run are exported once, the first), and what a Run exports compared with the
// Agent's earlier Runs (new, updated, unchanged and deleted records, marked in a `_change` column).
// The record-level rules (keys, hashes, the `_change` values) are here too: pure, no storage.
import { hash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { ExtractedRecord } from './extract.js';

export const AgentKeySchema = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 10,
  uniqueItems: true,
  description:
    'Field names that identify a record. Records with the same key within one Run are exported once (the first); ' +
    'the others are counted as duplicates in the Run evidence. Required by `changes`.',
  example: ['sku'],
});

export const ChangeExportSchema = Type.Union([Type.Literal('all'), Type.Literal('new'), Type.Literal('changed')], {
  description:
    "'all' (the default): every record; 'changed': new and updated records; 'new': new records only (deleted ones are added with trackDeletes).",
});

type ChangeExport = Static<typeof ChangeExportSchema>;

export const AgentChangesSchema = Type.Object(
  {
    export: Type.Optional(ChangeExportSchema),
    trackDeletes: Type.Optional(
      Type.Boolean({
        description:
          "Append a row marked 'deleted' (its last known values) for each key the Run did not see; none when the Run did not see every record (stopped, a list page matched nothing, pagination ended early). Default false.",
      }),
    ),
    skipUnchangedDetails: Type.Optional(
      Type.Boolean({
        description:
          'A list record whose key is known and whose list values are unchanged keeps its last detail values ' +
          'instead of fetching its follow page (not fetched, not billed; counted in the Run evidence).',
      }),
    ),
  },
  {
    title: 'AgentChanges',
    additionalProperties: false,
    description:
      "Change tracking across the Agent's Runs (needs `key`): each exported record gets a `_change` column " +
      '(new, updated, unchanged, deleted). Only a Run that ends Success updates what the Agent remembers.',
    example: { export: 'changed', trackDeletes: true, skipUnchangedDetails: true },
  },
);
export type AgentChanges = Static<typeof AgentChangesSchema>;

/** What an Agent's `changes` asks for, its defaults filled in: every record exported, no deleted rows. */
export function changesOf(changes: AgentChanges): { export: ChangeExport; trackDeletes: boolean } {
  return { export: changes.export ?? 'all', trackDeletes: changes.trackDeletes === true };
}

/** The column every record of a change-tracking Agent gets. */
export const CHANGE_COLUMN = '_change';
export const ChangeKind = {
  New: 'new',
  Updated: 'updated',
  Unchanged: 'unchanged',
  Deleted: 'deleted',
} as const;
export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

/** The parts of a definition these rules read (an AgentDefinition is one). */
interface KeyedPlan {
  key?: string[];
  changes?: AgentChanges;
  list: { fields: Array<{ name: string }> };
  follow?: { fields: Array<{ name: string }> };
}

/** Save-time problems of `key` and `changes`, each naming where it is and what is wrong. */
export function keyProblems(def: KeyedPlan): string[] {
  const problems: string[] = [];
  const listNames = new Set(def.list.fields.map((f) => f.name));
  const names = new Set([...listNames, ...(def.follow?.fields ?? []).map((f) => f.name)]);
  (def.key ?? []).forEach((name, i) => {
    if (!names.has(name)) problems.push(`key[${i}]: '${name}' is not the name of a field`);
  });
  if (def.changes && !def.key) problems.push('changes: needs key (the fields that identify a record)');
  if (def.changes?.skipUnchangedDetails) {
    if (!def.follow) problems.push('changes.skipUnchangedDetails: applies only when the definition has follow');
    const fromDetail = (def.key ?? []).filter((name) => names.has(name) && !listNames.has(name));
    if (fromDetail.length > 0)
      problems.push(
        `changes.skipUnchangedDetails: key field${fromDetail.length > 1 ? 's' : ''} ${fromDetail.map((n) => `'${n}'`).join(', ')} ` +
          'must be read on the list page, not on the detail page',
      );
  }
  return problems;
}

// The one-shot `hash` (no Hash object per record): a Run hashes each record two or three times.
const digest = (text: string) => hash('sha256', text, 'base64url').slice(0, 22);

/** A record's key as a short hash of its key values (in key order), or null when every key value is empty. */
export function recordKeyOf(record: ExtractedRecord, key: readonly string[]): string | null {
  const values = key.map((name) => record[name] ?? null);
  if (values.every((v) => v === null || v === '')) return null;
  return digest(JSON.stringify(values));
}

/** The hash of a record's values but its key: `names` in order (missing values as null). */
export function valuesHashOf(record: ExtractedRecord, names: readonly string[]): string {
  return digest(JSON.stringify(names.map((name) => record[name] ?? null)));
}

/** The field names whose values make a record's values hash, and those read on the list page. */
export function hashedNamesOf(def: KeyedPlan): { all: string[]; list: string[] } {
  const key = new Set(def.key ?? []);
  const list = def.list.fields.map((f) => f.name).filter((n) => !key.has(n));
  const detail = (def.follow?.fields ?? []).map((f) => f.name).filter((n) => !key.has(n));
  return { all: [...list, ...detail], list };
}

/** `_change` of a record whose values hash is `hash`, given the hash the Agent last saw (null: unknown key). */
export function changeKindOf(hash: string, previous: string | null): ChangeKind {
  if (previous === null) return ChangeKind.New;
  return previous === hash ? ChangeKind.Unchanged : ChangeKind.Updated;
}

/** Whether a record of `kind` is exported under `mode` (deleted rows are added by trackDeletes). */
export function exportsChange(mode: ChangeExport, kind: ChangeKind): boolean {
  if (kind === ChangeKind.Deleted || mode === 'all') return true;
  if (mode === 'new') return kind === ChangeKind.New;
  return kind !== ChangeKind.Unchanged;
}

/**
 * What a Run asks about keys it met on a list page, before their detail pages (skipUnchangedDetails):
 * for each record, its detail values as the Agent last saw them when its key is known and its list
 * values are unchanged, or null (fetch the detail page). One call per list page: batched lookups.
 */
export type KnownDetails = (records: ExtractedRecord[]) => Promise<Array<ExtractedRecord | null>>;
