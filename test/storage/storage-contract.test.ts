// One contract, both drivers: the local folder and S3 (against the real S3-compatible server the
// global setup starts). Whatever the services rely on of a Storage is asserted here for each.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidStorageKeyError, LocalStorage, S3_PART_BYTES, S3Storage, StorageNotFoundError, type Storage } from '../../src/storage/index.js';
import { testS3Options } from '../helpers/s3-server.js';

interface Driver {
  name: string;
  make(): Promise<Storage>;
  /** What is left of half-done writes (temp files, multipart uploads): must be nothing. */
  leftovers(storage: Storage): Promise<string[]>;
  /** What a process killed in the middle of `put(key)` leaves behind. */
  abandonPut(storage: Storage, key: string): Promise<void>;
  cleanup(): Promise<void>;
}

let localRoot = '';
const s3Options = testS3Options();
const drivers: Driver[] = [
  {
    name: 'local',
    async make() {
      localRoot = await mkdtemp(path.join(tmpdir(), 'storage-contract-'));
      return new LocalStorage(localRoot);
    },
    async leftovers(storage) {
      const names = await storage.list('runs/9');
      return names.filter((n) => n.endsWith('.tmp'));
    },
    async abandonPut(storage, key) {
      const file = (storage as LocalStorage).pathOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(`${file}.0123456789ab.tmp`, 'half');
    },
    cleanup: () => rm(localRoot, { recursive: true, force: true }),
  },
  {
    name: 's3',
    async make() {
      return new S3Storage(s3Options);
    },
    async leftovers(storage) {
      const s3 = storage as S3Storage;
      const out = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: testS3Options().bucket }));
      return (out.Uploads ?? []).map((u) => u.Key as string).filter((k) => k.includes('runs/9/'));
    },
    async abandonPut(storage, key) {
      const s3 = storage as S3Storage;
      const { bucket, prefix } = s3Options;
      const Key = `${prefix}/${key}`;
      const { UploadId } = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
      await s3.client.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId, PartNumber: 1, Body: 'half' }));
    },
    cleanup: async () => {},
  },
];

async function* failingAfter(bytes: number): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
  throw new Error('the records source failed');
}

