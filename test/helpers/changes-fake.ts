// An in-memory stand-in for the worker's answers to a run process's change-tracking questions, from a
// map of the keys the Agent knows (key hash -> [values hash, last values]).
import type { ExtractedRecord } from '../../src/engine/index.js';
import type { RemoteChanges } from '../../src/jobs/run-changes.js';
import type { ChangesAsk } from '../../src/services/changes/changes.service.js';

/** Answers a question as the worker's statements would; `seen` collects the keys the Run saw. */
export function answerOf(known: Map<string, [string, ExtractedRecord]>, seen: Set<string>, ask: ChangesAsk): unknown {
  switch (ask.op) {
    case 'begin':
      seen.clear();
      return null;
    case 'classify':
      for (const k of ask.keys) seen.add(k);
      return ask.keys.map((k) => known.get(k)?.[0] ?? null);
    case 'stage':
      return null;
    case 'lookup':
      return ask.keys.map((k) => known.get(k)?.[0] ?? null);
    case 'seen':
      for (const k of ask.keys) seen.add(k);
      return null;
    case 'unseenAfter':
      return [...known.keys()]
        .filter((k) => k > (ask.after ?? '') && !seen.has(k))
        .sort()
        .slice(0, ask.limit)
        .map((keyHash) => ({ keyHash, values: known.get(keyHash)![1] }));
    case 'known':
      return ask.keys
        .filter((k) => known.has(k))
        .reverse()
        .map((keyHash) => ({ keyHash, listHash: '', values: known.get(keyHash)![1] }));
  }
}

/** A run process's questions answered in memory (the asks kept in order). */
export function fakeWorker(known: Map<string, [string, ExtractedRecord]>) {
  const asks: ChangesAsk[] = [];
  // The keys classified: the worker's statement leaves them out of the deleted rows.
  const seen = new Set<string>();
  const changes = {
    async ask(ask: ChangesAsk) {
      asks.push(ask);
      return answerOf(known, seen, ask);
    },
    receive() {},
  } as unknown as RemoteChanges;
  return { changes, asks };
}
