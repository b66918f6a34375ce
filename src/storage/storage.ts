import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** Where run files live. Keys are relative slash-separated paths such as `runs/123/data.csv`. */
export interface Storage {
  /** Writes the whole stream under `key`, replacing any previous content atomically. */
  put(key: string, stream: Readable | AsyncIterable<string | Buffer>): Promise<{ size: number }>;
  /** Rejects with a StorageNotFoundError when there is no such key. */
  get(key: string): Promise<Readable>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Deletes one key, or every key under a prefix (`runs/123` or `runs/123/`). Missing keys are no error. */
  delete(keyOrPrefix: string): Promise<void>;
  /**
   * Writes `key` piece by piece as the caller produces it (a log): what was written is stored within a
   * short interval (LOCAL_WRITER_FLUSH_MS, STORAGE_SHIP_MS) even if the process dies before `close`.
   * Replaces any previous content.
   */
  openWriter(key: string): StorageWriter;
  /** Appends text to `key`, creating it if needed. */
  append(key: string, text: string): Promise<void>;
  /** Names directly under a prefix (files and folders), [] when there is none. */
  list(prefix: string): Promise<string[]>;
  /**
   * Every object under a prefix at any depth with its size, page by page: one listing request per
   * thousand objects on S3 instead of one per folder and one per object (the hourly orphan sweep).
   */
  walk(prefix: string): AsyncIterable<StoredObject[]>;
  /**
   * Keys of the half-done writes under a prefix, at any depth, that a killed process left behind: a
   * local temporary file, an S3 multipart upload never completed nor aborted (invisible to `list`,
   * yet stored and paid for).
   */
  listIncomplete(prefix: string): Promise<string[]>;
  /** Discards the half-done writes under a prefix (a writer still at work there fails); how many. */
  discardIncomplete(prefix: string): Promise<number>;
  /**
   * A URL that serves `key` directly for a while (object stores), with the given response headers;
   * undefined when the store cannot (a local folder): the API streams the bytes instead.
   */
  presignGet?(key: string, headers: { contentType: string; contentDisposition: string }): Promise<string>;
  /** Writes and removes a small object: rejects with the store's error when it cannot be written. */
  probe(): Promise<void>;
  /**
   * Removes what writers of processes that no longer exist left on this machine's disk (an S3 log's
   * temporary file, when its run process was killed); how many. Stores that leave nothing have none.
   */
  removeAbandoned?(): Promise<number>;
}

export interface StoredObject {
  key: string;
  size: number;
}

/** A local write in progress: `put` writes `<key>.<12 hex>.tmp` and renames it into place. */
const TEMPORARY = /\.[0-9a-f]{12}\.tmp$/;

export interface StorageWriter {
  write(text: string): void;
  /** Flushes and closes; the size of the whole file. */
  close(): Promise<{ size: number }>;
}

export class InvalidStorageKeyError extends Error {
  readonly code = 'ERR_INVALID_STORAGE_KEY';
  constructor(key: string, reason: string) {
    super(`invalid storage key '${key}': ${reason}`);
    this.name = 'InvalidStorageKeyError';
  }
}

export class StorageNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(readonly key: string) {
    super(`no stored file '${key}'`);
    this.name = 'StorageNotFoundError';
  }
}

/**
 * Checks a key and returns its segments. Keys must stay inside the storage root whatever the platform:
 * no absolute paths, no `.`/`..` segments, no backslashes, NUL or empty segments.
 */
export function keySegments(key: string, { allowTrailingSlash = false } = {}): string[] {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidStorageKeyError(String(key), 'empty');
  if (key.length > 1024) throw new InvalidStorageKeyError(key.slice(0, 40) + '...', 'longer than 1024 characters');
  if (key.includes('\0')) throw new InvalidStorageKeyError(key, 'contains NUL');
  if (key.includes('\\')) throw new InvalidStorageKeyError(key, 'contains a backslash');
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key))
    throw new InvalidStorageKeyError(key, 'absolute paths are not allowed');
  const trimmed = allowTrailingSlash && key.endsWith('/') ? key.slice(0, -1) : key;
  const segments = trimmed.split('/');
  for (const segment of segments) {
    if (segment === '') throw new InvalidStorageKeyError(key, 'empty path segment');
    if (segment === '.' || segment === '..')
      throw new InvalidStorageKeyError(key, `'${segment}' segments are not allowed`);
  }
  return segments;
}

export async function* countBytes(
  source: Readable | AsyncIterable<string | Buffer>,
  counter: { size: number },
): AsyncGenerator<Buffer> {
  for await (const chunk of source as AsyncIterable<string | Buffer | Uint8Array>) {
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    counter.size += buffer.length;
    yield buffer;
  }
}

/**
 * How long text given to a local writer may wait before it is written: a killed process loses at most
 * this much of its log, and the lines of one moment are one write instead of one each.
 */
export const LOCAL_WRITER_FLUSH_MS = 100;

/**
 * Folders this process made or wrote in lately (the latest MADE_FOLDERS_KEPT): a file for one of them is
 * opened at once; a file for another makes its folder first (a Run's first file goes to a new folder,
 * where opening first would fail and cost one more file operation). A remembered folder that is gone
 * (a deleted Run) fails the open, and is made again.
 */
