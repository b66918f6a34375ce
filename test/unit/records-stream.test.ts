// The synchronous start's streamed JSON array: correct however the stored NDJSON is cut into chunks,
// including in the middle of multi-byte UTF-8 characters.
import { describe, expect, it } from 'vitest';
import { jsonArrayFromNdjson } from '../../src/services/runs/records-stream.js';

const records = [
  { title: 'Grüße aus Köln', price: '€12,50' },
  { title: '東京タワー', note: 'line\nbreak and "quotes"' },
  { title: '🎉 party 🎈', emoji: '👩‍👩‍👧‍👦' },
  { title: 'plain', n: 3 },
];
const ndjson = Buffer.from(records.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8');

async function collect(chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const b of jsonArrayFromNdjson(
    (async function* () {
      yield* chunks;
    })(),
  ))
    out.push(b);
  return Buffer.concat(out);
}

describe('jsonArrayFromNdjson', () => {
  it('gives the records as a JSON array, byte for byte, for every two-chunk split', async () => {
    const expected = Buffer.from(JSON.stringify(records), 'utf8');
    for (let cut = 0; cut <= ndjson.length; cut++) {
      const out = await collect([ndjson.subarray(0, cut), ndjson.subarray(cut)]);
      expect(out.equals(expected), `cut at ${cut}`).toBe(true);
    }
  });

  it('survives one-byte chunks (every multi-byte character split)', async () => {
    const chunks = [...ndjson].map((b) => Buffer.from([b]));
    const out = await collect(chunks);
    expect(JSON.parse(out.toString('utf8'))).toEqual(records);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(out)).toBe(JSON.stringify(records));
  });

  it('an empty file is an empty array; blank lines are skipped', async () => {
    expect((await collect([])).toString()).toBe('[]');
    expect((await collect([Buffer.from('\n{"a":1}\n\n{"a":2}\n')])).toString()).toBe('[{"a":1},{"a":2}]');
    expect((await collect([Buffer.from('{"a":1}')])).toString()).toBe('[{"a":1}]');
  });
});
