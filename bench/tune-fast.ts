// In-process check of the Agent Builder on the TUNING pages of the real-pages corpus only (no API,
// no database): reads each page, proposes a draft, runs it with the real engine and scores it.
// Holdout pages are never read here. For quick iteration; the bench (builder-real) is the measure.
//   npx tsx bench/tune-fast.ts [id,id]
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runExtraction } from '../src/engine/crawler.js';
import { proposeDraft } from '../src/services/builder/inference/draft.js';
import { createPageReader } from '../src/services/builder/page-reader.js';
import { scorePage, type RealPage } from './builder-real/score.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'builder-real');
const only = process.argv[2]?.split(',');
const verbose = process.env.VERBOSE === '1';
const pages = (JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')).pages as RealPage[]).filter(
  (p) => p.split === 'tuning' && (!only || only.includes(p.id)),
);
const bodies = new Map(pages.map((p) => [`/${p.id}/`, fs.readFileSync(path.join(DIR, 'pages', p.file))]));
const server = http.createServer((req, res) => {
  const body = bodies.get(req.url ?? '');
  res.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
  res.end(body ?? 'not found');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
let sum = 0;
let good = 0;
let recallSum = 0;
let lists = 0;
const times: number[] = [];
for (const page of pages) {
  const reader = createPageReader({
    allowPrivateTargets: true,
    requestTimeoutMs: 10_000,
    signal: new AbortController().signal,
  });
  try {
    const read = await reader.read(`${base}/${page.id}/`);
    if (!read.ok) throw new Error(read.message);
    const t0 = performance.now();
    let records: Array<Record<string, unknown>> = [];
    let desc = '';
    try {
      const proposal = await proposeDraft({ page: read.page, prompt: page.prompt, fetchPage: async () => null });
      const result = await runExtraction({ definition: proposal.definition, inputRows: [], allowPrivateTargets: true });
      records = result.sets.flatMap((s) => s.records);
      desc = `${proposal.definition.list.selector} :: ${proposal.definition.list.fields.map((f) => f.name).join(',')}`;
      if (verbose) {
        console.log(JSON.stringify(proposal.definition.list, null, 1));
        console.log(proposal.notes.join('\n'));
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
  } finally {
    await reader.close();
  }
}
times.sort((a, b) => a - b);
console.log(
  `TUNING mean ${(sum / pages.length).toFixed(3)} good ${good}/${pages.length} recall ${(recallSum / Math.max(1, lists)).toFixed(3)} p50 ${(times[Math.floor(times.length / 2)] / 1000).toFixed(2)} max ${(times.at(-1)! / 1000).toFixed(2)}`,
);
server.close();
