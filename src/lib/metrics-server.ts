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
