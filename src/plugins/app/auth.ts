// Authentication for every /api route: `Authorization: ApiKey <key>` or `Authorization: Bearer <jwt>`.
// Anything else, and expired, revoked or unknown credentials, answer the same 401.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UnauthenticatedError, ValidationError } from '../../lib/errors.js';
import type { Principal } from '../../services/identity/principal.js';
import type { BudgetOwner } from '../../services/rate-limit/rules.js';

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
    const credential = match[2];
    const { identity, rateLimit } = app;
    // One Redis round trip per request: the credentials epoch and the rate-limit step are issued in
    // the same tick on the auto-pipelined request connection, the budget named by the principal the
    // credential had when cached (or by a verified token's user) before the epoch confirms it.
    const giveUp = new AbortController();
    let limiting: Promise<void> | undefined;
    const limitEarly = (candidate: BudgetOwner | undefined) => {
      if (!candidate || !rateLimit.takeFor) return;
      limiting = rateLimit.takeFor(request, reply, candidate, giveUp.signal);
      limiting.catch(() => undefined); // awaited below; a rejection before then is not unhandled
    };
    try {
      if (scheme === 'apikey') {
        const stamp = identity.epoch.current();
        limitEarly(identity.apiKeys.peek(credential));
        request.principal = await identity.apiKeys.authenticate(credential, stamp);
      } else {
        const claims = await identity.tokens.verify(credential);
        const stamp = identity.epoch.current();
        if (claims.userId !== undefined) limitEarly({ via: 'bearer', userId: claims.userId });
        request.principal = await identity.tokens.principalFor(claims, stamp);
      }
    } catch (err) {
      giveUp.abort();
      reply.header('WWW-Authenticate', scheme === 'apikey' ? 'ApiKey' : 'Bearer error="invalid_token"');
      throw err;
    }
    if (limiting) await limiting;
  });
});
