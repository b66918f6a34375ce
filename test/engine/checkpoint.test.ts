// The engine's checkpoints: reported after each list page with that page's records already given to
// `onRecords`, and a crawl resumed from one fetches none of the pages it counts as done, extracts none of
// their records again, and ends with the same records as a crawl that was never interrupted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/engine/definition.js';
import {
  runExtraction,
  type CrawlCheckpoint,
  type ExtractedRecord,
  type ExtractionOptions,
} from '../../src/engine/index.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

const definition = (): AgentDefinition => ({
  startUrl: `${site.url}/catalog?page=1&k={{k}}`,
  parameters: [{ name: 'k' }],
  list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
  next: { selector: 'a.next', maxPages: 10 },
});

/** Runs the crawl over inputs a..d in two sets, keeping every checkpoint and the records given before it. */
async function crawl(extra: Partial<ExtractionOptions> = {}) {
  const given: ExtractedRecord[] = [];
  const checkpoints: Array<{ checkpoint: CrawlCheckpoint; records: number }> = [];
  const result = await runExtraction({
    definition: definition(),
    inputRows: ['a', 'b', 'c', 'd'].map((k) => ({ k })),
    parallelism: 2,
    maxConcurrency: 2,
    requestTimeoutMs: 10_000,
    allowPrivateTargets: true,
    onRecords: (_set, records) => void given.push(...records),
    onCheckpoint: (checkpoint) => checkpoints.push({ checkpoint, records: given.length }),
    ...extra,
  });
  return { given, checkpoints, result };
}

describe('crawl checkpoints', () => {
  it('a resumed crawl goes on where its checkpoint says, with no page fetched or record extracted twice', async () => {
    const full = await crawl();
    // 4 inputs of 3 pages, 10 products each; one checkpoint per list page.
    expect(full.given).toHaveLength(120);
    expect(full.checkpoints).toHaveLength(12);
    const last = full.checkpoints.at(-1)!.checkpoint;
    expect(last.sets).toEqual([
      { inputsDone: 2, current: null },
      { inputsDone: 2, current: null },
    ]);
    // Every checkpoint counts exactly the records given before it.
    for (const { checkpoint, records } of full.checkpoints) expect(checkpoint.stats.dataCount).toBe(records);

    const middle = full.checkpoints[6];
    site.hits.clear();
    const rest = await crawl({ resume: middle.checkpoint });
    const before = full.given.slice(0, middle.records);
    const all = [...before, ...rest.given].map((r) => r.title);
    expect(all.sort()).toEqual(full.given.map((r) => r.title).sort());
    expect(rest.result.stats.dataCount).toBe(120);
    expect(rest.result.stats.pageCount).toBe(12);
    // Pages the checkpoint counts as done are not fetched again; every other page is fetched once.
    const fetched = [...site.hits.values()];
    expect(fetched.every((n) => n === 1)).toBe(true);
    expect(fetched).toHaveLength(12 - middle.checkpoint.stats.pageCount);
  });

  it('successCriteria count on from the checkpoint: a resumed crawl judges fill rates on all the Run’s records', async () => {
    const criteria = { successCriteria: { minFillRate: { title: 0.5 } } };
    const withCriteria = (): AgentDefinition => ({ ...definition(), ...criteria });
    const full = await crawl({ definition: withCriteria() });
    for (const { checkpoint } of full.checkpoints)
      expect(checkpoint.criteria).toEqual({
        filled: { title: checkpoint.stats.dataCount },
        tallied: checkpoint.stats.dataCount,
      });
    const middle = full.checkpoints[6];
    expect(middle.checkpoint.criteria!.tallied).toBeGreaterThan(0);
    const rest = await crawl({ definition: withCriteria(), resume: middle.checkpoint });
    expect(rest.checkpoints.at(-1)!.checkpoint.criteria).toEqual({ filled: { title: 120 }, tallied: 120 });
  });

  it('ignores a checkpoint of another shape (another number of sets) and starts from the beginning', async () => {
    const full = await crawl();
    const foreign = { ...full.checkpoints[3].checkpoint, sets: [{ inputsDone: 1, current: null }] };
    const again = await crawl({ resume: foreign });
    expect(again.given).toHaveLength(120);
  });
});
