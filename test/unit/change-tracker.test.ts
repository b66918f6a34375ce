// Change tracking done by the worker from a Run's checkpoints: the run process's side (workerTracking,
// trackedSets) and the worker's (relayRunChanges and its tracker) wired over an in-memory channel, the
// database's answers from an in-memory stand-in. The export's rows must be the same whether the worker
// tracked the records or gave up and left the work to the export.
import { describe, expect, it } from 'vitest';
import { recordKeyOf, valuesHashOf, type AgentDefinition, type ExtractedRecord } from '../../src/engine/index.js';
import { remoteChanges, trackedSets } from '../../src/jobs/run-changes.js';
import { workerTracking } from '../../src/jobs/run-changes-marks.js';
import { relayRunChanges } from '../../src/jobs/run-changes-relay.js';
import type { ChangesAsk, RunChangesService } from '../../src/services/changes/changes.service.js';
import { answerOf } from '../helpers/changes-fake.js';

const definition: AgentDefinition = {
  startUrl: 'https://a.example/',
  list: { selector: 'li', fields: [{ name: 'sku' }, { name: 'price' }] },
  key: ['sku'],
  changes: { export: 'all', trackDeletes: true },
};
const key = (sku: string) => recordKeyOf({ sku }, ['sku'])!;
const hash = (price: string) => valuesHashOf({ price }, ['price']);
const lines = (records: ExtractedRecord[]) => records.map((r) => JSON.stringify(r) + '\n').join('');

/** A run process and its worker, the worker's statements answered from `known`. */
function wired(
  opts: { failLookup?: boolean; failFirstBegin?: boolean; failStage?: boolean; lastLookupAfter?: Promise<void> } = {},
) {
  const known = new Map<string, [string, ExtractedRecord]>([
    [key('A'), [hash('1'), { sku: 'A', price: '1' }]],
    [key('B'), [hash('1'), { sku: 'B', price: '1' }]],
    [key('Z'), [hash('9'), { sku: 'Z', price: '9' }]],
  ]);
  const seen = new Set<string>();
  const asks: Array<ChangesAsk | { op: 'lookupBegun'; keys: string[] }> = [];
  const service = {
    async answer(_runId: number, ask: ChangesAsk) {
      asks.push(ask);
      if (ask.op === 'begin' && opts.failFirstBegin && asks.filter((a) => a.op === 'begin').length === 1)
        throw new Error('connection terminated');
      if (ask.op === 'stage' && opts.failStage) throw new Error('connection terminated');
      return answerOf(known, seen, ask);
    },
    async lookupBegun(_runId: number, keys: string[]) {
      asks.push({ op: 'lookupBegun', keys });
      if (opts.failLookup) throw new Error('connection terminated');
      if (opts.lastLookupAfter && keys.length < 1_000) await opts.lastLookupAfter;
      return keys.map((k) => known.get(k)?.[0] ?? null);
    },
  } as unknown as RunChangesService;
  // The channel: each side's messages reach the other on a later turn, in order.
  let relay: ReturnType<typeof relayRunChanges> | null = null;
  const remote = remoteChanges((msg) => setImmediate(() => relay!.ask(msg)));
  relay = relayRunChanges(7, definition, service, (msg) => setImmediate(() => remote.receive(msg)));
  return { remote, relay, asks };
}

async function exported(
  remote: ReturnType<typeof remoteChanges>,
  tracking: NonNullable<ReturnType<typeof workerTracking>>,
  records: ExtractedRecord[],
  rest: string,
) {
  const counts = { duplicates: 0 };
  const sets = await trackedSets(
    definition,
    remote,
    [
      {
        set: 0,
        records: (async function* () {
          yield* records;
        })(),
      },
    ],
    { partial: false, byWorker: { tracking, rest: () => rest } },
    counts,
  );
  const rows: ExtractedRecord[] = [];
  for await (const r of sets[0].records) rows.push(r);
  return { rows, duplicates: counts.duplicates };
}

