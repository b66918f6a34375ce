import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runExtraction } from '../../src/engine/crawler.js';
import { createRunLog, csvField, exportRecords } from '../../src/engine/export.js';
import type { ExtractedRecord } from '../../src/engine/extract.js';
import { LocalStorage } from '../../src/storage/index.js';
import { startFixtureSite } from '../helpers/fixture-site.js';

let root: string;
let storage: LocalStorage;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'engine-export-'));
  storage = new LocalStorage(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const read = (key: string) => readFile(path.join(root, key), 'utf8');

const tricky: ExtractedRecord[] = [
  { name: 'Plain', price: 12.5, note: null },
  { name: 'Comma, inside', price: 0, note: 'say "hi"' },
  { name: 'Line\nbreak', price: -1.25, note: 'cr\rhere' },
  { name: 'Ünïcödé ✓', price: 1e21, note: ' spaced ' },
];

describe('CSV', () => {
  it('quotes per RFC 4180 with CRLF line endings', async () => {
    const [file] = await exportRecords({
      storage,
      keyPrefix: 'runs/1',
      format: 'csv',
      columns: ['name', 'price', 'note', 'missing'],
      sets: [{ set: 1, records: tricky }],
    });
    const expected =
      'name,price,note,missing\r\n' +
      'Plain,12.5,,\r\n' +
      '"Comma, inside",0,"say ""hi""",\r\n' +
      '"Line\nbreak",-1.25,"cr\rhere",\r\n' +
      'Ünïcödé ✓,1e+21, spaced ,\r\n';
    expect(await read('runs/1/data.csv')).toBe(expected);
    expect(file).toEqual({
      key: 'runs/1/data.csv',
      name: 'data.csv',
      fileType: 'Csv',
      contentType: 'text/csv; charset=utf-8',
      size: Buffer.byteLength(expected),
      records: 4,
    });
  });

  it('quotes header names too and writes only the header when there are no records', async () => {
    await exportRecords({ storage, keyPrefix: 'runs/2', format: 'csv', columns: ['a,b', 'c"d'], sets: [] });
    expect(await read('runs/2/data.csv')).toBe('"a,b","c""d"\r\n');
    expect(csvField(null)).toBe('');
    expect(csvField('x')).toBe('x');
  });
});

describe('JSON and NDJSON', () => {
  const records: ExtractedRecord[] = [
    { b: 'two', a: 1, '2024': 'year' },
    { a: null, b: 'quote " and \\ and \n' },
  ];

  it('JSON: one compact object per line inside [ ], in column order', async () => {
    const [file] = await exportRecords({
      storage,
      keyPrefix: 'runs/3',
      format: 'json',
      columns: ['a', 'b', '2024'],
      sets: [{ set: 1, records }],
    });
    const expected =
      '[\n{"a":1,"b":"two","2024":"year"},\n{"a":null,"b":"quote \\" and \\\\ and \\n","2024":null}\n]\n';
    expect(await read('runs/3/data.json')).toBe(expected);
    expect(JSON.parse(expected)).toHaveLength(2);
    expect(file).toMatchObject({
      name: 'data.json',
      fileType: 'Json',
      contentType: 'application/json',
      size: Buffer.byteLength(expected),
      records: 2,
    });
  });

  it('JSON: an empty export is []', async () => {
    await exportRecords({
      storage,
      keyPrefix: 'runs/4',
      format: 'json',
      columns: ['a'],
      sets: [{ set: 1, records: [] }],
    });
    expect(await read('runs/4/data.json')).toBe('[]\n');
  });

  it('NDJSON: one object per line, each terminated by \\n', async () => {
    const [file] = await exportRecords({
      storage,
      keyPrefix: 'runs/5',
      format: 'ndjson',
      columns: ['b', 'a'],
      sets: [{ set: 1, records }],
    });
    const expected = '{"b":"two","a":1}\n{"b":"quote \\" and \\\\ and \\n","a":null}\n';
    expect(await read('runs/5/data.ndjson')).toBe(expected);
    expect(file).toMatchObject({ fileType: 'Ndjson', contentType: 'application/x-ndjson', records: 2 });
    await exportRecords({ storage, keyPrefix: 'runs/6', format: 'ndjson', columns: ['a'], sets: [] });
    expect(await read('runs/6/data.ndjson')).toBe('');
  });
});

describe('parallel export', () => {
  const sets = [
    { set: 1, records: [{ n: 1 }, { n: 2 }] },
    { set: 2, records: [{ n: 3 }] },
  ];

  it('Combined writes one file with all sets in order', async () => {
    const files = await exportRecords({
      storage,
      keyPrefix: 'runs/7/',
      baseName: 'products',
      format: 'csv',
      columns: ['n'],
      sets,
      parallelExport: 'Combined',
    });
    expect(files.map((f) => [f.key, f.records])).toEqual([['runs/7/products.csv', 3]]);
    expect(await read('runs/7/products.csv')).toBe('n\r\n1\r\n2\r\n3\r\n');
  });

  it('Separated writes one file per set', async () => {
    const files = await exportRecords({
      storage,
      keyPrefix: 'runs/8',
      format: 'ndjson',
      columns: ['n'],
      sets,
      parallelExport: 'Separated',
    });
    expect(files.map((f) => [f.name, f.records, f.size])).toEqual([
      ['data-set1.ndjson', 2, 16],
      ['data-set2.ndjson', 1, 8],
    ]);
    expect(await read('runs/8/data-set1.ndjson')).toBe('{"n":1}\n{"n":2}\n');
    expect(await read('runs/8/data-set2.ndjson')).toBe('{"n":3}\n');
  });

  it('streams large exports correctly', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: `row ${i}, "quoted"` }));
    const [file] = await exportRecords({
      storage,
      keyPrefix: 'runs/9',
      format: 'csv',
      columns: ['id', 'text'],
      sets: [{ set: 1, records: many }],
    });
    const content = await read('runs/9/data.csv');
    expect(file.size).toBe(Buffer.byteLength(content));
    const lines = content.split('\r\n');
    expect(lines).toHaveLength(20_002);
    expect(lines[20_000]).toBe('19999,"row 19999, ""quoted"""');
  });
});

