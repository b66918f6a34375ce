// Writes a Run's checkpoints as its run process reports them, one write at a time: what arrives while
// a write is in flight is merged into the next (the latest state, the records of both in order), so a
// Run costs at most one checkpoint statement at a time however fast its pages go. A failed write is
// merged back and tried with the next report (or at the end); a Run loses at most its last window.
import type { CrawlCheckpoint } from '../engine/index.js';

type Records = Array<{ set: number; ndjson: string }>;

export function createCheckpointWriter(
  write: (checkpoint: CrawlCheckpoint, records: Records) => Promise<void>,
  onError: (err: unknown) => void,
) {
  let pending: { checkpoint: CrawlCheckpoint; records: Records } | null = null;
  let running: Promise<void> | null = null;

  const merge = (older: Records, newer: Records): Records => {
    const bySet = new Map<number, string>();
    for (const r of [...older, ...newer]) bySet.set(r.set, (bySet.get(r.set) ?? '') + r.ndjson);
    return [...bySet].map(([set, ndjson]) => ({ set, ndjson }));
  };

  async function loop(): Promise<void> {
    while (pending) {
      const next = pending;
      pending = null;
      try {
        await write(next.checkpoint, next.records);
      } catch (err) {
        onError(err);
        // Kept for the next try: its records come before whatever arrived meanwhile.
        // TypeScript cannot see that a push may have run during the write: the cast restores the type.
        const arrived = pending as typeof next | null;
        pending = arrived ? { checkpoint: arrived.checkpoint, records: merge(next.records, arrived.records) } : next;
        return;
      }
    }
  }

  const start = () => {
    running ??= loop().finally(() => (running = null));
    return running;
  };

  return {
    push(checkpoint: CrawlCheckpoint, records: Records): void {
      pending = pending ? { checkpoint, records: merge(pending.records, records) } : { checkpoint, records };
      void start();
    },
    /** Resolves when what was reported is written (one more try for a write that failed). */
    async flush(): Promise<void> {
      if (running) await running;
      if (pending) await start();
    },
  };
}