describe.each(drivers)('Storage contract: $name', (driver) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await driver.make();
  });
  afterAll(async () => {
    await storage.delete('runs');
    await driver.cleanup();
  });

  it('puts, stats, gets and replaces objects from streams and async iterables', async () => {
    expect(await storage.put('runs/1/data.csv', Readable.from(['a,b\r\n', Buffer.from('1,2\r\n')]))).toEqual({
      size: 10,
    });
    expect(await storage.stat('runs/1/data.csv')).toEqual({ size: 10 });
    expect(await text(await storage.get('runs/1/data.csv'))).toBe('a,b\r\n1,2\r\n');
    async function* generate() {
      yield 'é';
      yield Buffer.from([0x21]);
    }
    expect(await storage.put('runs/1/data.csv', generate())).toEqual({ size: 3 });
    expect(await text(await storage.get('runs/1/data.csv'))).toBe('é!');
    expect(await storage.put('runs/1/empty.txt', Readable.from([]))).toEqual({ size: 0 });
    expect(await storage.stat('runs/1/empty.txt')).toEqual({ size: 0 });
  });

  it('answers not found for missing keys: get rejects, stat is null, list is empty, delete is no error', async () => {
    await expect(storage.get('runs/404/none.csv')).rejects.toBeInstanceOf(StorageNotFoundError);
    expect(await storage.stat('runs/404/none.csv')).toBeNull();
    expect(await storage.list('runs/404')).toEqual([]);
    await storage.delete('runs/404');
  });

  it('lists names directly under a prefix and deletes a key or a whole prefix', async () => {
    await storage.put('runs/2/a.csv', Readable.from(['a']));
    await storage.put('runs/2/b.log', Readable.from(['b']));
    await storage.put('runs/2/sub/c.txt', Readable.from(['c']));
    await storage.put('runs/20/d.txt', Readable.from(['d']));
    expect((await storage.list('runs/2')).sort()).toEqual(['a.csv', 'b.log', 'sub']);
    expect((await storage.list('runs/')).filter((n) => n === '2' || n === '20').sort()).toEqual(['2', '20']);
    await storage.delete('runs/2/a.csv');
    expect((await storage.list('runs/2')).sort()).toEqual(['b.log', 'sub']);
    await storage.delete('runs/2');
    expect(await storage.list('runs/2')).toEqual([]);
    // A sibling that shares the name's beginning is not under the prefix.
    expect(await storage.stat('runs/20/d.txt')).toEqual({ size: 1 });
  });

  it('appends to a key, creating it first', async () => {
    await storage.append('runs/3/run.log', 'one\n');
    await storage.append('runs/3/run.log', 'two\n');
    expect(await text(await storage.get('runs/3/run.log'))).toBe('one\ntwo\n');
  });

  it('writes a log piece by piece, and what was written is stored before close', async () => {
    const writer = storage.openWriter('runs/4/run.log');
    writer.write('first line\n');
    writer.write('second line\n');
    // A process killed now keeps these lines: the local file has them within 100 ms, S3 within its ship interval.
    for (let i = 0; i < 100 && (await storage.stat('runs/4/run.log'))?.size !== 23; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await text(await storage.get('runs/4/run.log'))).toBe('first line\nsecond line\n');
    writer.write('third\n');
    expect(await writer.close()).toEqual({ size: 29 });
    expect(await text(await storage.get('runs/4/run.log'))).toBe('first line\nsecond line\nthird\n');
  });

  it('a put whose source fails leaves the previous object, no object part and no half-written file', async () => {
    await storage.put('runs/9/data.csv', Readable.from(['old']));
    // More than two parts, so S3 has a multipart upload under way when the source fails.
    await expect(storage.put('runs/9/data.csv', failingAfter(S3_PART_BYTES * 2 + 1))).rejects.toThrow(
      /records source failed/,
    );
    expect(await text(await storage.get('runs/9/data.csv'))).toBe('old');
    await expect(storage.put('runs/9/new.csv', failingAfter(1))).rejects.toThrow(/records source failed/);
    expect(await storage.stat('runs/9/new.csv')).toBeNull();
    expect(await driver.leftovers(storage)).toEqual([]);
    expect((await storage.list('runs/9')).sort()).toEqual(['data.csv']);
  });

  it('walks every object under a prefix with its size; lists and discards half-done writes', async () => {
    await storage.put('runs/11/data.csv', Readable.from(['abc']));
    await storage.put('runs/11/sub/page.html', Readable.from(['<p>']));
    await storage.put('runs/110/run.log', Readable.from(['x']));
    await driver.abandonPut(storage, 'runs/11/big.csv');
    await driver.abandonPut(storage, 'runs/12/data.csv');
    const walked = [];
    for await (const page of storage.walk('runs/11')) walked.push(...page);
    expect(walked.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: 'runs/11/data.csv', size: 3 },
      { key: 'runs/11/sub/page.html', size: 3 },
    ]);
    expect((await storage.listIncomplete('runs')).filter((k) => /^runs\/1[12]\//.test(k)).sort()).toEqual(
      driver.name === 'local'
        ? ['runs/11/big.csv.0123456789ab.tmp', 'runs/12/data.csv.0123456789ab.tmp']
        : ['runs/11/big.csv', 'runs/12/data.csv'],
    );
    expect(await storage.discardIncomplete('runs/11')).toBe(1);
    expect(await storage.listIncomplete('runs/11')).toEqual([]);
    expect(await storage.listIncomplete('runs/12')).toHaveLength(1);
    expect(await storage.discardIncomplete('runs/12')).toBe(1);
    expect(await storage.stat('runs/11/data.csv')).toEqual({ size: 3 });
  });

  it('refuses keys that would leave the store', async () => {
    for (const key of ['../x', 'runs/../../x', '/etc/passwd', 'a\\b', 'a//b', '']) {
      await expect(storage.put(key, Readable.from(['x']))).rejects.toBeInstanceOf(InvalidStorageKeyError);
    }
  });

  it('probes that it can be written', async () => {
    await storage.probe();
  });
});
