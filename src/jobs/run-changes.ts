// In a run process: `key` and `changes` of a Run's definition. Its records are exported once per key
// (the first), and, tracking changes, each batch's keys are classified by the worker (one statement: the
// values hash the Agent last saw of each key) and marked `_change`; only the new and updated records are
// then staged, with their values, while the export goes on. With trackDeletes the Agent's keys the Run
// did not see are appended as `deleted`. The questions go to the worker (relayRunChanges) in batches, one
// statement each there. The keys seen are known from the export pass itself, which reads every record of
// the Run (those a resumed Run had before its interruption first): the pass is made whole at every
// attempt, so a key is never counted twice.
import {
  CHANGE_COLUMN,
  changesOf,
  ChangeKind,
  changeKindOf,
  exportColumnsOf,
  exportsChange,
  hashedNamesOf,
  recordKeyOf,
  valuesHashOf,
  type AgentDefinition,
  type ExtractedRecord,
  type KnownDetails,
} from '../engine/index.js';
import type { ChangesReply, ChangesRequest, TrackerAsk } from '../services/changes/changes-protocol.js';
import type { StorageWriter } from '../storage/index.js';
import type { ChangesAsk } from '../services/changes/changes.service.js';
import type { ChangesAhead } from './run-changes-ahead.js';
import { recordHasher, type RecordHashes } from './record-hashes.js';
import { deletedRows, type WorkerTracking } from './run-changes-marks.js';

/** Records per question to the worker: a batch is one statement there. */
export const CHANGES_BATCH = 2_000;
/** Classify questions in flight at most (each holds its batch of records: memory stays flat). */
const CLASSIFY_IN_FLIGHT = 3;
/** Stage questions (new and updated records with their values) in flight at most: memory stays flat. */
const STAGES_IN_FLIGHT = 2;

type Records = AsyncIterable<ExtractedRecord>;
interface KnownRecord {
  keyHash: string;
  listHash: string;
  values: ExtractedRecord;
}

/** Questions about the Run's records, asked of the worker over the run process's channel. */
export function remoteChanges(send: (msg: ChangesRequest) => void) {
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  return {
    ask<T>(ask: ChangesAsk | TrackerAsk): Promise<T> {
      const request = ++next;
      return new Promise<T>((resolve, reject) => {
        pending.set(request, { resolve: resolve as (v: unknown) => void, reject });
        send({ type: 'changes:ask', request, ask });
      });
    },
    receive(msg: ChangesReply): void {
      const waiting = pending.get(msg.request);
      if (!waiting) return;
      pending.delete(msg.request);
      if (msg.ok) waiting.resolve(msg.value);
      else waiting.reject(new Error(msg.message));
    },
  };
}
export type RemoteChanges = ReturnType<typeof remoteChanges>;

/** The export columns: the definition's, and `_change` when it tracks changes. */
export function trackedColumnsOf(def: AgentDefinition): string[] {
  const columns = exportColumnsOf(def);
  return def.changes ? [...columns, CHANGE_COLUMN] : columns;
}

/** The lookup of skipUnchangedDetails: a list record whose key and list values the Agent knows gets its last detail values. */
export function knownDetailsOf(def: AgentDefinition, changes: RemoteChanges): KnownDetails | undefined {
  if (!def.changes?.skipUnchangedDetails || !def.follow || !def.key) return undefined;
  const key = def.key;
  const { list } = hashedNamesOf(def);
  const detailNames = def.follow.fields.map((f) => f.name);
  return async (records) => {
    const keys = records.map((r) => recordKeyOf(r, key));
    const asked = [...new Set(keys.filter((k): k is string => k !== null))];
    const found = new Map<string, KnownRecord>();
    for (let i = 0; i < asked.length; i += CHANGES_BATCH) {
      const known = await changes.ask<KnownRecord[]>({ op: 'known', keys: asked.slice(i, i + CHANGES_BATCH) });
      for (const k of known) found.set(k.keyHash, k);
    }
    return records.map((record, i) => {
      const k = keys[i] === null ? undefined : found.get(keys[i]);
      if (!k || k.listHash !== valuesHashOf(record, list)) return null;
      return Object.fromEntries(detailNames.map((name) => [name, k.values[name] ?? null]));
    });
  };
}

/**
 * The sets as the export writes them: duplicates of a key dropped (counted in `counts.duplicates`), and,
 * tracking changes, each record staged, marked and kept or not by `changes.export`; the keys not seen
 * follow the last set as `deleted` (with trackDeletes, unless the Run is partial: stopped, or it missed pages, so it did not look everywhere).
 */
