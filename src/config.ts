// Environment -> typed, validated Config. A bad value stops the process with a clear message (exit 1).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Config {
  databaseUrl: string;
  /** Connections each API process keeps to PostgreSQL. */
  databasePoolSize: number;
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
  storageDir: string;
  engineAllowPrivateTargets: boolean;
  rateLimit: { max: number; windowSeconds: number; queue: number };
  bodyLimitBytes: number;
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
    /** Run processes a worker starts ahead of its first Runs. */
    warmProcesses: number;
  };
  shutdownGraceSeconds: number;
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
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
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

/**
 * ENCRYPTION_KEY: 32 bytes as 64 hex characters or base64. When missing, a development key is
 * generated once and kept in STORAGE_DIR so restarts can still read what was sealed.
 */
function encryptionKey(env: Env, storageDir: string, warn: (msg: string) => void): Buffer {
  const raw = env.ENCRYPTION_KEY;
  if (raw) {
    const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64');
    return key;
  }
  const file = path.join(storageDir, '.dev-encryption-key');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    warn(`ENCRYPTION_KEY is not set; using the development key kept in ${file}`);
    return Buffer.from(existing, 'hex');
  } catch {
    fs.mkdirSync(storageDir, { recursive: true });
    const key = crypto.randomBytes(32);
    try {
      fs.writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process (the API or the worker) created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
      throw err;
    }
    warn(`ENCRYPTION_KEY is not set; generated a development key in ${file}`);
    return key;
  }
}

export function loadConfig(env: Env = process.env, warn: (msg: string) => void = (m) => process.stderr.write(`warning: ${m}\n`)): Config {
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  if (!(levels as readonly string[]).includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}`);
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '0.0.0.0');
  const storageDir = path.resolve(str(env, 'STORAGE_DIR', './storage'));
  const externalIssuer = env.OAUTH_ISSUER;
  const externalOAuth = externalIssuer
    ? {
        issuer: externalIssuer,
        audience: str(env, 'OAUTH_AUDIENCE', ''),
        jwksUrl: url(env, 'OAUTH_JWKS_URL', '', ['http:', 'https:']),
      }
    : null;
  if (externalOAuth && !externalOAuth.audience) throw new ConfigError('OAUTH_AUDIENCE is required when OAUTH_ISSUER is set');
  // Behind a published port (docker compose's API_PORT) clients use that port, not the one we listen on.
  const apiPort = int(env, 'API_PORT', port, 1, 65535);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${apiPort}`, ['http:', 'https:']).replace(/\/$/, '');
  return {
    databaseUrl: url(env, 'DATABASE_URL', 'postgresql://postgres@127.0.0.1:5432/cloud_extraction', ['postgresql:', 'postgres:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'cxs'),
    host,
    port,
    logLevel: logLevel as Config['logLevel'],
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json'),
    publicUrl,
    publicUrlConfigured: Boolean(env.PUBLIC_URL),
    encryptionKey: encryptionKey(env, storageDir, warn),
    storageDir,
    engineAllowPrivateTargets: bool(env, 'ENGINE_ALLOW_PRIVATE_TARGETS', false),
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 100, 1, 1_000_000),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      queue: int(env, 'RATE_LIMIT_QUEUE', 10, 0, 10_000),
    },
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
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
      warmProcesses: int(env, 'RUN_WARM_PROCESSES', 2, 0, 256),
    },
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 600),
  };
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
