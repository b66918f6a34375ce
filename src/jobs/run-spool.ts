// A run process's records between the crawl and the export. They are held in memory, as the engine gives
// them, up to `heldBytes` of JSON (a small Run touches no scratch file and parses nothing back); past that,
// every set goes to a spool file of its own as JSON lines (memory stays flat whatever their number). The
// export and the synchronous start's records file read them from either, set by set, in order.
import { createInterface } from 'node:readline';
import type { ExtractedRecord } from '../engine/index.js';
import type { Storage, StorageWriter } from '../storage/index.js';
import { runSpoolKey } from '../services/runs/run-protocol.js';

export function createRecordSpool(scratch: Pick<Storage, 'openWriter' | 'get'>, heldBytes: number) {
  const spools = new Map<number, StorageWriter>();
  const held = new Map<number, ExtractedRecord[]>();
  let heldSoFar = 0;
  const lines = (records: ExtractedRecord[]) => records.map((r) => JSON.stringify(r) + '\n').join('');

  return {
    /** Keeps a page's records of set `set`. */
    spool(set: number, records: ExtractedRecord[]): void {
      if (spools.size === 0) {
        // The size of their JSON lines: the brackets and commas of one array stand for the newlines.
        const bytes = JSON.stringify(records).length;
        if (heldSoFar + bytes <= heldBytes) {
          const kept = held.get(set);
          if (kept) for (const r of records) kept.push(r);
          else held.set(set, [...records]);
          heldSoFar += bytes;
          return;
        }
      }
      const write = (s: number, t: string) => {
        let writer = spools.get(s);
        if (!writer) spools.set(s, (writer = scratch.openWriter(runSpoolKey(s))));
        writer.write(t);
      };
      // Past the limit: what was held goes first to its set's file, and nothing is held any more.
      for (const [s, kept] of held) write(s, lines(kept));
      held.clear();
      write(set, lines(records));
    },

    /** The records of set `set`, in the order they were kept (the spool files closed first: closeSpools). */
    async *spooledRecords(set: number): AsyncGenerator<ExtractedRecord> {
      const kept = held.get(set);
      if (kept) yield* kept;
      if (!spools.has(set)) return;
      const read = createInterface({ input: await scratch.get(runSpoolKey(set)), crlfDelay: Infinity });
      for await (const line of read) if (line.length > 0) yield JSON.parse(line) as ExtractedRecord;
    },

    /** Closes the spool files (before they are read). */
    async closeSpools(): Promise<void> {
      for (const writer of spools.values()) await writer.close();
    },
  };
}
