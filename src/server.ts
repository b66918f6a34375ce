// The API process: build the app, listen, and on SIGTERM/SIGINT stop accepting, finish in-flight
// requests and close pools, with a forced-exit deadline.
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { startMetricsServer, type MetricsServer } from './lib/metrics-server.js';

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
  if (config.metrics.apiPort !== 0) {
    const { host, apiPort } = config.metrics;
    const onError = (err: unknown) => app.log.error({ err }, 'metrics collection failed');
    metrics = await startMetricsServer({ host, port: apiPort, onError });
    app.log.info({ host, port: metrics.port }, 'metrics listening');
  }
} catch (err) {
  app.log.fatal({ err }, 'could not start the server');
  process.exit(1);
}
