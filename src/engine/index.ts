/** The extraction engine: definitions, crawling, export and run files. Knows nothing of HTTP routes, queues or the database. */
export * from './definition.js';
export * from './crawler.js';
export * from './evidence.js';
export * from './export.js';
export * from './storage.js';
export * from './ssrf.js';
export { createMasker, SECRET_MASK } from './secrets.js';
export { placeholdersOf, substitutePlaceholders } from './template.js';
export type { ExtractedRecord, FieldValue } from './extract.js';
export * from './s3-storage.js';
export * from './storage-drivers.js';
export * from './storage-errors.js';
