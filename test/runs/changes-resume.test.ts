// `key` and `changes` in a Run whose worker is interrupted and that goes on from its checkpoint on another
// worker (test/helpers/resume-drill.ts): the keys seen before the interruption still count, so each key is
// exported once (the first record of it, from before the interruption) and the duplicates are counted once.
import { describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { useResumeDrill } from '../helpers/resume-drill.js';

const { drill, app, apiKey } = useResumeDrill('http');

describe('a change-tracking Run whose worker is interrupted', { timeout: 240_000 }, () => {
  it('SIGTERM at page 10: every key exported once, as the first record of it, all new', async () => {
    // The 300 records (30 pages of r1..r10) have 10 keys: the row number, the same on every page.
    const r = await drill('SIGTERM', 10, {
      list: {
        selector: 'div.item',
        fields: [
          { name: 'row', selector: 'b', transform: [{ regex: 'r(\\d+)$', group: 1 }] },
          { name: 'title', selector: 'b' },
        ],
      },
      key: ['row'],
      changes: { export: 'all', trackDeletes: true },
    });
    expect(r.run.status, r.run.errorMessage).toBe(10);
    expect(r.log).toMatch(/Resumed \(attempt 2\) from its last checkpoint/);
    expect(r.run.recordsExtracted).toBe(300);
    const lines = r.csv.trim().split('\r\n');
    expect(lines[0]).toBe('row,title,_change');
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `${i + 1},p1-r${i + 1},new`).sort());
    const diagnostics = await app().inject({
      method: 'GET',
      url: `/api/v1/analytics/agents/${r.agentId}/runs/${r.runId}/diagnostics`,
      headers: auth(apiKey()),
    });
    expect(diagnostics.json().evidence.duplicateRecords).toBe(290);
  });
});
