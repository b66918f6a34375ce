// Which Storage a process uses, from its settings (STORAGE_DRIVER and friends).
import { S3Storage, type S3StorageOptions } from './s3-storage.js';
import { LocalStorage, type Storage } from './storage.js';

export type StorageSettings = { driver: 'local'; dir: string } | ({ driver: 's3' } & S3StorageOptions);

export function createStorage(settings: StorageSettings): Storage {
  return settings.driver === 's3' ? new S3Storage(settings) : new LocalStorage(settings.dir);
}
