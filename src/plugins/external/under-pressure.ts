// Load shedding with @fastify/under-pressure: while the event loop lags or the heap nears its limit,
// requests are answered at once with 503 ProblemDetails and Retry-After instead of queueing until
// the process stops answering at all. /health/live keeps answering, so an orchestrator does not
// restart a process that is only busy.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { ServiceUnavailableError } from '../../lib/errors.js';

/** How often load is sampled (the plugin's histogram resolution is 10 ms). */
const SAMPLE_INTERVAL_MS = 500;

export default fp(
  async function underPressurePlugin(app: FastifyInstance, opts: { config: Config }) {
    const { loadShedding } = opts.config;
    // One line per 10 s while shedding, not one per refused request.
    let lastWarned = 0;
    // Building the app (compiling schemas) blocks the event loop; samples taken before it is ready and
    // one full sample after say nothing about load, so nothing is shed until then.
    let armedAt = Number.POSITIVE_INFINITY;
    app.addHook('onReady', async () => {
      armedAt = Date.now() + 2 * SAMPLE_INTERVAL_MS;
    });
    await app.register(underPressure, {
      maxEventLoopDelay: loadShedding.maxEventLoopDelayMs,
      maxHeapUsedBytes: loadShedding.maxHeapUsedBytes,
      sampleInterval: SAMPLE_INTERVAL_MS,
      pressureHandler: (request, _reply, type, value) => {
        if (Date.now() < armedAt || request.url.split('?')[0].toLowerCase() === '/health/live') return undefined;
        if (Date.now() - lastWarned >= 10_000) {
          lastWarned = Date.now();
          app.log.warn({ type, value }, 'under pressure: answering 503 until the load falls');
        }
        // A rejection reaches the error handler, which answers 503 ProblemDetails with Retry-After.
        return Promise.reject(
          new ServiceUnavailableError(
            'The service is overloaded; retry after the delay in Retry-After.',
            loadShedding.retryAfterSeconds,
          ),
        );
      },
    });
  },
  { name: 'under-pressure', dependencies: ['errors'] },
);
