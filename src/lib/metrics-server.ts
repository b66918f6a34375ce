// The metrics listener of a process (METRICS_HOST:METRICS_PORT): GET /metrics answers the registry in
// the Prometheus text format; everything else is 404. Separate from the API's port so it is never
// exposed with the API. The default process metrics (CPU, memory, event loop, GC) are added here,
// once per process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics } from 'prom-client';
import { registry } from './metrics.js';

let defaultsCollected = false;
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  onError(err: unknown): void;
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  if (!defaultsCollected) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters (promtool rejects them); their per-type series stay, and sum to them.
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
    defaultsCollected = true;
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        opts.onError(err);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The metrics listener could not take the port METRICS_PORT names: the process stops with this. */
export class MetricsPortTakenError extends Error {}

/**
 * The metrics listener of an API or worker process (none with port 0). A default port that another
 * process on the host already holds (a second worker, say) is no reason to stop: that process goes on
 * without metrics and says so once. A port set explicitly with METRICS_PORT is: the operator asked
 * for it, and a scrape target answering for another process would mislead.
 */
export async function startProcessMetrics(opts: {
  host: string;
  port: number;
  explicit: boolean;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  onError(err: unknown): void;
}): Promise<MetricsServer | null> {
  if (opts.port === 0) return null;
  try {
    const server = await startMetricsServer(opts);
    opts.log.info({ host: opts.host, port: server.port }, 'metrics listening');
    return server;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    const where = `${opts.host}:${opts.port}`;
    if (opts.explicit)
      throw new MetricsPortTakenError(
        `METRICS_PORT ${opts.port} is already in use on ${where} (another process listens there): ` +
          'give this process a free port, or METRICS_PORT=0 to run it without metrics.',
      );
    opts.log.warn(
      { host: opts.host, port: opts.port },
      `metrics port ${where} is taken (another API or worker on this host?): this process runs without metrics; ` +
        'set METRICS_PORT to give it a port of its own',
    );
    return null;
  }
}
