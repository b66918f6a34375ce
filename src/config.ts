// Environment -> typed, validated Config. A bad value stops the process with a clear message (exit 1).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { StorageSettings } from './engine/index.js';

export interface Config {
  databaseUrl: string;
  /** Connections each API process keeps to PostgreSQL. */
  databasePoolSize: number;
  /** Longest a request waits in line for a pooled connection before answering 503 "busy". */
  databasePoolWaitMs: number;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue of this deployment. */
  redisPrefix: string;
  host: string;
  port: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** LOG_FORMAT: JSON lines (default) or pretty, human-readable lines. */
  logFormat: 'json' | 'pretty';
  publicUrl: string;
  /** PUBLIC_URL was set (otherwise the OpenAPI description points at the origin it is served from). */
  publicUrlConfigured: boolean;
  encryptionKey: Buffer;
  /** The local driver's folder (STORAGE_DIR); with s3 it holds nothing shared. */
  storageDir: string;
  /** Where run files live: STORAGE_DRIVER=local (STORAGE_DIR) or s3 (S3_*). */
  storage: StorageSettings;
  /** CONSOLE_DIR: the built web console served at /console (default: console/dist of this checkout or image). */
  consoleDir: string;
  /** A worker warns when the volume of STORAGE_DIR and the temporary folder has less free than this. */
  storageMinFreeBytes: number;
  engineAllowPrivateTargets: boolean;
  /** CHROMIUM_PATH, BROWSER_MAX_PAGES (per run process), BROWSER_MAX_RSS_MB: the browser renderer (issue 23). */
  browser: { executablePath: string; maxPages: number; maxRssMb: number };
  /** `enabled: false` (RATE_LIMIT_ENABLED) when a gateway in front already limits; /oauth/token's limits stay. */
  rateLimit: { max: number; windowSeconds: number; queue: number; enabled: boolean };
  bodyLimitBytes: number;
  /** Timeouts of the API's HTTP server (milliseconds), from the HTTP_*_TIMEOUT_SECONDS settings. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
  trustProxy: boolean;
  jwt: { issuer: string; audience: string; accessTokenSeconds: number; refreshTokenDays: number };
  externalOAuth: { issuer: string; audience: string; jwksUrl: string } | null;
  apiKeyDefaultDays: number;
  apiKeyCacheSeconds: number;
  runs: {
    workerConcurrency: number;
    defaultTimeoutSeconds: number;
    waitOnFailureSeconds: number;
    waitOnFailureRetries: number;
    reconcileIntervalSeconds: number;
    /** A Run whose worker sent no heartbeat for this long is presumed lost. */
    staleAfterSeconds: number;
    requestTimeoutMs: number;
    /** CPU time one page's parse and extraction may take before the page fails (ENGINE_PAGE_CPU_SECONDS). */
    pageCpuSeconds: number;
    /** Run processes a worker starts ahead of its first Runs. */
    warmProcesses: number;
    /** Longest the API waits on Redis to queue or signal a Run before answering 503. */
    queueTimeoutMs: number;
    /** A stopped Run's requests still in flight are aborted after this long, then it exports. */
    stopGraceSeconds: number;
    /** A synchronous start answers its records inline up to this many bytes; above, 202 with the Run. */
    syncInlineMaxBytes: number;
    /** V8 old-space budget of a run process (MB); 0 leaves Node's default. */
    processMaxOldSpaceMb: number;
  };
  shutdownGraceSeconds: number;
  /**
   * Prometheus metrics listeners (METRICS_HOST, METRICS_PORT): one per process, the API's on `apiPort`
   * and the worker's on `workerPort` (METRICS_PORT sets the port of the process it is given to); 0: off.
   */
  metrics: { host: string; apiPort: number; workerPort: number };
  schedules: {
    /** How often a worker looks for due Schedules. */
    tickSeconds: number;
    /** Schedules claimed (and their Runs created) per transaction. */
    batchSize: number;
    /** The Run queues this worker consumes: the default one and/or server groups (WORKER_SERVER_GROUPS). */
    workerServerGroups: { default: boolean; groups: number[] };
  };
  billing: {
    /** Credits per unit of each usage type, as exact decimal strings (at most 6 decimal places). */
    prices: {
      serverTimeHour: string;
      exportGb: string;
      agentInput: string;
      proxyDataGb: string;
      exportCpm: string;
    };
    /** How often the worker records the expiry of grants whose expiresAt has passed. */
    expiryIntervalSeconds: number;
  };
  /** /oauth/token attempts per client IP and per username, checked before any password hashing. */
  loginRateLimit: { max: number; windowSeconds: number };
  /** Load shedding (503 + Retry-After) by @fastify/under-pressure; a threshold of 0 turns its check off. */
  loadShedding: { maxEventLoopDelayMs: number; maxHeapUsedBytes: number; retryAfterSeconds: number };
  builder: {
    /** OpenAI-compatible chat endpoint that refines drafts; null: heuristics only. */
    llm: { url: string; model: string; apiKey: string | null; timeoutMs: number } | null;
    workerConcurrency: number;
    /** Longest wait of GET .../events (design.md section 8: up to 30 s). */
    eventsWaitSeconds: number;
    /** Sessions untouched this long are deleted by the maintenance queue. */
    retentionDays: number;
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = str(env, name, fallback).trim().toLowerCase();
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
  return raw as T;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const v = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return v;
}

