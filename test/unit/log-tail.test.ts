// The end of a Run's log (GET .../run/{runId}/log): the last lines of a stored log of any length.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tailLines } from '../../src/services/runs/log-tail.js';

const chunks = (text: string, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(text.length / size) }, (_, i) => Buffer.from(text.slice(i * size, (i + 1) * size))),
  );

describe('tailLines', () => {
  it('keeps the last 1,000 lines of a 100,000-line log read in small chunks', async () => {
    const log = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const tail = await tailLines(chunks(log, 4096), 1000);
    expect(tail.totalLines).toBe(100_000);
    expect(tail.lines).toHaveLength(1000);
    expect(tail.lines[0]).toBe('line 99001');
    expect(tail.lines[999]).toBe('line 100000');
  });

  it('gives a short log whole, and leaves a last line still being written for the next read', async () => {
    expect(await tailLines(Readable.from([Buffer.from('a\nb\n')]), 1000)).toEqual({ lines: ['a', 'b'], totalLines: 2 });
    expect(await tailLines(Readable.from([Buffer.from('a\nhalf')]), 1000)).toEqual({ lines: ['a'], totalLines: 1 });
    expect(await tailLines(Readable.from([]), 1000)).toEqual({ lines: [], totalLines: 0 });
  });

  it('decodes a character split between two chunks', async () => {
    const bytes = Buffer.from('prix: 10 €\n');
    const cut = bytes.length - 3; // inside the three bytes of €
    const tail = await tailLines(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]), 10);
    expect(tail.lines).toEqual(['prix: 10 €']);
  });
});
