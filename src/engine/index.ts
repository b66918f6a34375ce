/** The extraction engine: definitions, crawling, export and run files. Knows nothing of HTTP routes, queues or the database. */
export * from './definition.js';
export * from './definition-validate.js';
export * from './definition-changes.js';
export * from './crawler.js';
export * from './extraction-types.js';
export * from './evidence.js';
export * from './export.js';
export * from './ssrf.js';
export { HttpClient } from './http.js';
export {
  chromiumAvailable,
  CHROMIUM_PATH_HINT,
  closeSharedBrowserPool,
  pooledBrowserSources,
  renderPage,
} from './browser/index.js';
export { startPageFailureMessage } from './messages.js';
export * from './failure-codes.js';
export type { FetchedPage, FetchResult, GetOptions, PageRequest, PageSource } from './page.js';
export type { ProxyOutcome } from './proxy-rotation.js';
export { DEFAULT_PAGE_CPU_SECONDS, warmPageWorker } from './page-worker.js';
export { parseHtml } from './parse.js';
export { createMasker, SECRET_MASK } from './secrets.js';
export { placeholdersOf, substitutePlaceholders } from './template.js';
export type { ExtractedRecord, FieldValue } from './extract.js';
export * from './checkpoint.js';
export { MAX_SNAPSHOTS, SNAPSHOT_HTML_MAX_BYTES, SNAPSHOT_PNG_MAX_BYTES, writeSnapshots } from './snapshots.js';
export type { PageSnapshot, SnapshotRef } from './snapshots.js';
export { SuccessCriteriaSchema, type SuccessCriteria } from './definition-criteria.js';
