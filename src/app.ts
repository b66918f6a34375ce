// buildApp(config): the Fastify application used by the server, the tests and the benchmarks.
import crypto from 'node:crypto';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
import authPlugin from './plugins/app/auth.js';
import errorsPlugin from './plugins/app/errors.js';
import httpPlugin from './plugins/app/http.js';
import infraPlugin from './plugins/app/infra.js';
import metricsPlugin from './plugins/app/metrics.js';
import rateLimitPlugin from './plugins/app/rate-limit.js';
import requestLogPlugin from './plugins/app/request-log.js';
import consolePlugin from './plugins/external/console.js';
import swaggerPlugin from './plugins/external/swagger.js';
import underPressurePlugin from './plugins/external/under-pressure.js';
import { buildSerializer } from './plugins/app/serialization.js';
import { buildValidator } from './plugins/app/validation.js';
import healthRoutes from './routes/health/index.js';
import agentsRoutes from './routes/agents/index.js';
import agentChangesRoutes from './routes/agents/changes.js';
import oauthRoutes from './routes/oauth/index.js';
import proxyPoolsRoutes from './routes/proxy-pools/index.js';
import runsRoutes from './routes/runs/index.js';
import spacesRoutes from './routes/spaces/index.js';
import usersRoutes from './routes/users/index.js';
import schedulesRoutes from './routes/schedules/index.js';
import billingRoutes from './routes/billing/index.js';
import analyticsRoutes from './routes/analytics/index.js';
import agentBuilderRoutes from './routes/agent-builder/index.js';
import builderModule from './services/builder/index.js';
import { modelSchemas } from './schemas/index.js';
import accessModule from './services/access/index.js';
import agentsModule from './services/agents/index.js';
import changesModule from './services/changes/index.js';
import identityModule from './services/identity/index.js';
import proxyPoolsModule from './services/proxy-pools/index.js';
import runsModule from './services/runs/index.js';
import spacesModule from './services/spaces/index.js';
import schedulesModule from './services/schedules/index.js';
import billingModule from './services/billing/index.js';
import analyticsModule from './services/analytics/index.js';
import webhooksModule from './services/webhooks/index.js';
import webhooksRoutes from './routes/webhooks/index.js';

/** How often the server looks for requests past their headers or request timeout. */
const HTTP_TIMEOUT_CHECK_MS = 1000;

export interface BuildOptions {
  clock?: Clock;
  logger?: boolean;
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed by tsc (pino's Logger vs Fastify's)
    ...(opts.logger === false ? { logger: false } : { loggerInstance: createLogger(config) as FastifyBaseLogger }),
    // One line per request, written when the response is sent (plugins/app/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Slow clients cannot hold sockets: headers and whole requests must arrive in time, and a socket
    // with no traffic while a request is served is closed (routes that wait longer say so: http.ts).
    connectionTimeout: config.http.idleTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      // Node checks the two timeouts above every 30 s by default, so a slow client got up to 30 s more.
      connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS,
    },
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    // A caller's X-Request-Id is kept when it is a plain token, so it cannot forge log lines.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  for (const schema of modelSchemas) app.addSchema(schema);

  await app.register(infraPlugin, { config, clock: opts.clock });
  await app.register(errorsPlugin);
  await app.register(httpPlugin, { config });
  await app.register(requestLogPlugin);
  await app.register(metricsPlugin);
  // Load shedding first, then rate limits; the rate-limit plugin must come before authPlugin (its
  // per-IP limit runs before authentication, its per-key limit after it).
  await app.register(underPressurePlugin, { config });
  await app.register(rateLimitPlugin);
  await app.register(formbody);
  await app.register(swaggerPlugin, { config });
  await app.register(identityModule);
  await app.register(accessModule);
  await app.register(agentsModule);
  await app.register(changesModule);
  await app.register(spacesModule);
  await app.register(runsModule);
  await app.register(proxyPoolsModule);
  await app.register(schedulesModule);
  await app.register(billingModule);
  await app.register(analyticsModule);
  await app.register(builderModule);
  await app.register(webhooksModule);
  await app.register(authPlugin);

  await app.register(healthRoutes);
  await app.register(oauthRoutes);
  await app.register(usersRoutes);
  await app.register(agentsRoutes);
  await app.register(agentChangesRoutes);
  await app.register(spacesRoutes);
  await app.register(runsRoutes);
  await app.register(proxyPoolsRoutes);
  await app.register(schedulesRoutes);
  await app.register(billingRoutes);
  await app.register(analyticsRoutes);
  await app.register(agentBuilderRoutes);
  await app.register(webhooksRoutes);
  await app.register(consolePlugin, { config });

  return app;
}
