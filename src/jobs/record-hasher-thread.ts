// The worker's thread that parses and hashes a change-tracking Run's records (record-hasher.ts). It
// lowers its own CPU priority first: on Linux the nice value belongs to the thread, so only this
// thread yields, to the run processes' crawls and to the worker's other work. It holds nothing between
// requests.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { ExtractedRecord } from '../engine/extract.js';
import { hasherOf } from './record-hashes.js';
import { HASHER_NICE_STEP, type HashReply, type HashRequest } from './record-hasher.js';

if (process.platform === 'linux') {
  try {
    // Relative to the priority the thread was started with (the worker process's own).
    os.setPriority(0, Math.min(19, os.getPriority(0) + HASHER_NICE_STEP));
  } catch {
    // A system that refuses it hashes at the process's priority.
  }
}

const port = parentPort!;
port.on('message', (request: HashRequest) => {
  let reply: HashReply;
  try {
    const hash = hasherOf(request.plan);
    const keys: Array<string | null> = [];
    const values: string[] = [];
    const lists: string[] = [];
    for (const line of request.ndjson.split('\n')) {
      if (line.length === 0) continue;
      const h = hash(JSON.parse(line) as ExtractedRecord);
      keys.push(h.key);
      values.push(h.values);
      lists.push(h.list);
    }
    reply = { id: request.id, ok: true, keys, values, lists };
  } catch (error) {
    reply = { id: request.id, ok: false, message: (error as Error)?.message ?? String(error) };
  }
  port.postMessage(reply);
});
