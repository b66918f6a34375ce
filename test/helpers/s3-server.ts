// The S3-compatible server the suite uses for real (Ceph radosgw, started by scripts/s3-server.sh):
// global setup starts it when it is not running and hands its settings to test files as TEST_S3_*.
// Set TEST_S3_ENDPOINT (and TEST_S3_BUCKET, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY) to use
// another server instead.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import type { S3StorageOptions } from '../../src/storage/index.js';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/s3-server.sh');

function scriptEnv(): Record<string, string> | null {
  try {
    const out = execFileSync(SCRIPT, ['env'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
  } catch {
    return null;
  }
}

/**
 * Makes sure a server answers, counting this process as one of its users (scripts/s3-server.sh acquire):
 * a server this call started is stopped by the last user's stopS3Server, not while another run uses it.
 * Returns whether it acquired one (false: TEST_S3_ENDPOINT names a server of the caller's own).
 */
export function ensureS3Server(): boolean {
  if (process.env.TEST_S3_ENDPOINT) return false;
  try {
    execFileSync(SCRIPT, ['acquire', String(process.pid)], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  } catch (err) {
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '')
      .trim()
      .split('\n')
      .slice(-3)
      .join('\n');
    throw new Error(
      `The test suite needs an S3-compatible server: scripts/s3-server.sh acquire failed (${stderr}). Run it by hand, or set TEST_S3_ENDPOINT.`,
    );
  }
  const env = scriptEnv();
  if (!env)
    throw new Error('The test suite needs an S3-compatible server: scripts/s3-server.sh env reports none running.');
  for (const [k, v] of Object.entries(env)) process.env[`TEST_${k}`] = v;
  return true;
}

/** This process is done with the server (stopped if it was the last user of a server a run started). */
export function stopS3Server(): void {
  execFileSync(SCRIPT, ['release', String(process.pid)], { stdio: 'ignore' });
}

/** The test server's settings with a key prefix of its own, so test files never see each other's objects. */
export function testS3Options(overrides: Partial<S3StorageOptions> = {}): S3StorageOptions {
  const e = process.env;
  if (!e.TEST_S3_ENDPOINT) throw new Error('TEST_S3_ENDPOINT is not set: the global setup starts the S3 server');
  return {
    endpoint: e.TEST_S3_ENDPOINT,
    publicEndpoint: overrides.endpoint ?? e.TEST_S3_ENDPOINT,
    region: e.TEST_S3_REGION ?? 'us-east-1',
    bucket: e.TEST_S3_BUCKET ?? 'cxs-test',
    prefix: `t-${crypto.randomBytes(5).toString('hex')}`,
    accessKeyId: e.TEST_S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: e.TEST_S3_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: true,
    presignSeconds: 300,
    ...overrides,
  };
}

/** Environment for a service process on the s3 driver against the test server. */
export function testS3Env(options: S3StorageOptions = testS3Options()): Record<string, string> {
  return {
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: options.endpoint,
    S3_PUBLIC_ENDPOINT: options.publicEndpoint,
    S3_REGION: options.region,
    S3_BUCKET: options.bucket,
    S3_PREFIX: options.prefix,
    S3_ACCESS_KEY_ID: options.accessKeyId,
    S3_SECRET_ACCESS_KEY: options.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PRESIGN_SECONDS: String(options.presignSeconds),
  };
}
