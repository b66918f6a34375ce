// Authentication for every /api route: `Authorization: ApiKey <key>` or `Authorization: Bearer <jwt>`.
// Anything else, and expired, revoked or unknown credentials, answer the same 401.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UnauthenticatedError, ValidationError } from '../../lib/errors.js';
import type { Principal } from '../../services/identity/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
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

export default fp(async function authPlugin(app: FastifyInstance) {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    if (!requiresCredentials(request)) return;
    // Node keeps only the first of repeated Authorization headers; which credential counts must not
    // depend on that, so a request carrying two is refused.
    const raw = request.raw.rawHeaders;
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'authorization') count++;
    const header = request.headers.authorization;
    if (count > 1 || Array.isArray(header)) throw new ValidationError('headers.authorization must be sent once; the request has several Authorization headers.');
    const match = header ? /^(ApiKey|Bearer)\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      reply.header('WWW-Authenticate', 'ApiKey, Bearer');
      throw new UnauthenticatedError('Send Authorization: ApiKey <key> or Authorization: Bearer <token>.');
    }
    const scheme = match[1].toLowerCase();
    try {
      request.principal =
        scheme === 'apikey' ? await app.identity.apiKeys.authenticate(match[2]) : await app.identity.tokens.verifyAccessToken(match[2]);
    } catch (err) {
      reply.header('WWW-Authenticate', scheme === 'apikey' ? 'ApiKey' : 'Bearer error="invalid_token"');
      throw err;
    }
  });
});
