// Postgres (Prisma over pg) and Redis connections, closed when the app closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { createPrisma, type Db } from '../../db/prisma.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { createDependencyMonitor, type DependencyMonitor } from '../../lib/dependencies.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    redis: Redis;
    /**
     * The connection for the Redis commands a request waits on (rate-limit steps): it
     * fails at once while Redis is away (no offline queue, no retries), so requests fall back
     * instead of hanging, and commands issued in the same tick share one round trip.
     */
    requestRedis: Redis;
    clock: Clock;
    /** Reachability of PostgreSQL and Redis as this process sees it (logged once per change). */
    dependencies: DependencyMonitor;
  }
}

export default fp(
  async function infraPlugin(app: FastifyInstance, opts: { config: Config; clock?: Clock }) {
    const db = createPrisma(opts.config.databaseUrl, {
      max: opts.config.databasePoolSize,
      poolWaitMs: opts.config.databasePoolWaitMs,
    });
    const redis = new Redis(opts.config.redisUrl, {
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      lazyConnect: false,
    });
    const requestRedis = redis.duplicate({
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
      enableAutoPipelining: true,
    });
    // Its reconnection errors repeat every few seconds; the main connection's monitor reports the state.
    requestRedis.on('error', () => undefined);
    await requestRedis.connect().catch(() => undefined);
    const dependencies = createDependencyMonitor({
      log: app.log,
      probes: { postgres: () => db.$queryRawUnsafe('SELECT 1'), redis: () => redis.ping() },
    });
    // ioredis reports every failed reconnect attempt; the monitor logs only the change.
    redis.on('error', (err) => dependencies.down('redis', err));
    redis.on('ready', () => dependencies.up('redis'));
    app.decorate('config', opts.config);
    app.decorate('db', db);
    app.decorate('redis', redis);
    app.decorate('requestRedis', requestRedis);
    app.decorate('clock', opts.clock ?? systemClock);
    app.decorate('dependencies', dependencies);
    app.addHook('onClose', async () => {
      dependencies.close();
      await db.$disconnect();
      // QUIT lets commands already sent finish; a connection still being set up is just dropped.
      await redis.quit().catch(() => redis.disconnect());
      await requestRedis.quit().catch(() => requestRedis.disconnect());
    });
  },
  { name: 'infra' },
);
