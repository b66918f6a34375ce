// Wire-level conventions: JSON media types (application/json, text/json, application/*+json), an
// empty JSON body treated as no body (clients send Content-Type on body-less POSTs), request ids
// echoed in X-Request-Id, rate-limit headers on every response, case-insensitive bodies, and the
// socket idle timeout of routes that wait before they answer.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { normalizeValue } from '../../schemas/normalize.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The longest this route may wait before it sends anything (seconds): a synchronous start, a
     * long poll. The socket's idle timeout (HTTP_IDLE_TIMEOUT_SECONDS) is extended to cover it.
     */
    waitSeconds?: number;
  }
}

/** Time to produce the answer once the wait is over (seconds). */
const WAIT_MARGIN_SECONDS = 10;

/** How long a connection answered before its body arrived keeps draining before it is closed. */
const LINGER_MS = 2000;

/**
 * Closes the way RFC 9112 section 9.6 asks when the answer goes out before the request's body has
 * arrived (a 413): send the answer and our FIN, keep discarding what the client still sends (Node
 * drops the unread body of an answered request), and close fully when the client stops or after
 * LINGER_MS. Closing at once while its bytes keep coming makes the kernel send a reset, which can
 * erase the answer before the client reads it.
 */
export function lingerOnClose(socket: Socket): void {
  // Node ends a `Connection: close` response with destroySoon(): half-close instead.
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    this.once('close', () => clearTimeout(timer));
  };
}

export default fp(
  async function httpPlugin(app: FastifyInstance, opts: { config: Config }) {
    const { config } = opts;

    app.removeContentTypeParser(['application/json', 'text/plain']);
    const parseJson = (
      _request: unknown,
      body: string | Buffer,
      done: (err: Error | null, value?: unknown) => void,
    ) => {
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
      // Node puts the server's idle timeout back when the next request on the connection starts.
      const wait = request.routeOptions.config.waitSeconds;
      // (A request injected in-process, app.inject, has no socket timer to extend.)
      if (wait !== undefined)
        request.raw.socket?.setTimeout?.(Math.max(config.http.idleTimeoutMs, (wait + WAIT_MARGIN_SECONDS) * 1000));
      done();
    });

    app.addHook('preValidation', (request, _reply, done) => {
      const schema = request.routeOptions.schema?.body as
        (Parameters<typeof normalizeValue>[1] & { required?: string[] }) | undefined;
      if (!schema) return done();
      // A body whose every property is optional may be left out entirely.
      if (
        schema &&
        (request.body === undefined || request.body === null) &&
        schema.type === 'object' &&
        !schema.required?.length
      ) {
        request.body = {};
      }
      if (schema && request.body !== undefined && request.body !== null) {
        request.body = normalizeValue(request.body, schema, (ref) => app.getSchema(ref.replace(/#.*$/, '')) as never);
      }
      done();
    });
  },
  { name: 'http' },
);
