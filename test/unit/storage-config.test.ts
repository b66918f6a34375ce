// STORAGE_DRIVER and the S3_* settings: defaults, and bad combinations stopping the process at start-up.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const KEY = crypto.randomBytes(32).toString('hex');
const S3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'run-files', ENCRYPTION_KEY: KEY };
const load = (env: Record<string, string>) => loadConfig({ STORAGE_DIR: '/tmp/cxs-config-test', ...env }, () => {});

describe('storage settings', () => {
  it('defaults to the local folder of STORAGE_DIR', () => {
    expect(load({ ENCRYPTION_KEY: KEY }).storage).toEqual({ driver: 'local', dir: '/tmp/cxs-config-test' });
  });

  it('reads the s3 settings, with AWS and the default credential chain when endpoint and keys are empty', () => {
    expect(load(S3).storage).toEqual({
      driver: 's3',
      endpoint: '',
      publicEndpoint: '',
      region: 'us-east-1',
      bucket: 'run-files',
      prefix: '',
      accessKeyId: '',
      secretAccessKey: '',
      forcePathStyle: false,
      presignSeconds: 300,
    });
    const custom = load({
      ...S3,
      S3_ENDPOINT: 'http://127.0.0.1:7480/',
      S3_REGION: 'eu-west-3',
      S3_PREFIX: '/prod/files/',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PRESIGN_SECONDS: '604800',
    }).storage;
    expect(custom).toMatchObject({
      endpoint: 'http://127.0.0.1:7480',
      publicEndpoint: 'http://127.0.0.1:7480',
      region: 'eu-west-3',
      prefix: 'prod/files',
      forcePathStyle: true,
      presignSeconds: 604800,
    });
    expect(load({ ...S3, S3_ENDPOINT: 'https://s3.example.com', S3_FORCE_PATH_STYLE: 'false' }).storage).toMatchObject({
      forcePathStyle: false,
    });
  });

  it('signs download URLs for S3_PUBLIC_ENDPOINT when set (compose: S3_ENDPOINT is a name of its own network)', () => {
    const inCompose = { ...S3, S3_ENDPOINT: 'http://s3:8333' };
    expect(load(inCompose).storage).toMatchObject({ endpoint: 'http://s3:8333', publicEndpoint: 'http://s3:8333' });
    expect(load({ ...inCompose, S3_PUBLIC_ENDPOINT: 'http://localhost:8333/' }).storage).toMatchObject({
      endpoint: 'http://s3:8333',
      publicEndpoint: 'http://localhost:8333',
    });
    expect(load({ ...S3, S3_PUBLIC_ENDPOINT: 'https://files.example.com' }).storage).toMatchObject({
      endpoint: '',
      publicEndpoint: 'https://files.example.com',
    });
  });

  it('reads the key from ENCRYPTION_KEY_FILE (compose shares one this way), ENCRYPTION_KEY winning', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-key-')), 'encryption.key');
    fs.writeFileSync(file, `${KEY}\n`);
    expect(load({ ...S3, ENCRYPTION_KEY: '', ENCRYPTION_KEY_FILE: file }).encryptionKey.toString('hex')).toBe(KEY);
    const other = crypto.randomBytes(32).toString('hex');
    expect(load({ ENCRYPTION_KEY: other, ENCRYPTION_KEY_FILE: file }).encryptionKey.toString('hex')).toBe(other);
    expect(() => load({ ENCRYPTION_KEY_FILE: `${file}.missing` })).toThrow(
      /ENCRYPTION_KEY_FILE .* cannot be read: ENOENT/,
    );
    fs.writeFileSync(file, 'short');
    expect(() => load({ ENCRYPTION_KEY_FILE: file })).toThrow(/must be 32 bytes/);
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it('stops at start-up on a bad combination, with a message naming the setting', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...S3, STORAGE_DRIVER: 'gcs' }, /STORAGE_DRIVER must be one of local, s3/],
      [{ ...S3, S3_BUCKET: '' }, /S3_BUCKET must name a bucket/],
      [{ ...S3, S3_BUCKET: 'Bad_Bucket' }, /S3_BUCKET must name a bucket/],
      [{ ...S3, S3_ENDPOINT: 'ftp://x' }, /S3_ENDPOINT must use http: or https:/],
      [{ ...S3, S3_PUBLIC_ENDPOINT: 'ftp://x' }, /S3_PUBLIC_ENDPOINT must use http: or https:/],
      [{ ...S3, S3_PUBLIC_ENDPOINT: 'not a url' }, /S3_PUBLIC_ENDPOINT is not a valid URL/],
      [{ ...S3, S3_ACCESS_KEY_ID: 'id' }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/],
      [{ ...S3, S3_SECRET_ACCESS_KEY: 'secret' }, /must be set together/],
      [{ ...S3, S3_PRESIGN_SECONDS: '604801' }, /S3_PRESIGN_SECONDS must be between 1 and 604800/],
      [{ ...S3, S3_PRESIGN_SECONDS: '0' }, /S3_PRESIGN_SECONDS must be between 1 and 604800/],
      [{ ...S3, S3_PREFIX: 'a/../b' }, /S3_PREFIX must be a plain key prefix/],
      [{ ...S3, ENCRYPTION_KEY: '' }, /ENCRYPTION_KEY is required with STORAGE_DRIVER=s3/],
    ];
    for (const [env] of cases) expect(() => load(env), JSON.stringify(env)).toThrow(ConfigError);
    for (const [env, message] of cases) expect(() => load(env)).toThrow(message);
  });
});
