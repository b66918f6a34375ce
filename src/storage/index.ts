/** Where Run files live: the Storage contract, its local and S3 drivers, and how their failures are told. */
export * from './storage.js';
export * from './s3-storage.js';
export * from './storage-drivers.js';
export * from './storage-errors.js';
export * from './storage-retry.js';
