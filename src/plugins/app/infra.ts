// Postgres (Prisma over pg) and Redis connections, closed when the app closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { createPrisma, type Db } from '../../db/prisma.js';
import { systemClock, type Clock } from '../../lib/clock.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    redis: Redis;
    clock: Clock;
  }
}

export default fp(async function infraPlugin(app: FastifyInstance, opts: { config: Config; clock?: Clock }) {
  const db = createPrisma(opts.config.databaseUrl, { max: opts.config.databasePoolSize });
  const redis = new Redis(opts.config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', (err) => app.log.warn({ err: { message: err.message } }, 'redis error'));
  app.decorate('config', opts.config);
  app.decorate('db', db);
  app.decorate('redis', redis);
  app.decorate('clock', opts.clock ?? systemClock);
  app.addHook('onClose', async () => {
    await db.$disconnect();
    // QUIT lets commands already sent finish; a connection still being set up is just dropped.
    await redis.quit().catch(() => redis.disconnect());
  });
});
