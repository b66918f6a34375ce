// Agent Builder: for each fixture list page (test/fixtures/builder), the share of expected field
// values the draft reproduces when the real engine runs it (all pages, detail pages followed), and
// the CPU time of proposing the draft from an already fetched page, side by side with the floor:
// parsing the same HTML with cheerio. Two generated pages show how inference scales: 400 cards
// (~70 KB) and 6,600 cards (~2 MB, timed fewer times).
//
//   npm run bench -- builder
import { performance } from 'node:perf_hooks';
import { load } from 'cheerio';
import { runExtraction } from '../src/engine/crawler.js';
import { proposeDraft } from '../src/services/builder/inference/draft.js';
import { createPageReader } from '../src/services/builder/page-reader.js';
import { BUILDER_FIXTURES, type BuilderFixture } from '../test/fixtures/builder/pages.js';
import { expectedRecords, startBuilderSite } from '../test/fixtures/builder/site.js';
import { manyCardsPage, manyCardsRecords } from '../test/fixtures/builder/generated.js';
import { fmt, median, onCleanup, print, table } from './helpers.js';

const REPS = Number(process.env.BENCH_BUILDER_REPS ?? 15);
/** Repetitions for the pages over 1 MB, whose single draft takes seconds. */
const BIG_REPS = Math.max(1, Math.ceil(REPS / 5));

function bigPage(): BuilderFixture {
  const cards = Array.from(
    { length: 400 },
    (_, i) =>
      `<div class="card"><h3 class="name"><a href="/big/${i}">Item ${i}</a></h3><span class="price">$${(i * 1.5 + 3).toFixed(2)}</span><p class="blurb">Item ${i} is described here in a sentence of ordinary length for a listing.</p></div>`,
  ).join('\n');
  return {
    name: 'big-400-cards',
    about: 'generated: 400 cards, ~70 KB',
    prompt: 'name and price of each item',
    start: '/big',
    pages: { '/big': `<html><body><main><div class="cards">${cards}</div></main></body></html>` },
    expected: Array.from({ length: 400 }, (_, i) => ({
      name: `Item ${i}`,
      price: Math.round((i * 1.5 + 3) * 100) / 100,
    })),
  };
}

function hugePage(): BuilderFixture {
  return {
    name: 'big-6600-cards',
    about: 'generated: 6,600 cards after 200 category links, ~2 MB',
    prompt: 'name and price of each product',
    start: '/huge',
    pages: { '/huge': manyCardsPage(6600) },
    expected: manyCardsRecords(6600),
  };
}

export async function benchBuilder(): Promise<void> {
  const generated = [bigPage(), hugePage()];
  BUILDER_FIXTURES.push(...generated);
  const site = await startBuilderSite();
  onCleanup('builder site', () => site.close());
  const rows: Array<Array<string | number>> = [];
  let matched = 0;
  let total = 0;
  for (const fixture of BUILDER_FIXTURES) {
    const controller = new AbortController();
    const reader = createPageReader({ allowPrivateTargets: true, requestTimeoutMs: 10_000, signal: controller.signal });
    const fetchPage = async (url: string) => {
      const r = await reader.read(url);
      return r.ok ? r.page : null;
    };
    const read = await reader.read(`${site.url}${fixture.start}`);
    if (!read.ok) throw new Error(read.message);
    const html = fixture.pages[fixture.start];
    const proposal = await proposeDraft({ page: read.page, prompt: fixture.prompt, fetchPage });
    const result = await runExtraction({ definition: proposal.definition, inputRows: [], allowPrivateTargets: true });
    const got = result.sets.flatMap((s) => s.records);
    const expected = expectedRecords(fixture.expected, site.url);
    let ok = 0;
    let count = 0;
    expected.forEach((record, i) => {
      for (const [name, value] of Object.entries(record)) {
        count++;
        const g = got[i]?.[name];
        if (
          g === value ||
          (typeof g === 'string' && typeof value === 'string' && g.replace(/\s+/g, ' ').trim() === value)
        )
          ok++;
      }
    });
    matched += ok;
    total += count;
    // Timing: inference on a freshly parsed page (detail pages excluded: no fetcher), and the parse alone.
    const infer: number[] = [];
    const parse: number[] = [];
    const reps = html.length > 1_000_000 ? BIG_REPS : REPS;
    for (let i = 0; i < reps; i++) {
      let t = performance.now();
      const $ = load(html);
      parse.push(performance.now() - t);
      t = performance.now();
      await proposeDraft({
        page: { $, url: `${site.url}${fixture.start}` },
        prompt: fixture.prompt,
        fetchPage: async () => null,
      });
      infer.push(performance.now() - t);
    }
    await reader.close();
    rows.push([
      fixture.name,
      fmt(html.length / 1024, 1),
      `${expected.length}/${got.length}`,
      `${ok}/${count}`,
      `${fmt((100 * ok) / count, 1)}%`,
      fmt(median(parse), 2),
      fmt(median(infer), 2),
    ]);
  }
  BUILDER_FIXTURES.splice(-generated.length);
  print(
    table(
      `Agent Builder drafts (median of ${REPS} for times, ${BIG_REPS} over 1 MB; overall ${matched}/${total} = ${fmt((100 * matched) / total, 1)}%)`,
      ['page', 'KB', 'expected/extracted records', 'field values', 'share', 'parse ms (floor)', 'propose ms'],
      rows,
    ),
  );
}