const madeFolders = new Set<string>();
const MADE_FOLDERS_KEPT = 1024;
function rememberFolder(dir: string) {
  madeFolders.delete(dir);
  madeFolders.add(dir);
  if (madeFolders.size > MADE_FOLDERS_KEPT) madeFolders.delete(madeFolders.values().next().value as string);
}

/**
 * Opens `file` for writing (a descriptor), making its folder when it does not exist yet. Local writes
 * are synchronous calls: on a local disk each takes microseconds, while a hand-off to libuv's thread
 * pool costs the event loop about 50 µs of CPU per operation (a small Run's two files: 9 of them).
 */
function openCreating(file: string, flags: 'w' | 'wx'): number {
  const dir = path.dirname(file);
  if (!madeFolders.has(dir)) mkdirSync(dir, { recursive: true });
  try {
    const fd = openSync(file, flags);
    rememberFolder(dir);
    return fd;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    madeFolders.delete(dir);
    mkdirSync(dir, { recursive: true });
    return openSync(file, flags);
  }
}

/** Storage on a local directory. Writes go to a temporary file renamed into place, so readers never see half a file. */
export class LocalStorage implements Storage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Absolute path of a key; throws for keys that would leave the root. */
  pathOf(key: string, options: { allowTrailingSlash?: boolean } = {}): string {
    const full = path.join(this.root, ...keySegments(key, options));
    // Belt and braces: segments were checked, but never hand out a path outside the root.
    if (full !== this.root && !full.startsWith(this.root + path.sep))
      throw new InvalidStorageKeyError(key, 'outside the storage root');
    return full;
  }

  async put(key: string, stream: Readable | AsyncIterable<string | Buffer>): Promise<{ size: number }> {
    const target = this.pathOf(key);
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const counter = { size: 0 };
    const fd = openCreating(temporary, 'wx');
    try {
      // The chunks come batched (a Run's export: 64 KB each), so each is one write: no stream machinery,
      // which costs a small Run more than its writes (a pipeline's controller and a stream per file).
      try {
        for await (const chunk of countBytes(stream, counter)) writeFileSync(fd, chunk);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    return { size: counter.size };
  }

  async get(key: string): Promise<Readable> {
    const target = this.pathOf(key);
    const info = await stat(target).catch(() => null);
    if (!info?.isFile()) throw new StorageNotFoundError(key);
    return createReadStream(target);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    const info = await stat(this.pathOf(key)).catch(() => null);
    return info?.isFile() ? { size: info.size } : null;
  }

  async delete(keyOrPrefix: string): Promise<void> {
    await rm(this.pathOf(keyOrPrefix, { allowTrailingSlash: true }), { recursive: true, force: true });
  }

  openWriter(key: string): StorageWriter {
    const target = this.pathOf(key);
    // Text waits up to LOCAL_WRITER_FLUSH_MS and is written in one piece; the file is opened at the first
    // write (a short Run's log: one open, one write, one close, after its data file made the folder).
    let pending: string[] = [];
    let timer: NodeJS.Timeout | null = null;
    let fd: number | null = null;
    let closed = false;
    let size = 0;
    let failure: Error | null = null;
    const flush = () => {
      timer = null;
      if (failure) return;
      try {
        fd ??= openCreating(target, 'w');
        if (pending.length === 0) return;
        const text = pending.join('');
        pending = [];
        writeFileSync(fd, text);
        size += Buffer.byteLength(text);
      } catch (err) {
        failure = err as Error;
      }
    };
    return {
      write: (text) => {
        if (failure || closed || text.length === 0) return;
        pending.push(text);
        if (!timer) {
          timer = setTimeout(flush, LOCAL_WRITER_FLUSH_MS);
          timer.unref();
        }
      },
      close: async () => {
        if (timer) clearTimeout(timer);
        if (!closed) flush();
        closed = true;
        // Once: a descriptor number closed twice could be another file's by then.
        if (fd !== null) closeSync(fd);
        fd = null;
        if (failure) throw failure;
        return { size };
      },
    };
  }

  async list(prefix: string): Promise<string[]> {
    return readdir(this.pathOf(prefix, { allowTrailingSlash: true })).catch(() => []);
  }

  /** Relative keys of every file under a prefix (sorted), temporary files included. */
  private async filesUnder(prefix: string): Promise<string[]> {
    const base = this.pathOf(prefix, { allowTrailingSlash: true });
    const entries = await readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(this.root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort();
  }

  async *walk(prefix: string): AsyncGenerator<StoredObject[]> {
    const keys = (await this.filesUnder(prefix)).filter((k) => !TEMPORARY.test(k));
    for (let i = 0; i < keys.length; i += 1000) {
      const page: StoredObject[] = [];
      for (const key of keys.slice(i, i + 1000)) {
        const info = await stat(this.pathOf(key)).catch(() => null);
        if (info) page.push({ key, size: info.size });
      }
      yield page;
    }
  }

  async listIncomplete(prefix: string): Promise<string[]> {
    return (await this.filesUnder(prefix)).filter((k) => TEMPORARY.test(k));
  }

  async discardIncomplete(prefix: string): Promise<number> {
    const keys = await this.listIncomplete(prefix);
    for (const key of keys) await rm(this.pathOf(key), { force: true });
    return keys.length;
  }

  async append(key: string, text: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await appendFile(target, text);
  }

  async probe(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const probe = path.join(this.root, `.probe-${randomBytes(6).toString('hex')}`);
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }
}
