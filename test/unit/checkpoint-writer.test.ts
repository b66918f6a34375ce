// The worker writes a Run's checkpoints one at a time: reports that arrive during a write are merged into
// the next (the latest state, the records of both in order), and a failed write is merged back and retried.
import { describe, expect, it } from 'vitest';
import type { CrawlCheckpoint } from '../../src/engine/index.js';
import { createCheckpointWriter } from '../../src/jobs/checkpoint-writer.js';

const cp = (pages: number) =>
  ({ version: 1, sets: [], startFailures: [], stats: { pageCount: pages } }) as unknown as CrawlCheckpoint;

describe('checkpoint writer', () => {
  it('merges what arrives during a write into one next write, records in order', async () => {
    const writes: Array<{ pages: number; records: string }> = [];
    let release: () => void = () => {};
    const writer = createCheckpointWriter(
      async (checkpoint, records) => {
        writes.push({
          pages: checkpoint.stats.pageCount,
          records: records.map((r) => `${r.set}:${r.ndjson}`).join('|'),
        });
        if (writes.length === 1) await new Promise<void>((r) => (release = r));
      },
      () => {},
    );
    writer.push(cp(1), [{ set: 1, ndjson: 'a\n' }]);
    writer.push(cp(2), [{ set: 1, ndjson: 'b\n' }]);
    writer.push(cp(3), [
      { set: 1, ndjson: 'c\n' },
      { set: 2, ndjson: 'x\n' },
    ]);
    release();
    await writer.flush();
    expect(writes).toEqual([
      { pages: 1, records: '1:a\n' },
      { pages: 3, records: '1:b\nc\n|2:x\n' },
    ]);
  });

  it('keeps a failed write and sends it again, before what came after it', async () => {
    const writes: string[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const writer = createCheckpointWriter(
      async (_checkpoint, records) => {
        if (fail) {
          fail = false;
          throw new Error('database away');
        }
        writes.push(records.map((r) => r.ndjson).join(''));
      },
      (err) => errors.push(err),
    );
    writer.push(cp(1), [{ set: 1, ndjson: 'a\n' }]);
    await writer.flush();
    writer.push(cp(2), [{ set: 1, ndjson: 'b\n' }]);
    await writer.flush();
    expect(errors).toHaveLength(1);
    expect(writes.join('')).toBe('a\nb\n');
  });
});
