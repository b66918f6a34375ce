// A Run's files through a store that may be away for a while: an object store that cannot be reached
// or throttles is tried again with backoff, for at most a bounded time, while what is to be stored
// waits in a local file (the bytes of an export, the lines of a log). A store back within that time
// costs a delay; a store still away then fails the operation with its storage error, and the local
// file is moved to a recovery folder instead of being lost. Failures that waiting does not cure (a
// full disk, a missing bucket, a refused key) fail at once.
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { storageFailureKind, StorageFailureKind } from './storage-errors.js';
import { countBytes, keySegments, type Storage, type StorageWriter } from './storage.js';

/** Temporary files of writers, named by their process so that a killed process's ones can be removed. */
export const STORAGE_TEMP_PREFIX = 'cxs-log-';
/** A writer ships what it has to the store this often, so a killed process loses at most this much. */
export const STORAGE_SHIP_MS = 2000;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15_000;

const TRANSIENT = new Set<StorageFailureKind>([StorageFailureKind.Unreachable, StorageFailureKind.Throttled]);

export interface StorageRetryOptions {
  /** How long a store may stay away before an operation fails; 0 tries once. */
  retryMs: number;
  /** Where files that could not be stored are kept (`<dir>/<key>`); absent: they are removed. */
  recoveryDir?: string;
  /** Told of each failed attempt that will be tried again. */
  onRetry?: (event: { key: string; attempt: number; delayMs: number; kind: StorageFailureKind }) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A local temporary file named by this process (removed by `removeAbandonedLogTemps` once it is gone). */
function temporaryFile(): string {
  return path.join(os.tmpdir(), `${STORAGE_TEMP_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`);
}

/**
 * Retries transient storage failures of one store. The wait is shared: it starts at the first failure
 * and ends at the first success, so a store that stays away costs `retryMs` once, not once per file.
 */
export function createStorageRetry(options: StorageRetryOptions) {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  let awaySince: number | null = null;

  async function retrying<T>(key: string, op: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const value = await op();
        awaySince = null;
        return value;
      } catch (err) {
        const kind = storageFailureKind(err);
        if (kind === null || !TRANSIENT.has(kind)) throw err;
        awaySince ??= now();
        const left = awaySince + options.retryMs - now();
        if (left <= 0) throw err;
        const delayMs = Math.min(left, FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 10), MAX_DELAY_MS);
        options.onRetry?.({ key, attempt, delayMs, kind });
        await sleep(delayMs);
      }
    }
  }

  /** Keeps a file that could not be stored under the recovery folder, or removes it. */
  async function keepUnstored(file: string, key: string): Promise<void> {
    if (!options.recoveryDir) return rm(file, { force: true });
    const target = path.join(options.recoveryDir, ...keySegments(key));
    await mkdir(path.dirname(target), { recursive: true });
    await rename(file, target).catch(() => rm(file, { force: true }));
  }

  return { retrying, keepUnstored };
}

/**
 * `inner` with its writes retried as `createStorageRetry` says. A put's bytes are written to a local
 * file first, so that they can be sent again (a stream is read once).
 */
export function withStorageRetries(inner: Storage, options: StorageRetryOptions): Storage {
  const { retrying, keepUnstored } = createStorageRetry(options);
  return {
    get: (key) => retrying(key, () => inner.get(key)),
    stat: (key) => retrying(key, () => inner.stat(key)),
    delete: (key) => retrying(key, () => inner.delete(key)),
    append: (key, text) => retrying(key, () => inner.append(key, text)),
    list: (prefix) => retrying(prefix, () => inner.list(prefix)),
    walk: (prefix) => inner.walk(prefix),
    listIncomplete: (prefix) => inner.listIncomplete(prefix),
    discardIncomplete: (prefix) => inner.discardIncomplete(prefix),
    probe: () => inner.probe(),
    removeAbandoned: inner.removeAbandoned && (() => inner.removeAbandoned!()),
    ...(inner.presignGet ? { presignGet: inner.presignGet.bind(inner) } : {}),
    async put(key: string, stream: Readable | AsyncIterable<string | Buffer>) {
      const file = temporaryFile();
      const fd = openSync(file, 'w', 0o600);
      const counter = { size: 0 };
      try {
        for await (const chunk of countBytes(stream, counter)) writeSync(fd, chunk);
      } catch (err) {
        closeSync(fd);
        await rm(file, { force: true });
        throw err;
      }
      closeSync(fd);
      try {
        await retrying(key, () => inner.put(key, createReadStream(file)));
      } catch (err) {
        await keepUnstored(file, key);
        throw err;
      }
      await rm(file, { force: true });
      return { size: counter.size };
    },
    openWriter: (key) => shippedWriter(inner, key, { retrying, keepUnstored }),
  };
}

/**
 * A log: lines go to a local file and the whole file is put to the store every STORAGE_SHIP_MS while it
 * grows, and on close. A ship that fails is tried again at the next one (the lines stay in the file);
 * close retries as `retrying` says, and keeps the file with `keepUnstored` when the store stays away.
 */
export function shippedWriter(
  storage: Pick<Storage, 'put'>,
  key: string,
  retry: Partial<ReturnType<typeof createStorageRetry>> = {},
): StorageWriter {
  const file = temporaryFile();
  const fd = openSync(file, 'w', 0o600);
  let written = 0;
  let shipped = -1;
  let shipping: Promise<void> = Promise.resolve();
  const shipOnce = async () => {
    const size = written;
    if (size === shipped) return;
    await storage.put(key, size === 0 ? Readable.from([]) : createReadStream(file, { start: 0, end: size - 1 }));
    shipped = size;
  };
  const timer = setInterval(() => {
    // While the Run goes on, a failed ship is tried again at the next interval.
    shipping = shipping.then(shipOnce).catch(() => {});
  }, STORAGE_SHIP_MS);
  timer.unref();
  let closed = false;
  return {
    write: (text) => {
      if (!closed) written += writeSync(fd, text);
    },
    close: async () => {
      if (closed) throw new Error(`writer of '${key}' already closed`);
      closed = true;
      clearInterval(timer);
      await shipping;
      closeSync(fd);
      try {
        await (retry.retrying ? retry.retrying(key, shipOnce) : shipOnce());
      } catch (err) {
        await (retry.keepUnstored ? retry.keepUnstored(file, key) : rm(file, { force: true }));
        throw err;
      }
      await rm(file, { force: true });
      return { size: written };
    },
  };
}
