// In-process check of the Agent Builder on the TUNING pages of the real-pages corpus only (no API,
// no database): reads each page, proposes a draft, runs it with the real engine and scores it.
// Holdout pages are never read here. For quick iteration; the bench (builder-real) is the measure.
//   npx tsx bench/tune-fast.ts [id,id]
//   CLASSES=hashed npx tsx bench/tune-fast.ts   (class names replaced as builder-real's BENCH_BUILDER_REAL_CLASSES does)
import { performance } from 'node:perf_hooks';
import { draftInProcess, loadManifest, servePages, type ClassNames } from './builder-real/corpus.js';
import { scorePage } from './builder-real/score.js';

const only = process.argv[2]?.split(',');
const verbose = process.env.VERBOSE === '1';
const pages = loadManifest().filter((p) => p.split === 'tuning' && (!only || only.includes(p.id)));
const classNames = (['hashed', 'renamed'] as const).find((c) => c === process.env.CLASSES) ?? ('kept' as ClassNames);
const served = await servePages(pages, { classNames });
const base = served.url;
let sum = 0;
let good = 0;
let recallSum = 0;
let lists = 0;
const times: number[] = [];
for (const page of pages) {
  const t0 = performance.now();
  let records: Array<Record<string, unknown>> = [];
  let desc = '';
  try {
    const drafted = await draftInProcess(base, page);
    records = drafted.records;
    const list = drafted.proposal.definition.list;
    desc = `${list.selector} :: ${list.fields.map((f) => f.name).join(',')}`;
    if (verbose) {
      console.log(JSON.stringify(list, null, 1));
      console.log(drafted.proposal.notes.join('\n'));
      console.log('GOT', JSON.stringify(records.slice(0, 3)));
      console.log('WANT', JSON.stringify(page.expected.slice(0, 3)));
    }
  } catch (e) {
    desc = `ERROR ${(e as Error).message.slice(0, 80)}`;
  }
  const ms = performance.now() - t0;
  times.push(ms);
  const s = scorePage(page, records, base);
  sum += s.fieldAccuracy;
  if (s.fieldAccuracy >= 0.9) good++;
  if (page.count > 1) {
    lists++;
    recallSum += s.recordRecall;
  }
  console.log(
    `${page.id.padEnd(34)} acc ${s.fieldAccuracy.toFixed(2)} rec ${s.recordRecall.toFixed(2)} ${(ms / 1000).toFixed(2)}s ${page.count}/${records.length} ${desc.slice(0, 140)}`,
  );
}
times.sort((a, b) => a - b);
console.log(
  `TUNING mean ${(sum / pages.length).toFixed(3)} good ${good}/${pages.length} recall ${(recallSum / Math.max(1, lists)).toFixed(3)} p50 ${(times[Math.floor(times.length / 2)] / 1000).toFixed(2)} max ${(times.at(-1)! / 1000).toFixed(2)}`,
);
await served.close();
