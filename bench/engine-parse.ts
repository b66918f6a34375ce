// Parse cost against the shape of a page (issue 26 item 1, issue 27 item 3): milliseconds of the
// engine's parser (parseHtml) as nesting depth and element count grow, and what a Run does with such
// a page under the page CPU budget (ENGINE_PAGE_CPU_SECONDS): how long until the page fails. Beside
// it, a lenient parser (htmlparser2 through cheerio, issue 27's candidate path) on the same pages.
//
//   BENCH_ENGINE_PARSE_MAX_DEPTH=40000 npm run bench -- engine   (default 20,000: 40,000 costs ~15 s)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { load } from 'cheerio';
import { parseHtml, runExtraction } from '../src/engine/index.js';
import { fmt, note, table } from './helpers.js';

const PAGE_BUDGET_SECONDS = 1;

function deepPage(levels: number): string {
  return `<!DOCTYPE html><html><body><div class="product"><a class="title">x</a></div>${'<div>'.repeat(levels)}${'</div>'.repeat(levels)}</body></html>`;
}

function flatPage(elements: number): string {
  return `<!DOCTYPE html><html><body><div class="product"><a class="title">x</a></div>${'<p>x</p>'.repeat(elements)}</body></html>`;
}

interface Shape {
  label: string;
  elements: number;
  html: () => string;
}

function shapes(): Shape[] {
  const maxDepth = Number(process.env.BENCH_ENGINE_PARSE_MAX_DEPTH ?? 20_000);
  const depths = [2_500, 5_000, 10_000, 20_000, 40_000, 80_000, 200_000].filter((d) => d <= maxDepth);
  return [
    ...depths.map((d) => ({
      label: `${d.toLocaleString('en-US')} levels of nesting`,
      elements: d,
      html: () => deepPage(d),
    })),
    ...[10_000, 100_000, 1_000_000].map((n) => ({
      label: `${n.toLocaleString('en-US')} flat elements`,
      elements: n,
      html: () => flatPage(n),
    })),
  ];
}

/** Serves one page at a time from memory. */
async function servePage(): Promise<{ url: string; set(body: string): void; close(): Promise<void> }> {
  let body = Buffer.alloc(0);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`,
    set: (html) => {
      body = Buffer.from(html);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ParseCostRow {
  shape: string;
  bytes: number;
  parseMs: number;
  lenientMs: number;
  runMs: number;
  outcome: string;
}

/** Parses each shape once on this thread, then runs it as a one-page Run under a 1 s page budget. */
export async function benchParseCost(): Promise<{ rows: ParseCostRow[]; text: string }> {
  const site = await servePage();
  const rows: ParseCostRow[] = [];
  try {
    for (const shape of shapes()) {
      note(`engine: parse cost, ${shape.label}...`);
      const html = shape.html();
      const body = Buffer.from(html);
      let started = performance.now();
      parseHtml({ body, contentType: 'text/html; charset=utf-8' });
      const parseMs = performance.now() - started;
      started = performance.now();
      load(html, { xml: { xmlMode: false } });
      const lenientMs = performance.now() - started;
      site.set(html);
      started = performance.now();
      const result = await runExtraction({
        definition: {
          startUrl: site.url,
          list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
        },
        inputRows: [],
        allowPrivateTargets: true,
        pageCpuSeconds: PAGE_BUDGET_SECONDS,
      });
      const runMs = performance.now() - started;
      const outcome = result.fatalError ? 'page failed: over budget' : `${result.stats.dataCount} record`;
      rows.push({ shape: shape.label, bytes: body.length, parseMs, lenientMs, runMs, outcome });
    }
  } finally {
    await site.close();
  }
  const text = table(
    `Engine: parse cost by page shape (parseHtml on this thread), and a one-page Run of it under a ${PAGE_BUDGET_SECONDS} s page CPU budget`,
    [
      'page',
      'bytes',
      'parse ms',
      'parse us / element',
      'htmlparser2 ms',
      'htmlparser2 us / element',
      'Run ms',
      'Run outcome',
    ],
    rows.map((r, i) => {
      const perElement = (ms: number) => fmt((ms * 1000) / shapes()[i].elements, 2);
      return [
        r.shape,
        r.bytes,
        fmt(r.parseMs, 0),
        perElement(r.parseMs),
        fmt(r.lenientMs, 0),
        perElement(r.lenientMs),
        fmt(r.runMs, 0),
        r.outcome,
      ];
    }),
  );
  return { rows, text };
}
