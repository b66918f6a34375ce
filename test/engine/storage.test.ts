import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../src/engine/limiter.js';
import { createMasker } from '../../src/engine/secrets.js';
import {
  InvalidStorageKeyError,
  keySegments,
  LOCAL_WRITER_FLUSH_MS,
  LocalStorage,
  StorageNotFoundError,
} from '../../src/storage/index.js';

let root: string;
let storage: LocalStorage;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'engine-storage-'));
  storage = new LocalStorage(path.join(root, 'files'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('LocalStorage', () => {
  it('puts, stats, gets and replaces files from streams and async iterables', async () => {
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
    // No temporary files are left behind.
    expect(await readdir(path.join(root, 'files/runs/1'))).toEqual(['data.csv']);
  });

  it('keeps the previous content and no temp file when a write fails', async () => {
    await storage.put('a/b.txt', Readable.from(['old']));
    async function* failing() {
      yield 'partial';
      throw new Error('source broke');
    }
    await expect(storage.put('a/b.txt', failing())).rejects.toThrow('source broke');
    expect(await text(await storage.get('a/b.txt'))).toBe('old');
    expect(await readdir(path.join(root, 'files/a'))).toEqual(['b.txt']);
  });

  it('a log writer ignores writes after close, closes its file once, and reports a folder it cannot make', async () => {
    const writer = storage.openWriter('runs/9/run.log');
    writer.write('one\n');
    expect(await writer.close()).toEqual({ size: 4 });
    writer.write('late\n');
    // A second close neither closes a descriptor again (another file's by now) nor rewrites the file.
    const other = storage.openWriter('runs/9/other.log');
    other.write('kept\n');
    // Its flush opens its file, most likely under the number the first writer's file had.
    await new Promise((r) => setTimeout(r, LOCAL_WRITER_FLUSH_MS + 50));
    expect(await writer.close()).toEqual({ size: 4 });
    other.write('more\n');
    expect(await other.close()).toEqual({ size: 10 });
    expect(await text(await storage.get('runs/9/run.log'))).toBe('one\n');
    expect(await text(await storage.get('runs/9/other.log'))).toBe('kept\nmore\n');
    // A file where the folder should be: the open fails, and close says so.
    await writeFile(path.join(root, 'files', 'runs', 'blocked'), 'x');
    const blocked = storage.openWriter('runs/blocked/run.log');
    blocked.write('lost\n');
    await expect(blocked.close()).rejects.toThrow(/EEXIST|ENOTDIR/);
  });

  it('reports missing keys', async () => {
    expect(await storage.stat('nope/x.csv')).toBeNull();
    await expect(storage.get('nope/x.csv')).rejects.toBeInstanceOf(StorageNotFoundError);
    await storage.put('dir/file.txt', Readable.from(['x']));
    expect(await storage.stat('dir')).toBeNull(); // a directory is not a file
    await expect(storage.get('dir')).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it('deletes a key or a whole prefix', async () => {
    await storage.put('runs/1/data.csv', Readable.from(['1']));
    await storage.put('runs/1/log.txt', Readable.from(['2']));
    await storage.put('runs/12/data.csv', Readable.from(['3']));
    await storage.delete('runs/1/log.txt');
    expect(await storage.stat('runs/1/log.txt')).toBeNull();
    expect(await storage.stat('runs/1/data.csv')).toEqual({ size: 1 });
    await storage.delete('runs/1/');
    expect(await storage.stat('runs/1/data.csv')).toBeNull();
    expect(await storage.stat('runs/12/data.csv')).toEqual({ size: 1 }); // prefixes are whole path segments
    await storage.delete('runs/does-not-exist');
  });

  it.each([
    ['', 'empty'],
    ['../escape.txt', "'..' segments"],
    ['runs/../../etc/passwd', "'..' segments"],
    ['runs/./x', "'.' segments"],
    ['/etc/passwd', 'absolute'],
    ['C:/windows/x', 'absolute'],
    ['runs\\..\\x', 'backslash'],
    ['runs//x', 'empty path segment'],
    ['runs/x\0.csv', 'NUL'],
  ])('refuses the key %j (%s)', async (key, reason) => {
    expect(() => keySegments(key)).toThrow(InvalidStorageKeyError);
    expect(() => keySegments(key)).toThrow(reason);
    await expect(storage.put(key, Readable.from(['x']))).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
  });

  it('never writes outside its root', async () => {
    await writeFile(path.join(root, 'outside.txt'), 'keep');
    await expect(storage.put('../outside.txt', Readable.from(['x']))).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.delete('..')).rejects.toThrow(InvalidStorageKeyError);
    expect((await readdir(root)).sort()).toEqual(['outside.txt']);
  });
});

describe('ConcurrencyLimiter', () => {
  it('bounds active tasks and hands slots over in order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let active = 0;
    let max = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.run(async () => {
          active++;
          max = Math.max(max, active);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          active--;
        }),
      ),
    );
    expect(max).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limiter.active).toBe(0);
  });

  it('removes an aborted waiter from the queue', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    expect(limiter.pending).toBe(1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(limiter.pending).toBe(0);
    release();
    expect(limiter.active).toBe(0);
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
  });

  it('rejects every waiter of an aborted signal and keeps the others in order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const stopped = new AbortController();
    const other = new AbortController();
    const a = limiter.acquire(stopped.signal);
    const b = limiter.acquire(other.signal);
    const c = limiter.acquire(stopped.signal);
    const d = limiter.acquire();
    stopped.abort(new Error('stop'));
    await expect(a).rejects.toThrow('stop');
    await expect(c).rejects.toThrow('stop');
    expect(limiter.pending).toBe(2);
    release();
    (await b)();
    (await d)();
    expect(limiter.active).toBe(0);
    // An already aborted signal is refused at once, even with a free slot.
    await expect(limiter.acquire(stopped.signal)).rejects.toThrow('stop');
  });
});

describe('createMasker', () => {
  it('masks raw, URL-encoded and HTML-escaped forms, longest first', () => {
    const mask = createMasker(['a b&c', 'abc', '']);
    expect(mask('x a b&c y a%20b%26c z a+b%26c w a b&amp;c abcd')).toBe(
      'x ******** y ******** z ******** w ******** ********d',
    );
    expect(createMasker([])('unchanged')).toBe('unchanged');
  });
});
