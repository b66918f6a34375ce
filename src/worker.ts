// The worker process: BullMQ workers and job schedulers. SIGTERM lets running Runs finish within the
// grace; those that cannot are handed back to the queue shortly before it ends (they restart on
// another worker), never left for the lost-worker path.
import './lib/lean-wasm.js';
import { loadConfigOrExit } from './config.js';
import { isRedisUnavailable } from './db/failures.js';
import { startWorkerRuntime } from './jobs/runtime.js';
import { createLogger } from './lib/logger.js';
import { MetricsPortTakenError, startProcessMetrics } from './lib/metrics-server.js';

const config = loadConfigOrExit();
const log = createLogger(config, 'worker');
// The worker's metrics listener (its own port): up before the runtime, so a worker stuck waiting
// for PostgreSQL or Redis can still be scraped.
const metrics = await startProcessMetrics({
  host: config.metrics.host,
  port: config.metrics.workerPort,
  explicit: config.metrics.portExplicit,
  log,
  onError: (err) => log.error({ err }, 'metrics collection failed'),
}).catch((err: unknown) => {
  if (err instanceof MetricsPortTakenError) log.fatal(err.message);
  else log.fatal({ err }, 'the metrics listener could not start');
  process.exit(1);
});

// Signal handlers go in before anything starts, so a SIGTERM during start-up is still graceful.
const starting = startWorkerRuntime(config, log);
let started = false;
starting.then(
  () => (started = true),
  () => {},
);
let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  log.info({ signal }, 'worker shutting down');
  if (!started) {
    // Still starting (waiting for Redis or PostgreSQL): no job was taken yet, nothing to finish.
    log.info('the worker had not started; exiting');
    process.exit(0);
  }
  const deadline = setTimeout(() => {
    log.error('graceful shutdown timed out; exiting');
    process.exit(1);
  }, config.shutdownGraceSeconds * 1000);
  deadline.unref();
  try {
    const graceMs = config.shutdownGraceSeconds * 1000;
    // Handing back takes a database write per Run: leave it up to 5 s (half of a short grace).
    await (await starting).close({ handBackAfterMs: graceMs - Math.min(5000, graceMs / 2) });
    await metrics?.close();
    process.exit(0);
  } catch (err) {
    log.error({ err }, 'error during shutdown');
    process.exit(1);
  }
}
process.on('unhandledRejection', (err) => {
  // While closing, a Redis connection that BullMQ was still opening rejects its pending command with
  // "Connection is closed": expected then, and no reason to turn a clean shutdown into exit 1.
  if (closing && isRedisUnavailable(err)) {
    log.debug({ err: { message: (err as Error).message } }, 'redis command rejected while closing');
    return;
  }
  // A bug: say what it was before the process ends, so the restart has a reason on record.
  log.fatal({ err }, 'unhandled rejection');
  process.exit(1);
});
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

starting.catch((err) => {
  log.fatal({ err }, 'the worker could not start');
  process.exit(1);
});
