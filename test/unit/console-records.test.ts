// The console's reading of Run files (console/src/records.ts): the first records of an export in each
// format, from the whole file or from its first 2 MiB (the browser suite checks that no more is read).
import { describe, expect, it } from 'vitest';
import { PREVIEW_RECORDS, parseRecords } from '../../console/src/records.js';

describe('the records preview', () => {
  it('reads CSV with quoted commas, quotes and line breaks, header first, at most 100 records', () => {
    const rows = Array.from({ length: 150 }, (_, i) => `Product ${i + 1},"$1,${i}.00","say ""hi""\r\nthere"`);
    const csv = `title,price,note\r\n${rows.join('\r\n')}\r\n`;
    const records = parseRecords('data.csv', csv, true);
    expect(records).toHaveLength(PREVIEW_RECORDS);
    expect(records[0]).toEqual({ title: 'Product 1', price: '$1,0.00', note: 'say "hi"\r\nthere' });
    expect(records[99].title).toBe('Product 100');
  });

  it('reads NDJSON, skipping a last line cut by the byte limit', () => {
    const text = `{"a":1}\n{"a":2}\n{"a":`;
    expect(parseRecords('data.ndjson', text, false)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('reads a JSON array and keeps its first 100 records', () => {
    const text = JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ n: i })));
    const records = parseRecords('data.json', text, true);
    expect(records).toHaveLength(100);
    expect(records[99]).toEqual({ n: 99 });
  });

  it('reads CSV cut by the byte limit up to its last whole row', () => {
    const text = 'a,b\r\n1,2\r\n3,4\r\n5,';
    expect(parseRecords('data.csv', text, false)).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('says a JSON array cut by the byte limit cannot be previewed', () => {
    expect(() => parseRecords('data.json', '[{"n":1},{"n":', false)).toThrow(/larger than 2 MiB/);
  });
});
