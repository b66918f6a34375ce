// Whether this worker can work, told three ways: the dependency monitor logs each loss and recovery
// of PostgreSQL and Redis once; the heartbeat key (worker-health.ts) is written only while both answer
// and Run files can be stored; the browser capability is announced while Chromium is here.
import os from 'node:os';
import { Redis } from 'ioredis';
import { chromiumAvailable, CHROMIUM_PATH_HINT } from '../engine/index.js';
import { createDependencyMonitor } from '../lib/dependencies.js';
import { announceBrowser } from '../queues/worker-capabilities.js';
import type { Storage } from '../storage/index.js';
import type { WorkerContext } from './job-domain.js';
import { createStorageWatch } from './storage-watch.js';
import { HEARTBEAT_INTERVAL_MS, writeHeartbeat } from './worker-health.js';

export async function startWorkerLiveness(ctx: WorkerContext, storage: Storage) {
  const { config, log, db, clock, prefix } = ctx;
  // Its own connection, failing at once while Redis is away (the heartbeat must not queue up).
  const beatRedis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  const dependencies = createDependencyMonitor({
    log,
    probes: { postgres: () => db.$queryRawUnsafe('SELECT 1'), redis: () => beatRedis.ping() },
  });
  beatRedis.on('error', (err) => dependencies.down('redis', err));
  beatRedis.on('ready', () => dependencies.up('redis'));
  const storageWatch = createStorageWatch({
    storage,
    log,
    dirs: [...(config.storage.driver === 'local' ? [config.storage.dir] : []), os.tmpdir()],
    minFreeBytes: config.storageMinFreeBytes,
  });
  await storageWatch.check();
  const canRender = chromiumAvailable(config.browser.executablePath);
  if (!canRender)
    log.warn(
      `browser Runs are not executed here: no Chromium at ${config.browser.executablePath}; ${CHROMIUM_PATH_HINT}`,
    );
  const beat = async () => {
    try {
      await db.$queryRawUnsafe('SELECT 1');
      dependencies.up('postgres');
    } catch (err) {
      dependencies.down('postgres', err);
      return;
    }
    // Not connected yet, or reconnecting: the connection's own events report a loss.
    if (beatRedis.status !== 'ready') return;
    // A worker that cannot store Run files is not healthy either.
    if (!storageWatch.writable()) return;
    await writeHeartbeat(beatRedis, prefix, clock.now()).catch((err) => dependencies.down('redis', err));
    if (canRender) await announceBrowser(beatRedis, prefix).catch((err) => dependencies.down('redis', err));
  };
  const heartbeat = setInterval(() => void beat(), HEARTBEAT_INTERVAL_MS);
  // A beat as soon as the connection is up, not an interval later: the first beat at start may find it
  // still connecting, and the worker would read as unhealthy for those seconds.
  beatRedis.on('ready', () => void beat());
  void beat();
  return {
    dependencies,
    canRender,
    /** Stops the beats and the storage watch (the heartbeat key then expires). */
    stop() {
      clearInterval(heartbeat);
      storageWatch.close();
    },
    /** Closes the monitor and the heartbeat's connection, last. */
    async close() {
      dependencies.close();
      await beatRedis.quit().catch(() => beatRedis.disconnect());
    },
  };
}
