// The pieces config.ts builds a Config from: typed reads of one environment variable each (a bad value
// is a ConfigError naming it), and the sections that take several (encryption key, HTTP timeouts,
// storage, Agent Builder, server groups).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { StorageSettings } from './storage/index.js';
import type { Config } from './config-types.js';

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = str(env, name, fallback).trim().toLowerCase();
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
  return raw as T;
}

export function url(env: Env, name: string, fallback: string, protocols: string[]): string {
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
export function price(env: Env, name: string, fallback: string): string {
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
export function encryptionKey(env: Env, storage: StorageSettings, warn: (msg: string) => void): Buffer {
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

export function httpTimeouts(env: Env): Config['http'] {
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
export function storageSettings(env: Env, dir: string): StorageSettings {
  const driver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3'] as const, 'local');
  if (driver === 'local') return { driver, dir };
  const bucket = str(env, 'S3_BUCKET', '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(
      'S3_BUCKET must name a bucket (3-63 lower-case letters, digits, dots, hyphens) with STORAGE_DRIVER=s3',
    );
  const endpoint = env.S3_ENDPOINT ? url(env, 'S3_ENDPOINT', '', ['http:', 'https:']).replace(/\/$/, '') : '';
  // Only for the download URLs handed to clients (compose's S3_ENDPOINT is a name of its own network).
  const publicEndpoint = env.S3_PUBLIC_ENDPOINT
    ? url(env, 'S3_PUBLIC_ENDPOINT', '', ['http:', 'https:']).replace(/\/$/, '')
    : endpoint;
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
    publicEndpoint,
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

export function builderConfig(env: Env): Config['builder'] {
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
export function serverGroups(env: Env, name: string): { default: boolean; groups: number[] } {
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
