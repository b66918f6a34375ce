// The console's reading of Run files (console/src/records.ts): the first records of an export in each
// format, and the last lines of a long log without splitting all of it.
import { describe, expect, it } from 'vitest';
import { PREVIEW_RECORDS, headText, parseRecords } from '../../console/src/records.js';

describe('the records preview', () => {
  it('reads CSV with quoted commas, quotes and line breaks, header first, at most 100 records', () => {
    const rows = Array.from({ length: 150 }, (_, i) => `Product ${i + 1},"$1,${i}.00","say ""hi""\r\nthere"`);
    const csv = `title,price,note\r\n${rows.join('\r\n')}\r\n`;
    const records = parseRecords('data.csv', csv);
    expect(records).toHaveLength(PREVIEW_RECORDS);
    expect(records[0]).toEqual({ title: 'Product 1', price: '$1,0.00', note: 'say "hi"\r\nthere' });
    expect(records[99].title).toBe('Product 100');
  });

  it('reads NDJSON, skipping a last line cut by the byte limit', () => {
    const text = `{"a":1}\n{"a":2}\n{"a":`;
    expect(parseRecords('data.ndjson', text)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('reads a JSON array and keeps its first 100 records', () => {
    const text = JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ n: i })));
    const records = parseRecords('data.json', text);
    expect(records).toHaveLength(100);
    expect(records[99]).toEqual({ n: 99 });
  });

  it('reads only the first 2 MB of a file', async () => {
    const big = new Blob(['x'.repeat(3 * 1024 * 1024)]);
    expect((await headText(big)).length).toBe(2 * 1024 * 1024);
  });
});
