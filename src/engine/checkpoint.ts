// Where a crawl has got to, so that a Run interrupted (its worker shut down or lost) goes on from there
// instead of starting again: per set of inputs, how many inputs are done and the list page the input in
// progress goes on at; the figures so far. The engine reports it after each list page (with the records
// of that page already given to `onRecords`), and takes it back as `resume`. The caller stores it, with
// the records, wherever it likes; the engine never reads or writes storage for it.
import { CHECKPOINT_VERSION, type CrawlCheckpoint } from './extraction-types.js';

/** A checkpoint this engine can go on from, for a crawl of `setCount` sets; null for anything else. */
export function usableCheckpoint(value: unknown, setCount: number): CrawlCheckpoint | null {
  const cp = value as CrawlCheckpoint | null | undefined;
  if (!cp || cp.version !== CHECKPOINT_VERSION || !Array.isArray(cp.sets) || cp.sets.length !== setCount) return null;
  return cp;
}

/** One line for the Run's log: where a resumed crawl goes on. */
export function describeCheckpoint(cp: CrawlCheckpoint): string {
  const inputs = cp.sets.reduce((n, s) => n + s.inputsDone, 0);
  const at = cp.sets
    .map((s) => s.current)
    .filter((c) => c !== null)
    .map((c) => `page ${c.pageNumber} (${c.url})`);
  return (
    `${inputs} input(s) done, ${cp.stats.pageCount} pages, ${cp.stats.dataCount} records` +
    (at.length > 0 ? `; going on at ${at.join(', ')}` : '')
  );
}
