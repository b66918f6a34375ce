// Exports of multi-valued and nested fields: JSON and NDJSON keep arrays and objects; CSV writes an array
// of scalars joined by "; " and objects (or arrays holding them) as compact JSON, one record per line;
// columns may name nested values by a dot path.
import { describe, expect, it } from 'vitest';
import { serializeRecords } from '../../src/engine/export.js';
import type { ExtractedRecord } from '../../src/engine/extract.js';

const records: ExtractedRecord[] = [
  {
    name: 'Kettle',
    tags: ['steel', 'red', null],
    offers: [
      { shop: 'A, Ltd', price: 10.5 },
      { shop: 'B', price: 9 },
    ],
    spec: { watts: 2000, colour: '=red' },
    'a.b': 'own column',
  },
  { name: 'Empty', tags: [], offers: [], spec: null },
];
const columns = [
  'name',
  'tags',
  'offers',
  'spec',
  'offers.0.price',
  'offers.1.shop',
  'spec.watts',
  'a.b',
  'offers.9.price',
];

async function text(format: 'csv' | 'json' | 'ndjson'): Promise<string> {
  let out = '';
  for await (const part of serializeRecords(format, records, columns)) out += part;
  return out;
}

describe('exports of arrays, objects and dot-path columns', () => {
  it('CSV: scalars joined by "; ", objects as compact JSON, one line per record', async () => {
    expect(await text('csv')).toBe(
      'name,tags,offers,spec,offers.0.price,offers.1.shop,spec.watts,a.b,offers.9.price\r\n' +
        'Kettle,steel; red; ,"[{""shop"":""A, Ltd"",""price"":10.5},{""shop"":""B"",""price"":9}]",' +
        '"{""watts"":2000,""colour"":""=red""}",10.5,B,2000,own column,\r\n' +
        'Empty,,,,,,,,\r\n',
    );
  });

  it('JSON and NDJSON keep arrays and objects as they are', async () => {
    const first =
      '{"name":"Kettle","tags":["steel","red",null],"offers":[{"shop":"A, Ltd","price":10.5},{"shop":"B","price":9}],' +
      '"spec":{"watts":2000,"colour":"=red"},"offers.0.price":10.5,"offers.1.shop":"B","spec.watts":2000,"a.b":"own column","offers.9.price":null}';
    const second =
      '{"name":"Empty","tags":[],"offers":[],"spec":null,"offers.0.price":null,"offers.1.shop":null,"spec.watts":null,"a.b":null,"offers.9.price":null}';
    expect(await text('ndjson')).toBe(`${first}\n${second}\n`);
    expect(await text('json')).toBe(`[\n${first},\n${second}\n]\n`);
  });
});
