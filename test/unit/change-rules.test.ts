// The pure rules of `key` and `changes`: save-time problems, record keys and hashes, which `_change`
// rows each export mode keeps, and the export pass of a run process (duplicates across sets, deleted rows
// after the last set, none after a stop) against an in-memory stand-in for the worker's answers.
import { changesAhead } from '../../src/jobs/run-changes-ahead.js';
import { describe, expect, it } from 'vitest';
import {
  changeKindOf,
  exportsChange,
  keyProblems,
  recordKeyOf,
  validateDefinition,
  valuesHashOf,
  type AgentDefinition,
  type ExtractedRecord,
} from '../../src/engine/index.js';
import { trackedColumnsOf, trackedSets } from '../../src/jobs/run-changes.js';
import { fakeWorker } from '../helpers/changes-fake.js';

const list = { selector: 'li', fields: [{ name: 'sku' }, { name: 'price' }] };
const follow = { selector: 'a', fields: [{ name: 'desc' }] };

describe('keyProblems', () => {
  it('names a key field that is not a field, and changes without key', () => {
    expect(keyProblems({ list, key: ['sku', 'ean'] })).toEqual(["key[1]: 'ean' is not the name of a field"]);
    expect(keyProblems({ list, changes: { export: 'all', trackDeletes: false } })).toEqual([
      'changes: needs key (the fields that identify a record)',
    ]);
  });
  it('skipUnchangedDetails needs follow and a key read on the list page', () => {
    const changes = { export: 'all' as const, trackDeletes: false, skipUnchangedDetails: true };
    expect(keyProblems({ list, key: ['sku'], changes })).toEqual([
      'changes.skipUnchangedDetails: applies only when the definition has follow',
    ]);
    expect(keyProblems({ list, follow, key: ['desc'], changes })).toEqual([
      "changes.skipUnchangedDetails: key field 'desc' must be read on the list page, not on the detail page",
    ]);
    expect(keyProblems({ list, follow, key: ['sku'], changes })).toEqual([]);
  });
  it('is part of validateDefinition', () => {
    const def = { startUrl: 'https://a.example/', list, key: ['nope'] };
    expect(validateDefinition(def)).toEqual({ valid: false, problems: ["key[0]: 'nope' is not the name of a field"] });
  });
});

describe('keys, hashes and change kinds', () => {
  it('a key is the same for the same key values, whatever the other values', () => {
    expect(recordKeyOf({ sku: 'A', price: '1' }, ['sku'])).toBe(recordKeyOf({ sku: 'A', price: '2' }, ['sku']));
    expect(recordKeyOf({ sku: 'A' }, ['sku'])).not.toBe(recordKeyOf({ sku: 'B' }, ['sku']));
    expect(recordKeyOf({ sku: null }, ['sku'])).toBeNull();
    expect(recordKeyOf({ sku: 'A', ean: '' }, ['sku', 'ean'])).not.toBeNull();
  });
  it('a values hash depends on the named values in order', () => {
    expect(valuesHashOf({ a: 1, b: 2 }, ['a', 'b'])).toBe(valuesHashOf({ b: 2, a: 1, c: 9 }, ['a', 'b']));
    expect(valuesHashOf({ a: 1, b: 2 }, ['a', 'b'])).not.toBe(valuesHashOf({ a: 1, b: 3 }, ['a', 'b']));
  });
  it('new, updated, unchanged; and which ones each export mode keeps', () => {
    expect(changeKindOf('h', null)).toBe('new');
    expect(changeKindOf('h', 'h')).toBe('unchanged');
    expect(changeKindOf('h', 'g')).toBe('updated');
    const kinds = ['new', 'updated', 'unchanged', 'deleted'] as const;
    expect(kinds.filter((k) => exportsChange('all', k))).toEqual(['new', 'updated', 'unchanged', 'deleted']);
    expect(kinds.filter((k) => exportsChange('changed', k))).toEqual(['new', 'updated', 'deleted']);
    expect(kinds.filter((k) => exportsChange('new', k))).toEqual(['new', 'deleted']);
  });
});

async function* of(records: ExtractedRecord[]) {
  yield* records;
}
async function collect(sets: Array<{ set: number; records: AsyncIterable<ExtractedRecord> }>) {
  const out: ExtractedRecord[][] = [];
  for (const s of sets) {
    const rows: ExtractedRecord[] = [];
    for await (const r of s.records) rows.push(r);
    out.push(rows);
  }
  return out;
}

