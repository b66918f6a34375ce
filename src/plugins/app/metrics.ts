// HTTP metrics of the API: every answered request counted and timed by method, route template (the
// matched route's URL pattern; unknown paths share one value) and status code. Served on the metrics
// listener (src/server.ts), never on the API's port.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { recordHttpRequest } from '../../lib/metrics.js';

export default fp(
  async function metricsPlugin(app: FastifyInstance) {
    app.addHook('onResponse', (request, reply, done) => {
      recordHttpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'metrics' },
);