/** A non-negative decimal price with at most 6 decimal places (the precision of the credit columns). */
function price(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback).trim();
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(v))
    throw new ConfigError(`${name} must be a non-negative decimal with at most 6 decimal places, got "${v}"`);
  return v;
}

/**
 * ENCRYPTION_KEY (or the file named by ENCRYPTION_KEY_FILE): 32 bytes as 64 hex characters or base64.
 * When both are missing (local driver only), a development key is generated once and kept in
 * STORAGE_DIR so restarts can still read what was sealed.
 */
function encryptionKey(env: Env, storage: StorageSettings, warn: (msg: string) => void): Buffer {
  const file = env.ENCRYPTION_KEY_FILE;
  let raw = env.ENCRYPTION_KEY;
  let name = 'ENCRYPTION_KEY';
  if (!raw && file) {
    // A key file shared by the processes of one host (docker compose makes one, once).
    try {
      raw = fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(
        `ENCRYPTION_KEY_FILE ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    name = `the key in ENCRYPTION_KEY_FILE ${file}`;
  }
  if (raw) {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes: 64 hex characters or base64`);
    return key;
  }
  // Other hosts could not read a key generated here: every process must be given the same one.
  if (storage.driver === 's3')
    throw new ConfigError(
      'ENCRYPTION_KEY is required with STORAGE_DRIVER=s3 (the same on every host), or ENCRYPTION_KEY_FILE',
    );
  const storageDir = storage.dir;
  const devFile = path.join(storageDir, '.dev-encryption-key');
  try {
    const existing = fs.readFileSync(devFile, 'utf8').trim();
    warn(`ENCRYPTION_KEY is not set; using the development key kept in ${devFile}`);
    return Buffer.from(existing, 'hex');
  } catch {
    fs.mkdirSync(storageDir, { recursive: true });
    const key = crypto.randomBytes(32);
    try {
      fs.writeFileSync(devFile, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process (the API or the worker) created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        return Buffer.from(fs.readFileSync(devFile, 'utf8').trim(), 'hex');
      throw err;
    }
    warn(`ENCRYPTION_KEY is not set; generated a development key in ${devFile}`);
    return key;
  }
}

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
    },
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 600),
    metrics: {
      host: str(env, 'METRICS_HOST', '127.0.0.1'),
      apiPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
      workerPort: int(env, 'METRICS_PORT', 9465, 0, 65535),
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
 */
function httpTimeouts(env: Env): Config['http'] {
  const headers = int(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600);
  const request = int(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30, 1, 86_400);
  // Node refuses a headers timeout longer than the request timeout.
  if (headers > request)
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_SECONDS (${headers}) must not exceed HTTP_REQUEST_TIMEOUT_SECONDS (${request})`,
    );
  return {
    headersTimeoutMs: headers * 1000,
    requestTimeoutMs: request * 1000,
    // Longer than the 60 s idle timeout of common load balancers, so they close first (Fastify's default).
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600) * 1000,
    idleTimeoutMs: int(env, 'HTTP_IDLE_TIMEOUT_SECONDS', 60, 1, 86_400) * 1000,
  };
}

/** STORAGE_DRIVER and, for s3, the S3_* settings; a bad combination stops the process. */
function storageSettings(env: Env, dir: string): StorageSettings {
  const driver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3'] as const, 'local');
  if (driver === 'local') return { driver, dir };
  const bucket = str(env, 'S3_BUCKET', '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(
      'S3_BUCKET must name a bucket (3-63 lower-case letters, digits, dots, hyphens) with STORAGE_DRIVER=s3',
    );
  const endpoint = env.S3_ENDPOINT ? url(env, 'S3_ENDPOINT', '', ['http:', 'https:']).replace(/\/$/, '') : '';
  const accessKeyId = str(env, 'S3_ACCESS_KEY_ID', '');
  const secretAccessKey = str(env, 'S3_SECRET_ACCESS_KEY', '');
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left empty for the default credential chain)',
    );
  }
  const prefix = str(env, 'S3_PREFIX', '').replace(/^\/+|\/+$/g, '');
  if (prefix && prefix.split('/').some((s) => s === '' || s === '.' || s === '..'))
    throw new ConfigError(`S3_PREFIX must be a plain key prefix, got "${env.S3_PREFIX}"`);
  return {
    driver,
    endpoint,
    region: str(env, 'S3_REGION', 'us-east-1'),
    bucket,
    prefix,
    accessKeyId,
    secretAccessKey,
    // Self-hosted servers rarely have per-bucket DNS names.
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== ''),
    presignSeconds: int(env, 'S3_PRESIGN_SECONDS', 300, 1, 604_800),
  };
}

function builderConfig(env: Env): Config['builder'] {
  const llmUrl = env.BUILDER_LLM_URL;
  if (llmUrl && !env.BUILDER_LLM_MODEL)
    throw new ConfigError('BUILDER_LLM_MODEL is required when BUILDER_LLM_URL is set');
  return {
    llm: llmUrl
      ? {
          url: url(env, 'BUILDER_LLM_URL', '', ['http:', 'https:']),
          model: str(env, 'BUILDER_LLM_MODEL', ''),
          apiKey: env.BUILDER_LLM_API_KEY || null,
          timeoutMs: int(env, 'BUILDER_LLM_TIMEOUT_MS', 20_000, 100, 600_000),
        }
      : null,
    workerConcurrency: int(env, 'BUILDER_WORKER_CONCURRENCY', 2, 1, 64),
    eventsWaitSeconds: int(env, 'BUILDER_EVENTS_WAIT_SECONDS', 30, 1, 30),
    retentionDays: int(env, 'BUILDER_SESSION_RETENTION_DAYS', 7, 1, 3650),
  };
}

/**
 * WORKER_SERVER_GROUPS: comma-separated server group ids this worker executes Runs for, plus
 * `default` for Runs without a group. Unset: `default` only.
 */
function serverGroups(env: Env, name: string): { default: boolean; groups: number[] } {
  const raw = str(env, name, 'default');
  const out = { default: false, groups: [] as number[] };
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part.toLowerCase() === 'default') out.default = true;
    else if (/^\d+$/.test(part) && Number(part) >= 1 && Number(part) <= 2147483647) out.groups.push(Number(part));
    else throw new ConfigError(`${name} must list server group ids (positive integers) and/or "default", got "${raw}"`);
  }
  if (!out.default && out.groups.length === 0) throw new ConfigError(`${name} names no queue to serve`);
  out.groups = [...new Set(out.groups)];
  return out;
}

/**
 * Reads `.env` from the working directory into process.env, if the file exists. Variables already
 * set in the real environment win (Node's own parser, as `node --env-file` does).
 */
export function loadDotEnv(file = path.resolve('.env')): boolean {
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