describe('trackedSets (a run process’s export pass)', () => {
  const def = (changes?: AgentDefinition['changes']): AgentDefinition => ({
    startUrl: 'https://a.example/',
    list,
    key: ['sku'],
    ...(changes ? { changes } : {}),
  });
  const key = (sku: string) => recordKeyOf({ sku }, ['sku'])!;
  const hash = (r: ExtractedRecord) => valuesHashOf(r, ['price']);

  it('key alone: the first record of each key across sets, duplicates counted, no _change column', async () => {
    const { changes } = fakeWorker(new Map());
    const counts = { duplicates: 0 };
    const sets = await trackedSets(
      def(),
      changes,
      [
        {
          set: 1,
          records: of([
            { sku: 'A', price: '1' },
            { sku: 'B', price: '2' },
            { sku: 'A', price: '9' },
          ]),
        },
        {
          set: 2,
          records: of([
            { sku: 'B', price: '3' },
            { sku: 'C', price: '4' },
          ]),
        },
      ],
      { partial: false },
      counts,
    );
    expect(await collect(sets)).toEqual([
      [
        { sku: 'A', price: '1' },
        { sku: 'B', price: '2' },
      ],
      [{ sku: 'C', price: '4' }],
    ]);
    expect(counts.duplicates).toBe(2);
    expect(trackedColumnsOf(def())).toEqual(['sku', 'price']);
  });

  it('what the crawl did ahead (lookup, stage) is not asked again; records it did not see are classified and staged as before', async () => {
    const known = new Map<string, [string, ExtractedRecord]>([
      [key('A'), [hash({ price: '1' }), { sku: 'A', price: '1' }]],
      [key('Z'), [hash({ price: '5' }), { sku: 'Z', price: '5' }]],
    ]);
    const { changes, asks } = fakeWorker(known);
    const definition = def({ export: 'all', trackDeletes: true });
    const ahead = changesAhead(definition, changes, { stage: true })!;
    const crawled: ExtractedRecord[] = [
      { sku: 'A', price: '1' },
      { sku: 'B', price: '2' },
    ];
    ahead.observe(crawled);
    const expected = [
      { sku: 'A', price: '1', _change: 'unchanged' },
      { sku: 'B', price: '2', _change: 'new' },
      { sku: 'Z', price: '5', _change: 'deleted' },
    ];
    const run = async (records: ExtractedRecord[]) =>
      (
        await collect(
          await trackedSets(
            definition,
            changes,
            [{ set: 1, records: of(records) }],
            { partial: false, ahead },
            {
              duplicates: 0,
            },
          ),
        )
      ).flat();
    // The crawl's own record objects: its tracking began, one lookup question, the new record staged
    // ahead (a batch below zero); the export asks no classify, stages nothing again, keeps the keys as seen.
    expect(await run(crawled)).toEqual(expected);
    expect(asks.filter((a) => a.op === 'begin')).toHaveLength(1);
    expect(asks.filter((a) => a.op === 'lookup')).toHaveLength(1);
    const stages = asks.filter((a) => a.op === 'stage');
    expect(stages).toHaveLength(1);
    expect(stages[0]).toMatchObject({ batch: -1, keys: [key('B')] });
    expect(asks.filter((a) => a.op === 'classify')).toHaveLength(0);
    expect(asks.filter((a) => a.op === 'seen')).toHaveLength(1);
    // Records re-read from a spool file (other objects) with a key not looked up: classified.
    asks.length = 0;
    expect(
      await run([
        { sku: 'A', price: '1' },
        { sku: 'B', price: '2' },
        { sku: 'C', price: '3' },
      ]),
    ).toEqual([...expected.slice(0, 2), { sku: 'C', price: '3', _change: 'new' }, expected[2]]);
    expect(asks.filter((a) => a.op === 'classify')).toHaveLength(1);
    // C was not staged ahead: the export stages it (B was, and is not staged again).
    expect(asks.filter((a) => a.op === 'stage')).toMatchObject([{ keys: [key('C')] }]);
  });

  it("the crawl gathers its pages' keys into lookups of 1,000 and asks the rest when the export begins", async () => {
    const { changes, asks } = fakeWorker(new Map());
    const ahead = changesAhead(def({ export: 'all' }), changes, { stage: true })!;
    const page = (n: number, size: number) =>
      Array.from({ length: size }, (_, i) => ({ sku: `P${n}-${i}`, price: '1' }) as ExtractedRecord);
    const macrotask = () => new Promise((resolve) => setImmediate(resolve));
    const lookups = () => asks.filter((a) => a.op === 'lookup').map((a) => (a as { keys: string[] }).keys.length);
    // Pages of 100 records: no question until 1,000 keys are gathered, then one of them all.
    for (let n = 0; n < 9; n++) ahead.observe(page(n, 100));
    await macrotask();
    expect(lookups()).toEqual([]);
    ahead.observe(page(9, 100));
    await macrotask();
    expect(lookups()).toEqual([1000]);
    for (let n = 10; n < 15; n++) ahead.observe(page(n, 100));
    await macrotask();
    expect(lookups()).toEqual([1000]);
    // The export's start asks for the 500 gathered since, and every key has its answer.
    const { previous } = await ahead.done();
    expect(lookups()).toEqual([1000, 500]);
    expect(previous.size).toBe(1500);
    await ahead.settled();
    // Every key was new: staged once per answer, in the order the records came.
    const stages = asks.filter((a) => a.op === 'stage') as Array<{ keys: string[] }>;
    expect(stages.map((s) => s.keys.length)).toEqual([1000, 500]);
    expect(stages[0].keys[0]).toBe(key('P0-0'));
  });

  it('changes: {} exports every record marked, and no deleted rows (the defaults)', async () => {
    const known = new Map<string, [string, ExtractedRecord]>([
      [key('A'), [hash({ price: '1' }), { sku: 'A', price: '1' }]],
      [key('Z'), [hash({ price: '5' }), { sku: 'Z', price: '5' }]],
    ]);
    const { changes, asks } = fakeWorker(known);
    const sets = await trackedSets(
      def({}),
      changes,
      [
        {
          set: 1,
          records: of([
            { sku: 'A', price: '1' },
            { sku: 'B', price: '2' },
          ]),
        },
      ],
      { partial: false },
      { duplicates: 0 },
    );
    expect((await collect(sets)).flat()).toEqual([
      { sku: 'A', price: '1', _change: 'unchanged' },
      { sku: 'B', price: '2', _change: 'new' },
    ]);
    expect(asks).toContainEqual({ op: 'begin', trackDeletes: false });
    expect(asks.filter((a) => a.op === 'unseenAfter')).toHaveLength(0);
  });

  it('changes: marked rows, the mode’s filter, deleted rows after the last set only', async () => {
    const known = new Map<string, [string, ExtractedRecord]>([
      [key('A'), [hash({ price: '1' }), { sku: 'A', price: '1' }]],
      [key('B'), [hash({ price: '2' }), { sku: 'B', price: '2' }]],
      [key('Z'), [hash({ price: '7' }), { sku: 'Z', price: '7' }]],
    ]);
    const run = async (mode: 'all' | 'changed' | 'new', stopped = false) => {
      const { changes, asks } = fakeWorker(known);
      const sets = await trackedSets(
        def({ export: mode, trackDeletes: true }),
        changes,
        [
          {
            set: 1,
            records: of([
              { sku: 'A', price: '1' },
              { sku: 'B', price: '5' },
            ]),
          },
          { set: 2, records: of([{ sku: 'C', price: '3' }]) },
        ],
        { partial: stopped },
        { duplicates: 0 },
      );
      return { rows: await collect(sets), asks };
    };
    const all = await run('all');
    expect(all.rows).toEqual([
      [
        { sku: 'A', price: '1', _change: 'unchanged' },
        { sku: 'B', price: '5', _change: 'updated' },
      ],
      [
        { sku: 'C', price: '3', _change: 'new' },
        { sku: 'Z', price: '7', _change: 'deleted' },
      ],
    ]);
    expect(all.asks[0]).toEqual({ op: 'begin', trackDeletes: true });
    // Each set's batch is classified by its keys alone; only the new and updated records are staged.
    expect(all.asks.filter((a) => a.op === 'classify')).toEqual([
      { op: 'classify', batch: 1, keys: [key('A'), key('B')] },
      { op: 'classify', batch: 2, keys: [key('C')] },
    ]);
    expect(all.asks.flatMap((a) => (a.op === 'stage' ? a.values : []))).toEqual([
      JSON.stringify({ sku: 'B', price: '5' }),
      JSON.stringify({ sku: 'C', price: '3' }),
    ]);
    expect((await run('changed')).rows.flat().map((r) => r._change)).toEqual(['updated', 'new', 'deleted']);
    expect((await run('new')).rows.flat().map((r) => r._change)).toEqual(['new', 'deleted']);
    // A stopped Run did not look everywhere: it reports nothing deleted.
    expect((await run('all', true)).rows.flat().map((r) => r._change)).toEqual(['unchanged', 'updated', 'new']);
    expect(trackedColumnsOf(def({ export: 'all', trackDeletes: true }))).toEqual(['sku', 'price', '_change']);
  });

  it('deleted rows: every known key the Run did not see, in key order, over several pages of keys', async () => {
    const known = new Map<string, [string, ExtractedRecord]>(
      Array.from({ length: 12_001 }, (_, i) => {
        const record = { sku: `S${i}`, price: '1' };
        return [key(record.sku), [hash(record), record]] as [string, [string, ExtractedRecord]];
      }),
    );
    const { changes, asks } = fakeWorker(known);
    const sets = await trackedSets(
      def({ export: 'changed', trackDeletes: true }),
      changes,
      [
        {
          set: 1,
          records: of([
            { sku: 'S5', price: '1' },
            { sku: 'S7', price: '2' },
          ]),
        },
      ],
      { partial: false },
      { duplicates: 0 },
    );
    const rows = (await collect(sets)).flat();
    expect(rows[0]).toEqual({ sku: 'S7', price: '2', _change: 'updated' });
    const deleted = rows.slice(1);
    expect(deleted).toHaveLength(11_999);
    expect(deleted.every((r) => r._change === 'deleted')).toBe(true);
    const deletedKeys = deleted.map((r) => key(r.sku as string));
    expect(deletedKeys).toEqual([...known.keys()].filter((k) => k !== key('S5') && k !== key('S7')).sort());
    // 11,999 deleted rows in pages of 2,000.
    expect(asks.filter((a) => a.op === 'unseenAfter')).toHaveLength(6);
  });
});
