// Quality of the Agent Builder's drafts: over list pages of different structures, the draft proposed
// from the page and the prompt (no LLM), run by the real engine (all pages), reproduces the expected
// field values. The per-page figures are written to docs/benchmarks.md from this test's output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExtraction } from '../../src/engine/crawler.js';
import { proposeDraft } from '../../src/services/builder/inference/draft.js';
import { createPageReader } from '../../src/services/builder/page-reader.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { expectedRecords, startBuilderSite, type BuilderSite } from '../fixtures/builder/site.js';

let site: BuilderSite;
beforeAll(async () => {
  site = await startBuilderSite();
});
afterAll(async () => site?.close());

const same = (got: unknown, want: string | number) =>
  got === want || (typeof got === 'string' && typeof want === 'string' && got.replace(/\s+/g, ' ').trim() === want);

describe('builder drafts over the fixture pages', () => {
  it('has at least 12 structurally different pages', () => {
    expect(BUILDER_FIXTURES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(BUILDER_FIXTURES.map((f) => f.name)).size).toBe(BUILDER_FIXTURES.length);
  });

  it('reproduce at least 95% of the expected field values on every page', async () => {
    const shortPages: string[] = [];
    let matched = 0;
    let total = 0;
    const rows: string[] = [];
    for (const fixture of BUILDER_FIXTURES) {
      const controller = new AbortController();
      const reader = createPageReader({
        allowPrivateTargets: true,
        requestTimeoutMs: 10_000,
        signal: controller.signal,
      });
      try {
        const read = await reader.read(`${site.url}${fixture.start}`);
        if (!read.ok) throw new Error(read.message);
        const proposal = await proposeDraft({
          page: read.page,
          prompt: fixture.prompt,
          fetchPage: async (url) => {
            const r = await reader.read(url);
            return r.ok ? r.page : null;
          },
        });
        const result = await runExtraction({
          definition: proposal.definition,
          inputRows: [],
          allowPrivateTargets: true,
        });
        const got = result.sets.flatMap((s) => s.records);
        const expected = expectedRecords(fixture.expected, site.url);
        let ok = 0;
        let count = 0;
        expected.forEach((record, i) => {
          for (const [name, value] of Object.entries(record)) {
            count++;
            if (same(got[i]?.[name], value)) ok++;
          }
        });
        matched += ok;
        total += count;
        if (ok < 0.95 * count) shortPages.push(`${fixture.name} ${ok}/${count}`);
        rows.push(
          `| ${fixture.name} | ${fixture.about} | ${expected.length} | ${got.length} | ${ok}/${count} (${((100 * ok) / count).toFixed(1)}%) |`,
        );
      } finally {
        await reader.close();
      }
    }
    console.log(
      ['| page | structure | expected records | extracted | field values |', '|---|---|---|---|---|', ...rows].join(
        '\n',
      ),
    );
    console.log(`overall: ${matched}/${total} (${((100 * matched) / total).toFixed(1)}%)`);
    expect(shortPages).toEqual([]);
  });
});
