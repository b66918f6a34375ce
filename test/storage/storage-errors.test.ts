// Storage errors told as causes users can act on: errno codes of a local volume and the
// S3 error names, also when wrapped; anything else is not a storage failure.
import { describe, expect, it } from 'vitest';
import { STORAGE_FAILURE_PREFIX, storageFailureKind, storageFailureOf, StorageFailureKind as K } from '../../src/storage/index.js';

const errno = (code: string) => Object.assign(new Error(`${code}: something happened`), { code });
const s3 = (name: string) => Object.assign(new Error('from the store'), { name, $metadata: { httpStatusCode: 403 } });

describe('storage failures', () => {
  it('names the cause of local volume errors', () => {
    expect(storageFailureKind(errno('ENOSPC'))).toBe(K.DiskFull);
    expect(storageFailureKind(errno('EDQUOT'))).toBe(K.QuotaExceeded);
    expect(storageFailureKind(errno('EACCES'))).toBe(K.PermissionDenied);
    expect(storageFailureKind(errno('EROFS'))).toBe(K.ReadOnly);
  });

  it('names the cause of object store errors, through causes and aggregate errors', () => {
    expect(storageFailureKind(s3('AccessDenied'))).toBe(K.AccessDenied);
    expect(storageFailureKind(s3('InvalidAccessKeyId'))).toBe(K.AccessDenied);
    expect(storageFailureKind(s3('NoSuchBucket'))).toBe(K.NoSuchBucket);
    expect(storageFailureKind(s3('SlowDown'))).toBe(K.Throttled);
    expect(storageFailureKind(new Error('upload failed', { cause: errno('ECONNREFUSED') }))).toBe(K.Unreachable);
    expect(storageFailureKind(new AggregateError([errno('ECONNREFUSED')]))).toBe(K.Unreachable);
  });

  it('gives a message that names the cause and what to do, and null for other errors', () => {
    const failure = storageFailureOf(errno('ENOSPC'));
    expect(failure).toEqual({
      kind: K.DiskFull,
      message: expect.stringMatching(new RegExp(`^${STORAGE_FAILURE_PREFIX} the storage volume is full.*free space`)),
    });
    expect(storageFailureOf(s3('NoSuchBucket'))?.message).toMatch(/S3_BUCKET does not exist/);
    expect(storageFailureOf(new Error('boom'))).toBeNull();
    expect(storageFailureOf(errno('ENOENT'))).toBeNull();
  });
});
