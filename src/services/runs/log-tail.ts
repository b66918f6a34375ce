// The last lines of a Run's log, read from the stored log as it grows (GET .../run/{runId}/log): the
// console follows a running Run with it. The stored text is read once, keeping only the last `max`
// lines, so a log of any length costs its reading time and `max` lines of memory.
import type { Readable } from 'node:stream';
import { StorageNotFoundError, type Storage } from '../../storage/index.js';
import { StringDecoder } from 'node:string_decoder';

export interface LogTail {
  lines: string[];
  /** Complete lines in the whole log (the tail's first line is number totalLines - lines.length + 1). */
  totalLines: number;
}

export async function tailLines(stream: Readable | AsyncIterable<Buffer | string>, max: number): Promise<LogTail> {
  const ring: string[] = new Array<string>(max);
  let total = 0;
  let partial = '';
  // A character split between two chunks is decoded whole.
  const decoder = new StringDecoder('utf8');
  const push = (line: string) => {
    ring[total % max] = line;
    total++;
  };
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) push(line);
  }
  // A last line without its newline is still being written: it is left for the next read.
  const count = Math.min(total, max);
  const start = total - count;
  const lines = Array.from({ length: count }, (_, i) => ring[(start + i) % max]);
  return { lines, totalLines: total };
}

/** The last `max` lines of the stored log at `key`; none when it is not written yet or is gone. */
export async function readLogTail(storage: Storage, key: string, max: number): Promise<LogTail> {
  try {
    return await tailLines(await storage.get(key), max);
  } catch (err) {
    if (err instanceof StorageNotFoundError) return { lines: [], totalLines: 0 };
    throw err;
  }
}