const page1: ExtractedRecord[] = [
  { sku: 'A', price: '1' },
  { sku: 'B', price: '2' },
  { sku: 'A', price: '3' },
  { sku: null, price: '4' },
];
const page2: ExtractedRecord[] = [{ sku: 'C', price: '5' }];
const expected = [
  { sku: 'A', price: '1', _change: 'unchanged' },
  { sku: 'B', price: '2', _change: 'updated' },
  { sku: null, price: '4', _change: 'new' },
  { sku: 'C', price: '5', _change: 'new' },
  { sku: 'Z', price: '9', _change: 'deleted' },
];

/** The Run's crawl: page 1 reaches the worker with a checkpoint, page 2 is given after the last one. */
async function crawled({ remote, relay }: ReturnType<typeof wired>) {
  const tracking = workerTracking(definition, remote)!;
  tracking.given(page1);
  await new Promise((r) => setImmediate(r));
  relay.observe([{ set: 0, ndjson: lines(page1) }]);
  tracking.given(page2);
  return tracking;
}

describe('change tracking done by the worker from the checkpoints', () => {
  it('marks each record in order; the export asks no classify and stages nothing itself', async () => {
    const w = wired();
    const { remote, asks } = w;
    const tracking = await crawled(w);
    const out = await exported(remote, tracking, [...page1, ...page2], lines(page2));
    expect(out.rows).toEqual(expected);
    expect(out.duplicates).toBe(1);
    expect(asks.filter((a) => a.op === 'classify')).toEqual([]);
    expect(asks.filter((a) => a.op === 'begin')).toHaveLength(1);
    // The new and updated records staged by the worker, with their JSON lines as the Run gave them.
    const stages = asks.filter((a) => a.op === 'stage');
    expect(stages.flatMap((s) => s.keys)).toEqual([key('B'), key('C')]);
    expect(stages.flatMap((s) => s.values)).toEqual([JSON.stringify(page1[1]), JSON.stringify(page2[0])]);
    expect(stages.every((s) => s.batch < 0)).toBe(true);
  });

  it('a Run of several marks windows: each answered once its own records are looked up, the same rows as the export gives alone', async () => {
    // 2,600 records in three checkpoints and the rest; the last 200 repeat keys of the first window (197 of
    // them: the first three records are the known A, B and Z).
    const many: ExtractedRecord[] = Array.from({ length: 2_600 }, (_, i) => ({
      sku: i < 3 ? ['A', 'B', 'Z'][i] : `S${i % 2_400}`,
      price: String(i % 7),
    }));
    const parts = [many.slice(0, 1_100), many.slice(1_100, 2_000), many.slice(2_000, 2_450), many.slice(2_450)];
    const run = async (w: ReturnType<typeof wired>) => {
      const tracking = workerTracking(definition, w.remote)!;
      for (const part of parts.slice(0, 3)) {
        tracking.given(part);
        await new Promise((r) => setImmediate(r));
        w.relay.observe([{ set: 0, ndjson: lines(part) }]);
      }
      tracking.given(parts[3]);
      return exported(w.remote, tracking, many, lines(parts[3]));
    };
    const byWorker = wired();
    const tracked = await run(byWorker);
    const alone = await run(wired({ failLookup: true }));
    expect(tracked.rows).toEqual(alone.rows);
    expect(tracked.duplicates).toBe(197);
    expect(tracked.rows).toHaveLength(2_403);
    expect(tracked.rows.slice(0, 3).map((r) => r._change)).toEqual(['updated', 'unchanged', 'updated']);
    // Looked up by the worker in batches of 1,000 distinct keys; the export asked nothing itself.
    expect(byWorker.asks.filter((a) => a.op === 'lookupBegun').map((a) => a.keys.length)).toEqual([1_000, 1_000, 403]);
    expect(byWorker.asks.filter((a) => a.op === 'classify')).toEqual([]);
  });

  it('the export writes the first window while the last keys are still being looked up', async () => {
    let answerLast = () => {};
    const w = wired({ lastLookupAfter: new Promise<void>((r) => (answerLast = r)) });
    const many: ExtractedRecord[] = Array.from({ length: 1_500 }, (_, i) => ({ sku: `S${i}`, price: '1' }));
    const tracking = workerTracking(definition, w.remote)!;
    tracking.given(many);
    await new Promise((r) => setImmediate(r));
    w.relay.observe([{ set: 0, ndjson: lines(many) }]);
    const sets = await trackedSets(
      definition,
      w.remote,
      [
        {
          set: 0,
          records: (async function* () {
            yield* many;
          })(),
        },
      ],
      { partial: false, byWorker: { tracking, rest: () => '' } },
      { duplicates: 0 },
    );
    const rows = sets[0].records[Symbol.asyncIterator]();
    for (let i = 0; i < 1_000; i++) expect((await rows.next()).value).toMatchObject({ _change: 'new' });
    // The lookup of the last 500 keys has not been answered: the second window waits for it.
    const after = rows.next();
    const raced = await Promise.race([after.then(() => 'row'), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    expect(raced).toBe('waiting');
    answerLast();
    expect((await after).value).toMatchObject({ sku: 'S1000', _change: 'new' });
  });

  it('a lookup that fails makes the worker give up; the export does the work itself and gives the same rows', async () => {
    const w = wired({ failLookup: true });
    const { remote, asks } = w;
    const tracking = await crawled(w);
    const out = await exported(remote, tracking, [...page1, ...page2], lines(page2));
    expect(out.rows).toEqual(expected);
    expect(out.duplicates).toBe(1);
    // Its tracking began again (what the worker had staged goes), then classify questions of its own.
    expect(asks.filter((a) => a.op === 'begin')).toHaveLength(2);
    expect(asks.filter((a) => a.op === 'classify').length).toBeGreaterThan(0);
  });

  it('a checkpoint the hashing thread cannot read makes the worker give up; the export gives the same rows', async () => {
    const w = wired();
    const { remote, relay, asks } = w;
    const tracking = workerTracking(definition, remote)!;
    tracking.given(page1);
    await new Promise((r) => setImmediate(r));
    // A line cut short: the thread fails this request (as it fails every request it holds when it dies).
    relay.observe([{ set: 0, ndjson: lines(page1).replace('"price":"3"}', '"price":') }]);
    tracking.given(page2);
    const out = await exported(remote, tracking, [...page1, ...page2], lines(page2));
    expect(out.rows).toEqual(expected);
    expect(out.duplicates).toBe(1);
    expect(asks.filter((a) => a.op === 'begin')).toHaveLength(2);
    expect(asks.filter((a) => a.op === 'lookupBegun')).toEqual([]);
  });

  it('records the worker did not see (a count that differs) make it give up too', async () => {
    const w = wired();
    const { remote, asks } = w;
    // Page 2 is counted, but neither a checkpoint nor the rest (given empty here) carries it.
    const tracking = await crawled(w);
    const out = await exported(remote, tracking, [...page1, ...page2], '');
    expect(out.rows).toEqual(expected);
    expect(asks.filter((a) => a.op === 'begin')).toHaveLength(2);
  });

  it('a beginning that fails makes the worker give up as well', async () => {
    const w = wired({ failFirstBegin: true });
    const { remote, asks } = w;
    const tracking = await crawled(w);
    const out = await exported(remote, tracking, [...page1, ...page2], lines(page2));
    expect(out.rows).toEqual(expected);
    expect(asks.filter((a) => a.op === 'lookupBegun')).toEqual([]);
  });

  it('a stage that fails after the marks were given fails the export (the Run must not end with part of its records staged)', async () => {
    const { remote, relay } = wired({ failStage: true });
    const tracking = workerTracking(definition, remote)!;
    tracking.given(page1);
    await new Promise((r) => setImmediate(r));
    relay.observe([{ set: 0, ndjson: lines(page1) }]);
    await expect(exported(remote, tracking, page1, '')).rejects.toThrow(/could not stage|connection terminated/);
  });
});
