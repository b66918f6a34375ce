// What resumable Runs cost per page: `npx tsx bench/checkpoint.ts` (DATABASE_URL: a migrated database).
// 1. The engine: a 30-page crawl of a local site (10 records a page), with and without checkpoints
//    (the report and the records' JSON lines the run host sends with it), CPU per page.
// 2. The store: one checkpoint write (the statement the worker runs per reported checkpoint) with a page's
//    10 records, state of a 30-page input (its visited list growing), wall time per write.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runExtraction, type CrawlCheckpoint } from '../src/engine/index.js';
import { createPrisma } from '../src/db/prisma.js';
import { createCheckpointsRepository } from '../src/services/runs/checkpoints.repository.js';

const PAGES = 30;
const ROUNDS = 20;

const server = http.createServer((req, res) => {
  const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
  const items = Array.from(
    { length: 10 },
    (_, i) => `<div class="item"><b>p${page}-r${i + 1}</b><i>${'x'.repeat(80)}</i></div>`,
  ).join('');
  const next = page < PAGES ? `<a class="next" href="/list?page=${page + 1}">next</a>` : '';
  res.end(`<html><body>${items}${next}</body></html>`);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function crawl(checkpoints: boolean): Promise<{ cpuMs: number; reports: number; bytes: number }> {
  let reports = 0;
  let bytes = 0;
  let lines: string[] = [];
  const before = process.cpuUsage();
  await runExtraction({
    definition: {
      startUrl: `${url}/list?page=1`,
      politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed
      list: {
        selector: 'div.item',
        fields: [
          { name: 'title', selector: 'b' },
          { name: 'text', selector: 'i' },
        ],
      },
      next: { selector: 'a.next', maxPages: 100 },
    },
    inputRows: [],
    allowPrivateTargets: true,
    onRecords: checkpoints ? (_s, records) => void lines.push(...records.map((r) => JSON.stringify(r))) : () => {},
    onCheckpoint: checkpoints
      ? (cp: CrawlCheckpoint) => {
          reports++;
          bytes += JSON.stringify({ cp, records: lines.join('\n') }).length;
          lines = [];
        }
      : undefined,
  });
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, reports, bytes };
}

await crawl(false);
await crawl(true);
const without: number[] = [];
const withCp: number[] = [];
let report = { reports: 0, bytes: 0 };
for (let i = 0; i < ROUNDS; i++) {
  without.push((await crawl(false)).cpuMs);
  const r = await crawl(true);
  withCp.push(r.cpuMs);
  report = r;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `engine, CPU per page (median of ${ROUNDS} crawls of ${PAGES} pages): without checkpoints ${(median(without) / PAGES).toFixed(3)} ms, ` +
    `with ${(median(withCp) / PAGES).toFixed(3)} ms; ${report.reports} reports, ${Math.round(report.bytes / report.reports)} bytes each (IPC)`,
);
server.close();

const db = createPrisma(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cxs_resume_bench', {
  max: 2,
});
const repo = createCheckpointsRepository(db);
// A Run id: its checkpoint rows need a Run (foreign key); BENCH_RUN_ID names one, else the first Run.
const runIds = process.env.BENCH_RUN_ID
  ? [Number(process.env.BENCH_RUN_ID)]
  : (await db.$queryRawUnsafe<Array<{ id: number }>>(`SELECT id FROM "Run" ORDER BY id LIMIT 1`)).map((r) => r.id);
if (runIds.length === 0) {
  console.log('store: no Run row in this database to write checkpoints for (set BENCH_RUN_ID)');
} else {
  const runId = runIds[0];
  const records = Array.from({ length: 10 }, (_, i) => JSON.stringify({ title: `p-r${i}`, text: 'x'.repeat(80) })).join(
    '\n',
  );
  const times: number[] = [];
  for (let round = 0; round < 10; round++) {
    await repo.remove(runId);
    for (let page = 1; page <= PAGES; page++) {
      const visited = Array.from({ length: page }, (_, i) => `${url}/list?page=${i + 1}`);
      const state = {
        version: 1,
        sets: [{ inputsDone: 0, current: { url: `${url}/list?page=${page + 1}`, pageNumber: page + 1, visited } }],
        stats: {
          pageCount: page,
          dataCount: page * 10,
          exportCount: 0,
          errorCount: 0,
          inputCount: 1,
          traffic: page * 2000,
        },
        startFailures: [null],
      };
      const t = performance.now();
      await repo.save(runId, state, { '1': records });
      times.push(performance.now() - t);
    }
  }
  await repo.remove(runId);
  console.log(
    `store: one checkpoint write per page, wall time median ${median(times).toFixed(2)} ms, p90 ${[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)].toFixed(2)} ms (${times.length} writes)`,
  );
}
await db.$disconnect();
