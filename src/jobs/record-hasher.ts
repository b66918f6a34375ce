// Parsing and hashing a change-tracking Run's records for the worker's tracker (run-changes-tracker.ts),
// in a thread of its own at a lower CPU priority (record-hasher-thread.ts). It is the tracker's main CPU
// cost, and it comes while the Run crawls: on a machine whose cores the Runs keep busy, the run
// processes get the CPU first and the hashing takes what they leave (it catches up as the crawl ends).
// One thread per worker process, started on first use, answering in the order asked; a thread that
// dies fails what it was asked (the tracker then gives up, and the Run's export does the work itself)
// and the next request starts another.
import { Worker } from 'node:worker_threads';
import type { RecordHashPlan } from './record-hashes.js';

/** How much the hashing thread raises its nice value above the process's (19 at most: the lowest priority). */
export const HASHER_NICE_STEP = 10;

/** A checkpoint's records to hash: JSON lines (empty lines skipped). */
export interface HashRequest {
  id: number;
  plan: RecordHashPlan;
  ndjson: string;
}

/** Each non-empty line's hashes, in order (key null: the record has no key value). */
export interface HashedLines {
  keys: Array<string | null>;
  values: string[];
  lists: string[];
}

export type HashReply = ({ ok: true } & HashedLines & { id: number }) | { id: number; ok: false; message: string };

// Under tsx (development, tests) the thread is TypeScript and registers the same loader itself.
const isTs = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(isTs ? './record-hasher-thread.ts' : './record-hasher-thread.js', import.meta.url);

function startThread(): Worker {
  if (!isTs) return new Worker(THREAD_URL);
  const boot = `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(THREAD_URL.href)});`;
  return new Worker(boot, { eval: true });
}

interface Pending {
  resolve: (lines: HashedLines) => void;
  reject: (error: Error) => void;
}

let thread: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

function failAll(error: Error) {
  const waiting = [...pending.values()];
  pending.clear();
  for (const p of waiting) p.reject(error);
}

function threadOf(): Worker {
  if (thread) return thread;
  const started = startThread();
  started.on('message', (reply: HashReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (pending.size === 0) started.unref();
    if (reply.ok) p.resolve({ keys: reply.keys, values: reply.values, lists: reply.lists });
    else p.reject(new Error(reply.message));
  });
  const ended = (error: Error) => {
    if (thread === started) thread = null;
    failAll(error);
  };
  started.on('error', ended);
  started.on('exit', (code) => ended(new Error(`the record hashing thread exited with code ${code}`)));
  thread = started;
  return started;
}

/** Parses and hashes the records of `ndjson` by `plan`, off the worker's main thread. */
export function hashLines(plan: RecordHashPlan, ndjson: string): Promise<HashedLines> {
  return new Promise((resolve, reject) => {
    const id = ++nextId;
    const t = threadOf();
    pending.set(id, { resolve, reject });
    t.ref();
    t.postMessage({ id, plan, ndjson } satisfies HashRequest);
  });
}
