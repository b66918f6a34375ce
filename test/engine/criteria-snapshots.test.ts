// The pure rule of successCriteria (which criterion is missed, with which figures) and the engine's
// snapshots of empty pages: kept as the page came (secrets masked), at most MAX_SNAPSHOTS, named in
// the evidence, and a criterion missed with failBelow returned as the Run's fatal error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExtraction } from '../../src/engine/crawler.js';
import { criteriaMissed } from '../../src/engine/definition-criteria.js';
import { SECRET_MASK } from '../../src/engine/secrets.js';
import { MAX_SNAPSHOTS } from '../../src/engine/snapshots.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

const figures = (over: Partial<Parameters<typeof criteriaMissed>[1]> = {}) => ({
  records: 10,
  pagesAttempted: 4,
  pagesFailed: 1,
  filled: { price: 9 },
  tallied: 10,
  ...over,
});

describe('criteriaMissed', () => {
  it('nothing to judge without criteria, or when every one holds at its threshold', () => {
    expect(criteriaMissed(undefined, figures())).toBeUndefined();
    expect(
      criteriaMissed({ minRecords: 10, maxErrorRatio: 0.25, minFillRate: { price: 0.9 } }, figures()),
    ).toBeUndefined();
  });

  it('names the first criterion missed with its figures, and how many were missed', () => {
    const missed = criteriaMissed({ minRecords: 11, maxErrorRatio: 0.2, minFillRate: { price: 0.95 } }, figures());
    expect(missed).toEqual({
      code: 'SUCCESS_CRITERIA_MISSED',
      params: { criterion: 'minRecords', expected: 11, actual: 10, missed: 3 },
    });
    expect(criteriaMissed({ maxErrorRatio: 0.2 }, figures())?.params).toEqual({
      criterion: 'maxErrorRatio',
      expected: 0.2,
      actual: 0.25,
      failed: 1,
      attempted: 4,
      missed: 1,
    });
    expect(criteriaMissed({ minFillRate: { price: 0.95 } }, figures())?.params).toEqual({
      criterion: 'minFillRate.price',
      expected: 0.95,
      actual: 0.9,
      filled: 9,
      records: 10,
      missed: 1,
    });
  });

  it('no page attempted is an error ratio of 0; no record a fill rate of 0', () => {
    const none = figures({ records: 0, pagesAttempted: 0, pagesFailed: 0, filled: { price: 0 }, tallied: 0 });
    expect(criteriaMissed({ maxErrorRatio: 0 }, none)).toBeUndefined();
    expect(criteriaMissed({ minFillRate: { price: 0.1 } }, none)?.params).toMatchObject({ actual: 0 });
    expect(criteriaMissed({ minFillRate: { price: 0 } }, none)).toBeUndefined();
  });
});

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const run = (definition: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  runExtraction({
    definition: {
      startUrl: '',
      list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
      ...definition,
    },
    inputRows: [],
    allowPrivateTargets: true,
    retryBaseDelayMs: 1,
    ...extra,
  } as Parameters<typeof runExtraction>[0]);

describe('snapshots in the engine', () => {
  it('an empty list page is kept with the Run secrets masked, and named in the evidence', async () => {
    // The search page echoes its query: the secret is on the page the snapshot keeps.
    const r = await run({ startUrl: `${site.url}/search?q=SECRET-42` }, { secrets: ['SECRET-42'] });
    expect(r.snapshots).toHaveLength(1);
    expect(r.snapshots![0].htmlText).toContain('<div class="result">');
    expect(r.snapshots![0].htmlText).not.toContain('SECRET-42');
    expect(r.evidence.snapshots).toEqual([
      { html: 'snapshot-1.html', url: `${site.url}/search?q=${SECRET_MASK}`, reason: 'emptyList' },
    ]);
  });

  it(`keeps at most ${MAX_SNAPSHOTS} pages`, async () => {
    const r = await run(
      { startUrl: `${site.url}/empty-list?n={{n}}`, parameters: [{ name: 'n' }] },
      { inputRows: Array.from({ length: 8 }, (_, i) => ({ n: String(i) })) },
    );
    expect(r.evidence.emptyListPages).toBe(8);
    expect(r.snapshots!.map((s) => s.html)).toEqual([1, 2, 3, 4, 5].map((n) => `snapshot-${n}.html`));
  });

  it('a missed criterion is a warning, or with failBelow the fatal error', async () => {
    const startUrl = `${site.url}/catalog?page=1`;
    const warned = await run({ startUrl, successCriteria: { minRecords: 11 } });
    expect(warned.fatalError).toBeUndefined();
    expect(warned.warning?.code).toBe('SUCCESS_CRITERIA_MISSED');
    const failed = await run({ startUrl, successCriteria: { minRecords: 11, failBelow: true } });
    expect(failed.fatalError?.code).toBe('SUCCESS_CRITERIA_MISSED');
    expect(failed.warning).toBeUndefined();
    // A quality problem keeps its own code when failBelow is not set.
    const empty = await run({ startUrl: `${site.url}/empty-list`, successCriteria: { minRecords: 1 } });
    expect(empty.warning?.code).toBe('LIST_MATCHED_NOTHING');
  });
});
