// The one log line of a request, written when the response is sent (Fastify's own "incoming
// request" / "request completed" pair is turned off in app.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(
  async function requestLogPlugin(app: FastifyInstance) {
    // The one log line of a request: its route template (not the raw URL, which may carry ids or
    // query values), status, duration and request id. Swagger UI's own files are not logged.
    app.addHook('onResponse', (request, reply, done) => {
      done();
      const route = request.routeOptions.url;
      if (route?.startsWith('/swagger') && route !== '/swagger/v1/swagger.json') return;
      const fields = {
        method: request.method,
        route: route ?? '(no route)',
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      };
      if (reply.statusCode >= 500) request.log.error(fields, 'request');
      else request.log.info(fields, 'request');
    });
  },
  { name: 'request-log' },
);
