// The web console: the single-page application built by Vite into CONSOLE_DIR, served at
// /console by @fastify/static. Any path under /console that is not a file answers index.html, so deep
// links (/console/runs/42) load the app, which then routes in the browser.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

/**
 * Every asset is ours: no inline script or style, no third-party origin, no framing. (data: images:
 * the page's empty favicon, so browsers do not ask for /favicon.ico.)
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

export default async function consolePlugin(app: FastifyInstance, opts: { config: Config }) {
  const root = opts.config.consoleDir;
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    app.log.warn({ consoleDir: root }, 'web console not built (npm run build): /console is not served');
    return;
  }
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      secure(reply);
      return payload;
    });
    await scope.register(fastifyStatic, {
      root,
      prefix: '/console/',
      // Hashed assets never change; index.html must be revalidated so a new build is picked up.
      setHeaders: (res, file) =>
        res.setHeader(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ),
      cacheControl: false,
      wildcard: false,
      index: false,
    });
    // A missing hashed asset is a 404, not the page (a stale tab after a deploy must not parse HTML as JS).
    const index = (request: FastifyRequest, reply: FastifyReply) =>
      request.url.toLowerCase().startsWith('/console/assets/') ? reply.callNotFound() : reply.sendFile('index.html');
    scope.get('/console', { schema: { hide: true } }, index);
    scope.get('/console/*', { schema: { hide: true } }, index);
  });
}
