// Authentication for every /api route: `Authorization: ApiKey <key>` or `Authorization: Bearer <jwt>`.
// Anything else, and expired, revoked or unknown credentials, answer the same 401.
//
// A credential known to this instance is resolved without I/O (services/identity/credentials.ts),
// and so is the rate-limit step while the budget's batch lasts (services/rate-limit): a cached
// caller's request then costs only its own database statement. Its credential is checked against
// the credentials epoch again when the response is sent, so a revocation published while the request
// was on its way is honoured (re-checked in the database, 401 if it no longer holds).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UnauthenticatedError, ValidationError } from '../../lib/errors.js';
import type { EpochStamp } from '../../services/identity/credentials.js';
import type { Principal } from '../../services/identity/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The credentials epoch a cached principal was trusted under; null when the database said. */
    credentialStamp: EpochStamp | null;
  }
  interface FastifyContextConfig {
    /** Route answers without credentials. */
    public?: boolean;
  }
}

/** The authenticated caller of a protected route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError();
  return request.principal;
}

/** The route answers only authenticated callers (every /api route not marked public). */
export function requiresCredentials(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return Boolean(url && url.startsWith('/api/') && !request.routeOptions.config.public);
}

const CREDENTIAL = /^(ApiKey|Bearer)\s+(\S+)\s*$/i;

/** The scheme and credential of the request's one Authorization header; throws 400/401 otherwise. */
function credentialOf(request: FastifyRequest, reply: FastifyReply): { apiKey: boolean; credential: string } {
  // Node keeps only the first of repeated Authorization headers; which credential counts must not
  // depend on that, so a request carrying two is refused.
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') count++;
  const header = request.headers.authorization;
  if (count > 1 || Array.isArray(header))
    throw new ValidationError(
      'headers.authorization must be sent once; the request has several Authorization headers.',
    );
  const match = header ? CREDENTIAL.exec(header) : null;
  if (!match) {
    reply.header('WWW-Authenticate', 'ApiKey, Bearer');
    throw new UnauthenticatedError('Send Authorization: ApiKey <key> or Authorization: Bearer <token>.');
  }
  return { apiKey: (match[1].charCodeAt(0) | 32) === 97 /* a */, credential: match[2] };
}

export default fp(
  async function authPlugin(app: FastifyInstance) {
    const { identity, rateLimit } = app;
    app.decorateRequest('principal', null);
    app.decorateRequest('credentialStamp', null);

    /** The credential's principal: from the cache when it holds one under `stamp`, else the database. */
    function resolve(apiKey: boolean, credential: string, stamp: EpochStamp | null): Principal | Promise<Principal> {
      if (apiKey) return identity.apiKeys.cached(credential, stamp) ?? identity.apiKeys.authenticate(credential, stamp);
      const claims = identity.tokens.verified(credential);
      const principal = claims && identity.tokens.cachedPrincipal(claims, stamp);
      if (principal) return principal;
      return (async () => identity.tokens.principalFor(claims ?? (await identity.tokens.verify(credential)), stamp))();
    }

    const challenge = (reply: FastifyReply, apiKey: boolean) =>
      reply.header('WWW-Authenticate', apiKey ? 'ApiKey' : 'Bearer error="invalid_token"');

    // Callback style: a request served from the caches completes this hook without a promise.
    app.addHook('onRequest', (request, reply, done) => {
      if (!requiresCredentials(request)) return done();
      let apiKey = true;
      let resolved: Principal | Promise<Principal>;
      const stamp = identity.epoch.current();
      try {
        const c = credentialOf(request, reply);
        apiKey = c.apiKey;
        resolved = resolve(apiKey, c.credential, stamp);
      } catch (err) {
        if (!(err instanceof ValidationError) && !reply.hasHeader('WWW-Authenticate')) challenge(reply, apiKey);
        return done(err as Error);
      }
      const admit = (principal: Principal, cached: boolean) => {
        request.principal = principal;
        if (cached) request.credentialStamp = stamp;
        const limited = rateLimit.take(request, reply, principal);
        if (limited) limited.then(() => done(), done);
        else done();
      };
      if (!(resolved instanceof Promise)) return admit(resolved, stamp !== null);
      resolved.then(
        (principal) => admit(principal, false),
        (err: Error) => {
          challenge(reply, apiKey);
          done(err);
        },
      );
    });

    // The epoch changed while the request was served from the cache: the database decides.
    app.addHook('onSend', (request, reply, payload, done) => {
      const stamp = request.credentialStamp;
      // Falsy, not null: routes of plugins registered before this one do not have the decoration.
      if (!stamp || stamp === identity.epoch.current()) return done(null, payload);
      request.credentialStamp = null;
      let apiKey = true;
      (async () => {
        const c = credentialOf(request, reply);
        apiKey = c.apiKey;
        await resolve(apiKey, c.credential, identity.epoch.current());
      })().then(
        () => done(null, payload),
        (err: Error) => {
          // A streamed body (a file, the unpaged Agent list) is not sent: release what it holds.
          (payload as { destroy?: () => void } | null)?.destroy?.();
          challenge(reply, apiKey);
          done(err);
        },
      );
    });
  },
  { name: 'auth', dependencies: ['identity', 'rate-limit'] },
);