export async function trackedSets(
  def: AgentDefinition,
  changes: RemoteChanges,
  sets: Array<{ set: number; records: Records }>,
  opts: {
    /** The Run did not see every record (stopped, or pages missed): it reports no key deleted. */
    partial: boolean;
    ahead?: ChangesAhead | null;
    byWorker?: { tracking: WorkerTracking; rest: () => string } | null;
  },
  counts: { duplicates: number },
): Promise<Array<{ set: number; records: Records }>> {
  if (!def.key) return sets;
  const tracking = def.changes ? changesOf(def.changes) : undefined;
  // The worker tracked the records of the Run's one set (run-changes-marks.ts); if it gave up, the
  // export does the work itself below, from a new beginning.
  if (tracking && opts.byWorker && sets.length === 1) {
    const records = await opts.byWorker.tracking.exported(sets[0].records, opts.byWorker.rest(), opts, counts);
    if (records) return [{ set: sets[0].set, records }];
  }
  // The attempt's tracking began with the work ahead, when there is some (run-changes-ahead.ts).
  if (tracking && !opts.ahead) await changes.ask({ op: 'begin', trackDeletes: tracking.trackDeletes });
  const hashesOf = opts.ahead?.hashesOf ?? recordHasher(def);
  // What the crawl did ahead: a batch whose keys all were looked up needs no question of its own, and a
  // record staged ahead is not staged again.
  const ahead = (await opts.ahead?.done()) ?? { previous: new Map<string, string | null>(), staged: new Set<string>() };
  const lookedUp = ahead.previous;
  const seen = new Set<string>();
  let batches = 0;
  // Stage questions are not waited for by the export, only all before its end (in order, a few at once).
  const staging: Array<Promise<unknown>> = [];
  const settleStaging = async (atMost: number) => {
    while (staging.length > atMost) await staging.shift();
  };
  const inTurn = (question: Promise<unknown>) => {
    // Awaited in turn (settleStaging); a rejection before then must not count as unhandled.
    question.catch(() => {});
    staging.push(question);
    return settleStaging(STAGES_IN_FLIGHT);
  };

  /** The values hashes the Agent last saw of a batch's keys, in order (and, tracking deletes, the keys kept as seen). */
  async function previousOf(batchNo: number, keys: string[]): Promise<Array<string | null>> {
    if (keys.every((k) => lookedUp.has(k))) {
      if (tracking!.trackDeletes) await inTurn(changes.ask({ op: 'seen', batch: batchNo, keys }));
      return keys.map((k) => lookedUp.get(k) ?? null);
    }
    return changes.ask<Array<string | null>>({ op: 'classify', batch: batchNo, keys });
  }

  /** A batch as exported: classified, marked and filtered (tracking changes), or as it is (key alone). */
  async function marked(batch: Array<{ record: ExtractedRecord; hashes: RecordHashes }>): Promise<ExtractedRecord[]> {
    if (!tracking || batch.length === 0) return batch.map((b) => b.record);
    const batchNo = ++batches;
    const keys: string[] = [];
    for (const b of batch) if (b.hashes.key !== null) keys.push(b.hashes.key);
    const previous = await previousOf(batchNo, keys);
    // The batch's kinds in its order (keyed records take their answers in turn).
    const kinds: ChangeKind[] = [];
    const changed: number[] = [];
    let answer = 0;
    for (const b of batch) {
      if (b.hashes.key === null) {
        kinds.push(ChangeKind.New);
        continue;
      }
      const kind = changeKindOf(b.hashes.values, previous[answer++]);
      kinds.push(kind);
      if (kind !== ChangeKind.Unchanged && !ahead.staged.has(b.hashes.key)) changed.push(kinds.length - 1);
    }
    if (changed.length > 0)
      await inTurn(
        changes.ask({
          op: 'stage',
          batch: batchNo,
          keys: changed.map((i) => batch[i].hashes.key!),
          valuesHashes: changed.map((i) => batch[i].hashes.values),
          listHashes: changed.map((i) => batch[i].hashes.list),
          values: changed.map((i) => JSON.stringify(batch[i].record)),
        }),
      );
    // A record without any key value cannot be recognised later: it is new every time, and not remembered.
    const rows: ExtractedRecord[] = [];
    // Object.assign rather than a spread: a spread copy of each record cost ten times as much.
    batch.forEach(({ record }, i) => {
      if (exportsChange(tracking.export, kinds[i])) rows.push(Object.assign({}, record, { [CHANGE_COLUMN]: kinds[i] }));
    });
    return rows;
  }

  // Up to CLASSIFY_IN_FLIGHT batches' questions are in flight while the next batch is read and the one
  // before is written: the worker's round trips overlap each other and the export's own work. Batches
  // are answered and written in order.
  async function* tracked(records: Records, last: boolean): AsyncGenerator<ExtractedRecord> {
    let batch: Array<{ record: ExtractedRecord; hashes: RecordHashes }> = [];
    const inFlight: Array<Promise<ExtractedRecord[]>> = [];
    const send = () => {
      const asked = marked(batch);
      // Awaited in turn below; a rejection before then must not count as unhandled.
      asked.catch(() => {});
      batch = [];
      inFlight.push(asked);
    };
    for await (const record of records) {
      const hashes = hashesOf(record);
      const k = hashes.key;
      if (k !== null) {
        if (seen.has(k)) {
          counts.duplicates++;
          continue;
        }
        seen.add(k);
      }
      batch.push({ record, hashes });
      if (batch.length >= CHANGES_BATCH) {
        send();
        if (inFlight.length > CLASSIFY_IN_FLIGHT) yield* await inFlight.shift()!;
      }
    }
    send();
    while (inFlight.length > 0) yield* await inFlight.shift()!;
    // Every new and updated record is staged before the set's export ends (and so before the Run's).
    await settleStaging(0);
    await opts.ahead?.settled();
    if (last && tracking?.trackDeletes && !opts.partial) yield* deletedRows(def, changes);
  }

  return sets.map((s, i) => ({ set: s.set, records: tracked(s.records, i === sets.length - 1) }));
}

/**
 * The sets as they are, each record also written to `writer` as a JSON line as the export reads it: a
 * synchronous start's records (keepRecords) are then the records exported, one per key and marked
 * `_change` as in the data file. Without a writer, the sets unchanged.
 */
export function keptSets(
  sets: Array<{ set: number; records: Records }>,
  writer: Pick<StorageWriter, 'write'> | null,
): Array<{ set: number; records: Records }> {
  if (!writer) return sets;
  return sets.map((s) => ({
    set: s.set,
    records: (async function* () {
      for await (const record of s.records) {
        writer.write(JSON.stringify(record) + '\n');
        yield record;
      }
    })(),
  }));
}