describe('run log', () => {
  const clock = () => {
    let t = Date.parse('2026-01-01T00:00:00.000Z');
    return () => new Date((t += 1000) - 1000);
  };

  it('writes timestamped lines filtered by level with secrets masked', async () => {
    const runLog = createRunLog(storage, 'runs/10/log.txt', {
      logLevel: 'Warning',
      secrets: ['p@ss word'],
      now: clock(),
    });
    runLog.log('Info', 'not kept');
    runLog.log('Warning', 'fetching https://x.example/?key=p%40ss%20word');
    runLog.log('Error', 'bad p@ss word\nsecond line');
    runLog.log('Fatal', 'the end');
    const files = await runLog.finish();
    const expected =
      '2026-01-01T00:00:00.000Z [Warning] fetching https://x.example/?key=********\n' +
      '2026-01-01T00:00:01.000Z [Error] bad ******** second line\n' +
      '2026-01-01T00:00:02.000Z [Fatal] the end\n';
    expect(await read('runs/10/log.txt')).toBe(expected);
    expect(files).toEqual([
      {
        key: 'runs/10/log.txt',
        name: 'log.txt',
        fileType: 'Log',
        contentType: 'text/plain; charset=utf-8',
        size: Buffer.byteLength(expected),
      },
    ]);
    runLog.log('Fatal', 'after finish is ignored');
    expect(runLog.lines()).toHaveLength(3);
  });

  it.each([
    ['Fatal', ['Fatal']],
    ['Error', ['Fatal', 'Error']],
    ['Warning', ['Fatal', 'Error', 'Warning']],
    ['Info', ['Fatal', 'Error', 'Warning', 'Info']],
  ] as const)('level %s keeps %j', async (logLevel, kept) => {
    const runLog = createRunLog(storage, 'x/log.txt', { logLevel });
    for (const level of ['Info', 'Warning', 'Error', 'Fatal'] as const) runLog.log(level, level);
    expect(runLog.lines().map((l) => l.split(' ')[1])).toEqual(
      ['Info', 'Warning', 'Error', 'Fatal'].filter((l) => kept.includes(l as never)).map((l) => `[${l}]`),
    );
    // Finished, so its pending write does not land after the test's folder is removed (and make it again).
    await runLog.finish();
  });

  it('saves failed pages as HTML only in TextAndHtml mode, masked', async () => {
    const failedPages = [
      { url: 'http://x/a', status: 403, error: 'blocked', html: '<h1>Denied for token-123</h1>' },
      { url: 'http://x/b', error: 'timed out' },
      { url: 'http://x/c', status: 500, error: 'boom', html: '<p>oops</p>' },
    ];
    const text = createRunLog(storage, 'runs/11/log.txt', { logMode: 'Text' });
    expect((await text.finish(failedPages)).map((f) => f.name)).toEqual(['log.txt']);

    const withHtml = createRunLog(storage, 'runs/12/log.txt', {
      logMode: 'TextAndHtml',
      secrets: ['token-123'],
      now: clock(),
    });
    const files = await withHtml.finish(failedPages);
    expect(files.map((f) => [f.key, f.fileType, f.contentType])).toEqual([
      ['runs/12/log.txt', 'Log', 'text/plain; charset=utf-8'],
      ['runs/12/failed-page-1.html', 'Html', 'text/html; charset=utf-8'],
      ['runs/12/failed-page-2.html', 'Html', 'text/html; charset=utf-8'],
    ]);
    expect(await read('runs/12/failed-page-1.html')).toBe('<h1>Denied for ********</h1>');
    expect(await read('runs/12/failed-page-2.html')).toBe('<p>oops</p>');
    expect(await read('runs/12/log.txt')).toBe(
      '2026-01-01T00:00:00.000Z [Info] HTML of failed page http://x/a saved as failed-page-1.html\n' +
        '2026-01-01T00:00:01.000Z [Info] HTML of failed page http://x/c saved as failed-page-2.html\n',
    );
  });

  it('never lets an encrypted parameter value reach the log file of a real run', async () => {
    const site = await startFixtureSite();
    try {
      const secret = 'S3cr3t/Value+1';
      const runLog = createRunLog(storage, 'runs/13/log.txt', {
        logLevel: 'Info',
        logMode: 'TextAndHtml',
        secrets: [secret],
      });
      const result = await runExtraction({
        definition: {
          startUrl: `${site.url}/search?q={{q}}`,
          parameters: [{ name: 'q', encrypted: true }],
          list: { selector: '.result', fields: [{ name: 'query', selector: '.query' }] },
          follow: { selector: '.nothing', fields: [{ name: 'x' }] },
        },
        inputRows: [{ q: secret }],
        allowPrivateTargets: true,
        maxConcurrency: 2,
        signal: new AbortController().signal,
        log: runLog.log,
        secrets: [secret],
      });
      expect(result.sets[0].records).toHaveLength(3);
      await runLog.finish(result.failedPages);
      const logText = await read('runs/13/log.txt');
      expect(logText).toContain('search?q=********');
      expect(logText).not.toContain('S3cr3t');
      expect(logText).not.toContain(encodeURIComponent(secret));
      const all = await readdir(path.join(root, 'runs/13'));
      expect(all).toEqual(['log.txt']);
    } finally {
      await site.close();
    }
  });
});
