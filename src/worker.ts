// The worker process: BullMQ workers and job schedulers; SIGTERM lets running jobs finish.
import pino from 'pino';
import { loadConfigOrExit } from './config.js';
import { startWorkerRuntime } from './jobs/runtime.js';

const config = loadConfigOrExit();
const log = pino({ level: config.logLevel, name: 'worker' });
const runtime = await startWorkerRuntime(config, log);

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  log.info({ signal }, 'worker shutting down');
  const deadline = setTimeout(() => {
    log.error('graceful shutdown timed out; exiting');
    process.exit(1);
  }, config.shutdownGraceSeconds * 1000);
  deadline.unref();
  await runtime.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
