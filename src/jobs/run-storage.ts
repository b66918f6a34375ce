// Where a Run's files go from the host that executes it: an object store that cannot be reached is
// waited for (STORAGE_RETRY_SECONDS), and what it would not take in time is kept on this host.
import os from 'node:os';
import { createStorage, withStorageRetries, type Storage } from '../storage/index.js';
import type { ChildStartPayload } from '../services/runs/run-protocol.js';

/**
 * A Run's store: an object store is retried for up to `storageRetryMs` while it cannot be reached, the
 * files waiting on this host meanwhile, and kept under `unstoredDir` when it stays away. A local folder
 * is used as it is: its failures (a full disk, a permission) are not cured by waiting.
 */
export function runStorage(p: ChildStartPayload, warn: (message: string) => void): Storage {
  const storage = createStorage(p.storage);
  if (p.storage.driver !== 's3') return storage;
  return withStorageRetries(storage, {
    retryMs: p.storageRetryMs ?? 0,
    recoveryDir: p.unstoredDir,
    onRetry: (e) =>
      warn(
        `Storing ${e.key.split('/').pop()} failed (${e.kind}); trying again in ${e.delayMs} ms (attempt ${e.attempt})`,
      ),
  });
}

/** A Run's files could not be stored, and what was to be stored is kept on this host. */
export class UnstoredFilesError extends Error {
  readonly kept: { host: string; dir: string };
  constructor(cause: unknown, dir: string) {
    super((cause as Error).message, { cause });
    this.kept = { host: os.hostname(), dir };
  }
}
