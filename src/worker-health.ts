// The worker's health check (Docker HEALTHCHECK): exit 0 when this host's worker wrote its heartbeat
// recently (it reaches PostgreSQL and Redis and its loop runs), 1 otherwise. Small on purpose: it
// loads ioredis only.
import { Redis } from 'ioredis';
import { loadConfigOrExit } from './config.js';
import { readHeartbeat } from './jobs/worker-health.js';

const config = loadConfigOrExit();
const redis = new Redis(config.redisUrl, {
  lazyConnect: true,
  maxRetriesPerRequest: 0,
  connectTimeout: 2000,
  retryStrategy: () => null,
});
redis.on('error', () => {});
try {
  await redis.connect();
  const beat = await readHeartbeat(redis, config.redisPrefix);
  if (!beat) {
    process.stderr.write('unhealthy: no recent worker heartbeat\n');
    process.exitCode = 1;
  } else {
    process.stdout.write(`healthy: heartbeat at ${beat.at}\n`);
  }
} catch (err) {
  process.stderr.write(`unhealthy: Redis unreachable (${(err as Error).message})\n`);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
