// The run host's side of resumable Runs: the crawl's checkpoints go to the worker with the records
// extracted since the previous one (the worker stores them), and an interrupted Run's next attempt
// starts with the records it had, its log as it was (every attempt stays in it), and a line saying
// where it goes on.
import { describeCheckpoint, usableCheckpoint, type CrawlCheckpoint, type ExtractedRecord } from '../engine/index.js';
import type { Storage } from '../storage/index.js';
import type { ChildMessage, ResumePayload } from '../services/runs/run-protocol.js';

/** Records given since the last checkpoint, sent with the next one. */
export function checkpointReporter(send: (msg: ChildMessage) => void) {
  const since = new Map<number, string[]>();
  return {
    records: (set: number, records: ExtractedRecord[]) => {
      const lines = since.get(set) ?? [];
      for (const r of records) lines.push(JSON.stringify(r));
      since.set(set, lines);
    },
    checkpoint: (checkpoint: CrawlCheckpoint) => {
      const records = [...since].map(([set, lines]) => ({ set, ndjson: lines.join('\n') + '\n' }));
      since.clear();
      send({ type: 'checkpoint', checkpoint, records });
    },
    /** The JSON lines of set `set`'s records given since the last checkpoint (no checkpoint will carry them now). */
    unsent: (set: number): string => {
      const lines = since.get(set) ?? [];
      since.delete(set);
      return lines.length === 0 ? '' : lines.join('\n') + '\n';
    },
  };
}

/** The records an interrupted Run had, per set, in order. */
export function* restoredRecords(resume: ResumePayload): Generator<{ set: number; records: ExtractedRecord[] }> {
  for (const { set, ndjson } of resume.records) {
    const records = ndjson
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as ExtractedRecord);
    if (records.length > 0) yield { set, records };
  }
}

/** The log an earlier attempt left (empty when there is none). */
export async function previousLog(storage: Storage, key: string): Promise<string> {
  if (!(await storage.stat(key))) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length === 0 || text.endsWith('\n') ? text : text + '\n';
}

/** `storage` whose writers start with `text` (a resumed Run's log goes on after its earlier attempts). */
export function continuingWriters(storage: Storage, text: string): Storage {
  if (text.length === 0) return storage;
  return Object.assign(Object.create(storage) as Storage, {
    openWriter(key: string) {
      const writer = storage.openWriter(key);
      writer.write(text);
      return writer;
    },
  });
}

/** The checkpoint the engine goes on from, and the log line that says so. */
export function resumeLine(resume: ResumePayload, setCount: number): { checkpoint?: CrawlCheckpoint; line: string } {
  const checkpoint = usableCheckpoint(resume.checkpoint, setCount) ?? undefined;
  return {
    checkpoint,
    line: checkpoint
      ? `Resumed (attempt ${resume.attempt}) from its last checkpoint: ${describeCheckpoint(checkpoint)}`
      : `Resumed (attempt ${resume.attempt}): no checkpoint was kept before the interruption; starting again from the first page`,
  };
}
