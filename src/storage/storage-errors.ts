// Storage failures told so that the people who meet them can act: a full disk, a quota, a permission,
// a read-only volume, or an object store that refuses, is missing, throttles or cannot be reached.

export enum StorageFailureKind {
  DiskFull = 'diskFull',
  QuotaExceeded = 'quotaExceeded',
  PermissionDenied = 'permissionDenied',
  ReadOnly = 'readOnly',
  AccessDenied = 'accessDenied',
  NoSuchBucket = 'noSuchBucket',
  Throttled = 'throttled',
  Unreachable = 'unreachable',
}

export interface StorageFailure {
  kind: StorageFailureKind;
  /** Names the cause and what to do; never the store's credentials or raw exception text. */
  message: string;
}

/** Every storage failure message starts with this. */
export const STORAGE_FAILURE_PREFIX = "The Run's files could not be stored:";

const ACTIONS: Record<StorageFailureKind, string> = {
  diskFull:
    'the storage volume is full (no space left on device). The operator should free space or enlarge the volume of STORAGE_DIR, then start the Agent again.',
  quotaExceeded:
    "the disk quota of the service's user is exhausted. The operator should raise the quota or free space in STORAGE_DIR, then start the Agent again.",
  permissionDenied:
    'the service may not write to its storage folder (permission denied). The operator should give the service user write access to STORAGE_DIR.',
  readOnly:
    'the storage volume is mounted read-only. The operator should remount STORAGE_DIR read-write (a read-only remount often follows disk errors).',
  accessDenied:
    'the object store refused access. The operator should check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and the bucket policy (write, read, list and delete are needed).',
  noSuchBucket: 'the bucket named by S3_BUCKET does not exist. The operator should create it or correct S3_BUCKET.',
  throttled:
    "the object store is throttling requests (slow down). Start the Agent again later; the operator may raise the store's limits.",
  unreachable:
    'the object store could not be reached. The operator should check S3_ENDPOINT and the network between the workers and the store.',
};

const ERRNO: Record<string, StorageFailureKind> = {
  ENOSPC: StorageFailureKind.DiskFull,
  EDQUOT: StorageFailureKind.QuotaExceeded,
  EACCES: StorageFailureKind.PermissionDenied,
  EPERM: StorageFailureKind.PermissionDenied,
  EROFS: StorageFailureKind.ReadOnly,
  ECONNREFUSED: StorageFailureKind.Unreachable,
  ECONNRESET: StorageFailureKind.Unreachable,
  ENOTFOUND: StorageFailureKind.Unreachable,
  EAI_AGAIN: StorageFailureKind.Unreachable,
  ETIMEDOUT: StorageFailureKind.Unreachable,
  EHOSTUNREACH: StorageFailureKind.Unreachable,
  ENETUNREACH: StorageFailureKind.Unreachable,
};

const S3_NAMES: Record<string, StorageFailureKind> = {
  AccessDenied: StorageFailureKind.AccessDenied,
  InvalidAccessKeyId: StorageFailureKind.AccessDenied,
  SignatureDoesNotMatch: StorageFailureKind.AccessDenied,
  NoSuchBucket: StorageFailureKind.NoSuchBucket,
  SlowDown: StorageFailureKind.Throttled,
  Throttling: StorageFailureKind.Throttled,
  ThrottlingException: StorageFailureKind.Throttled,
  RequestLimitExceeded: StorageFailureKind.Throttled,
  ServiceUnavailable: StorageFailureKind.Throttled,
  TimeoutError: StorageFailureKind.Unreachable,
};

/** The kind of a storage error, or null for anything else. Looks through `cause` chains. */
export function storageFailureKind(err: unknown): StorageFailureKind | null {
  for (
    let e = err as { code?: unknown; name?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'string' && ERRNO[e.code]) return ERRNO[e.code];
    if (typeof e.name === 'string' && S3_NAMES[e.name]) return S3_NAMES[e.name];
    if (Array.isArray((e as { errors?: unknown }).errors)) {
      // AggregateError from a connection attempt to several addresses.
      const inner = (e as { errors: unknown[] }).errors.map(storageFailureKind).find((k) => k !== null);
      if (inner) return inner;
    }
  }
  return null;
}

export function describeStorageFailure(kind: StorageFailureKind): StorageFailure {
  return { kind, message: `${STORAGE_FAILURE_PREFIX} ${ACTIONS[kind]}` };
}

/** A readable failure for a storage error, or null when `err` is not one. */
export function storageFailureOf(err: unknown): StorageFailure | null {
  const kind = storageFailureKind(err);
  return kind === null ? null : describeStorageFailure(kind);
}
