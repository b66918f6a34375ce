// Wire-level conventions: JSON media types (application/json, text/json, application/*+json), an
// empty JSON body treated as no body (clients send Content-Type on body-less POSTs), request ids
// echoed in X-Request-Id, rate-limit headers on every response, and case-insensitive bodies.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { normalizeValue } from '../../schemas/normalize.js';

export default fp(async function httpPlugin(app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts;

  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parseJson = (_request: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      const e = err as Error & { statusCode?: number; code?: string };
      e.statusCode = 400;
      e.code = 'FST_ERR_CTP_INVALID_JSON_BODY';
      done(e, undefined);
    }
  };
  app.addContentTypeParser(['application/json', 'text/json'], { parseAs: 'string' }, parseJson);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json(\s*;.*)?$/, { parseAs: 'string' }, parseJson);

  const limitMax = String(config.rateLimit.max);
  const limitWindow = String(config.rateLimit.windowSeconds);
  // Hooks in callback style: no promise per request for work that never waits.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-RateLimit-Limit', limitMax);
    reply.header('X-RateLimit-Window-Seconds', limitWindow);
    done();
  });

  app.addHook('preValidation', (request, _reply, done) => {
    const schema = request.routeOptions.schema?.body as (Parameters<typeof normalizeValue>[1] & { required?: string[] }) | undefined;
    if (!schema) return done();
    // A body whose every property is optional may be left out entirely.
    if (schema && (request.body === undefined || request.body === null) && schema.type === 'object' && !schema.required?.length) {
      request.body = {};
    }
    if (schema && request.body !== undefined && request.body !== null) {
      request.body = normalizeValue(request.body, schema, (ref) => app.getSchema(ref.replace(/#.*$/, '')) as never);
    }
    done();
  });
}, { name: 'http' });
