// The API process: build the app, listen, and on SIGTERM/SIGINT stop accepting, finish in-flight
// requests and close pools, with a forced-exit deadline.
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { MetricsPortTakenError, startProcessMetrics, type MetricsServer } from './lib/metrics-server.js';

const config = loadConfigOrExit();
const app = await buildApp(config);
let metrics: MetricsServer | null = null;

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  const deadline = setTimeout(() => {
    app.log.error('graceful shutdown timed out; exiting');
    process.exit(1);
  }, config.shutdownGraceSeconds * 1000);
  deadline.unref();
  try {
    await app.close();
    await metrics?.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'error during shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ host: config.host, port: config.port });
  metrics = await startProcessMetrics({
    host: config.metrics.host,
    port: config.metrics.apiPort,
    explicit: config.metrics.portExplicit,
    log: app.log,
    onError: (err) => app.log.error({ err }, 'metrics collection failed'),
  });
} catch (err) {
  if (err instanceof MetricsPortTakenError) app.log.fatal(err.message);
  else app.log.fatal({ err }, 'could not start the server');
  process.exit(1);
}
