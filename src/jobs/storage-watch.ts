// The worker's view of its storage: whether the store of Run files can be written (probed every
// STORAGE_WATCH_INTERVAL_MS) and whether its local disks (STORAGE_DIR with the local driver, and the
// temporary folder that holds spools and logs in flight) are nearly full, and what killed run processes
// left in that folder (removed at each check). Each change is logged once;
// while the store cannot be written the worker's heartbeat stops, so its health check says so.
import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import { storageFailureKind, type Storage } from '../storage/index.js';

export const STORAGE_WATCH_INTERVAL_MS = 30_000;

export interface StorageWatch {
  /** Probes the store and the disks now (also done every interval). */
  check(): Promise<void>;
  writable(): boolean;
  /** Folders whose volume has less free space than the minimum, as of the last check. */
  nearlyFull(): string[];
  close(): void;
}

export function createStorageWatch(opts: {
  storage: Storage;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Local folders whose volume must keep `minFreeBytes` free. */
  dirs: string[];
  minFreeBytes: number;
  intervalMs?: number;
}): StorageWatch {
  const { storage, log, dirs, minFreeBytes } = opts;
  let writable = true;
  const full = new Set<string>();

  async function checkDisk(dir: string) {
    const fs = await statfs(dir).catch(() => null);
    if (!fs) return;
    const free = fs.bavail * fs.bsize;
    if (free < minFreeBytes && !full.has(dir)) {
      full.add(dir);
      log.warn(
        { dir, freeMb: Math.floor(free / 1048576), minFreeMb: Math.floor(minFreeBytes / 1048576) },
        `disk nearly full: ${dir} has ${Math.floor(free / 1048576)} MiB free; Runs will fail when it is full`,
      );
    } else if (free >= minFreeBytes && full.delete(dir)) {
      log.info({ dir, freeMb: Math.floor(free / 1048576) }, `disk space is back above the minimum on ${dir}`);
    }
  }

  async function check() {
    try {
      await storage.probe();
      if (!writable) log.info('run file storage is writable again');
      writable = true;
    } catch (err) {
      if (writable)
        log.warn({ cause: storageFailureKind(err) ?? (err as Error).message }, 'run file storage is not writable');
      writable = false;
    }
    for (const dir of dirs) await checkDisk(dir);
    const removed = await storage.removeAbandoned?.().catch(() => 0);
    if (removed) log.info({ removed }, 'removed temporary files that killed run processes left behind');
  }

  const timer = setInterval(() => void check(), opts.intervalMs ?? STORAGE_WATCH_INTERVAL_MS);
  timer.unref();
  return { check, writable: () => writable, nearlyFull: () => [...full], close: () => clearInterval(timer) };
}
