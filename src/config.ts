// Environment -> typed, validated Config. A bad value stops the process with a clear message (exit 1).
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import {
  bool,
  builderConfig,
  ConfigError,
  encryptionKey,
  httpTimeouts,
  int,
  oneOf,
  price,
  serverGroups,
  storageSettings,
  str,
  url,
  type Env,
} from './config-env.js';
import type { Config } from './config-types.js';

export type { Config } from './config-types.js';
export { ConfigError } from './config-env.js';

export function loadConfig(
  env: Env = process.env,
  warn: (msg: string) => void = (m) => process.stderr.write(`warning: ${m}\n`),
): Config {
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  if (!(levels as readonly string[]).includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}`);
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '0.0.0.0');
  const storageDir = path.resolve(str(env, 'STORAGE_DIR', './storage'));
  const storage = storageSettings(env, storageDir);
  const externalIssuer = env.OAUTH_ISSUER;
  const externalOAuth = externalIssuer
    ? {
        issuer: externalIssuer,
        audience: str(env, 'OAUTH_AUDIENCE', ''),
        jwksUrl: url(env, 'OAUTH_JWKS_URL', '', ['http:', 'https:']),
      }
    : null;
  if (externalOAuth && !externalOAuth.audience)
    throw new ConfigError('OAUTH_AUDIENCE is required when OAUTH_ISSUER is set');
  // Behind a published port (docker compose's API_PORT) clients use that port, not the one we listen on.
  const apiPort = int(env, 'API_PORT', port, 1, 65535);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${apiPort}`, ['http:', 'https:']).replace(/\/$/, '');
  return {
    databaseUrl: url(env, 'DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/cloud_extraction', [
      'postgresql:',
      'postgres:',
    ]),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    databasePoolWaitMs: int(env, 'DATABASE_POOL_WAIT_MS', 10_000, 1, 600_000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'cxs'),
    host,
    port,
    logLevel: logLevel as Config['logLevel'],
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json'),
    publicUrl,
    publicUrlConfigured: Boolean(env.PUBLIC_URL),
    encryptionKey: encryptionKey(env, storage, warn),
    storageDir,
    storage,
    // src/ and dist/ sit at the same depth, so the same relative path finds console/dist from both.
    consoleDir: path.resolve(env.CONSOLE_DIR ?? path.join(import.meta.dirname, '..', 'console', 'dist')),
    storageMinFreeBytes: int(env, 'STORAGE_MIN_FREE_MB', 1024, 0, 1_048_576) * 1024 * 1024,
    engineAllowPrivateTargets: bool(env, 'ENGINE_ALLOW_PRIVATE_TARGETS', false),
    webhookAttemptTimeoutMs: int(env, 'WEBHOOK_ATTEMPT_TIMEOUT_SECONDS', 15, 1, 60) * 1000,
    browser: {
      executablePath: str(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
      maxPages: int(env, 'BROWSER_MAX_PAGES', 4, 1, 64),
      maxRssMb: int(env, 'BROWSER_MAX_RSS_MB', 1536, 128, 65_536),
    },
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 100, 1, 1_000_000),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      queue: int(env, 'RATE_LIMIT_QUEUE', 10, 0, 10_000),
      enabled: bool(env, 'RATE_LIMIT_ENABLED', true),
    },
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    http: httpTimeouts(env),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    jwt: {
      issuer: str(env, 'JWT_ISSUER', publicUrl),
      audience: str(env, 'JWT_AUDIENCE', 'cloud-extraction-api'),
      accessTokenSeconds: int(env, 'ACCESS_TOKEN_SECONDS', 900, 60, 86_400),
      refreshTokenDays: int(env, 'REFRESH_TOKEN_DAYS', 30, 1, 365),
    },
    externalOAuth,
    apiKeyDefaultDays: int(env, 'API_KEY_DEFAULT_DAYS', 365, 1, 3650),
    apiKeyCacheSeconds: int(env, 'API_KEY_CACHE_SECONDS', 60, 0, 3600),
    runs: {
      workerConcurrency: int(env, 'RUN_WORKER_CONCURRENCY', 4, 1, 256),
      defaultTimeoutSeconds: int(env, 'RUN_TIMEOUT_SECONDS', 3600, 1, 7 * 86_400),
      waitOnFailureSeconds: int(env, 'RUN_WAIT_ON_FAILURE_SECONDS', 60, 0, 86_400),
      waitOnFailureRetries: int(env, 'RUN_WAIT_ON_FAILURE_RETRIES', 3, 0, 100),
      reconcileIntervalSeconds: int(env, 'RUN_RECONCILE_INTERVAL_SECONDS', 30, 1, 3600),
      staleAfterSeconds: int(env, 'RUN_STALE_SECONDS', 60, 2, 86_400),
      requestTimeoutMs: int(env, 'ENGINE_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
      pageCpuSeconds: int(env, 'ENGINE_PAGE_CPU_SECONDS', 5, 1, 3600),
      warmProcesses: int(env, 'RUN_WARM_PROCESSES', 2, 0, 256),
      queueTimeoutMs: int(env, 'RUN_QUEUE_TIMEOUT_MS', 2000, 100, 60_000),
      stopGraceSeconds: int(env, 'RUN_STOP_GRACE_SECONDS', 5, 0, 3600),
      syncInlineMaxBytes: int(env, 'RUN_SYNC_INLINE_MAX_BYTES', 16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
      processMaxOldSpaceMb: int(env, 'RUN_PROCESS_MAX_OLD_SPACE_MB', 128, 0, 65_536),
      // How long a Run's files wait for an object store that cannot be reached or throttles.
      storageRetrySeconds: int(env, 'STORAGE_RETRY_SECONDS', 300, 0, 86_400),
      // How many times a Run whose worker was lost goes on elsewhere from its checkpoint before it fails.
      maxTakeovers: int(env, 'RUN_MAX_TAKEOVERS', 3, 0, 100),
    },
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 600),
    metrics: {
      host: str(env, 'METRICS_HOST', '127.0.0.1'),
      apiPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
      workerPort: int(env, 'METRICS_PORT', 9465, 0, 65535),
      portExplicit: (env.METRICS_PORT ?? '').trim() !== '',
    },
    schedules: {
      tickSeconds: int(env, 'SCHEDULE_TICK_SECONDS', 1, 1, 60),
      batchSize: int(env, 'SCHEDULE_BATCH_SIZE', 200, 1, 10_000),
      workerServerGroups: serverGroups(env, 'WORKER_SERVER_GROUPS'),
    },
    billing: {
      prices: {
        serverTimeHour: price(env, 'PRICE_SERVER_TIME_HOUR', '1'),
        exportGb: price(env, 'PRICE_EXPORT_GB', '0.5'),
        agentInput: price(env, 'PRICE_AGENT_INPUT', '0.001'),
        proxyDataGb: price(env, 'PRICE_PROXY_DATA_GB', '5'),
        exportCpm: price(env, 'PRICE_EXPORT_CPM', '0.1'),
      },
      expiryIntervalSeconds: int(env, 'CREDIT_EXPIRY_INTERVAL_SECONDS', 300, 1, 86_400),
      creditsLowThreshold: price(env, 'CREDITS_LOW_THRESHOLD', '10'),
    },
    loginRateLimit: {
      max: int(env, 'LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
      windowSeconds: int(env, 'LOGIN_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    },
    loadShedding: {
      maxEventLoopDelayMs: int(env, 'LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
      // Default: 90% of V8's heap limit, shed before the process runs out of memory.
      maxHeapUsedBytes: int(
        env,
        'LOAD_SHED_MAX_HEAP_USED_BYTES',
        Math.floor(v8.getHeapStatistics().heap_size_limit * 0.9),
        0,
        Number.MAX_SAFE_INTEGER,
      ),
      retryAfterSeconds: int(env, 'LOAD_SHED_RETRY_AFTER_SECONDS', 2, 1, 3600),
    },
    builder: builderConfig(env),
  };
}

/**
 * The HTTP server's timeouts. Headers and whole requests are bounded so slow clients cannot hold
 * sockets; waiting for an answer is not bounded by them (routes that wait declare how long).
 */ export function loadDotEnv(file = path.resolve('.env')): boolean {
  if (!fs.existsSync(file)) return false;
  try {
    process.loadEnvFile(file);
  } catch (err) {
    throw new ConfigError(`could not read ${file}: ${(err as Error).message}`);
  }
  return true;
}

/** For entry points (server, worker, CLI): `.env`, then the environment; on a problem print it and exit 1. */
export function loadConfigOrExit(): Config {
  try {
    loadDotEnv();
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
