// A 50 MiB export streams to S3 in bounded memory (at most 64 MiB more than exporting
// nothing): multipart parts of S3_PART_BYTES, S3_UPLOAD_QUEUE in flight, against the real server.
import { describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { testS3Options } from '../helpers/s3-server.js';

const MiB = 1024 * 1024;

describe('S3 export memory', () => {
  it(
    'uploads 50 MiB while the process memory grows by less than 64 MiB, and the object is whole',
    { timeout: 120_000 },
    async () => {
      const storage = new S3Storage(testS3Options());
      const line = Buffer.alloc(64 * 1024, 'r');
      async function* records() {
        for (let sent = 0; sent < 50 * MiB; sent += line.length) yield line;
      }
      global.gc?.();
      const base = process.memoryUsage();
      const used = () => {
        const m = process.memoryUsage();
        return m.heapUsed + m.arrayBuffers - (base.heapUsed + base.arrayBuffers);
      };
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, used())), 5);
      try {
        expect(await storage.put('runs/1/data.csv', records())).toEqual({ size: 50 * MiB });
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, used());
      // Parts in flight are 3 x 8 MiB, plus garbage not yet collected; the test bounds it at 64 MiB.
      console.log(`peak memory growth during a 50 MiB upload: ${(peak / MiB).toFixed(1)} MiB`);
      expect(peak).toBeLessThan(64 * MiB);
      expect(await storage.stat('runs/1/data.csv')).toEqual({ size: 50 * MiB });
      await storage.delete('runs');
    },
  );
});
