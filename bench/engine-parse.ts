// Parse cost against the shape of a page: milliseconds of parse5
// (the standard's tree builder, the parser the engine falls back to) and of the engine's fast path
// (fast-parse.ts; "parse5" in its column when it leaves the page to parse5) as nesting depth and element
// count grow, and what a Run does with such a page under the page CPU budget (ENGINE_PAGE_CPU_SECONDS).
// Beside them, a lenient parser (htmlparser2's own tree builder through cheerio) on the same pages.
//
//   BENCH_ENGINE_PARSE_MAX_DEPTH=40000 npm run bench -- engine   (parse5 and the lenient parser up to
//     this depth, default 20,000: 40,000 costs parse5 ~15 s; the fast path always up to 200,000)
//   BENCH_ENGINE_PARSE_MAX_ELEMENTS=10000000 NODE_OPTIONS=--max-old-space-size=16000 npm run bench -- engine
//     (flat pages up to this many elements, default 2,000,000: the fast path's tree of 2 million
//     elements holds ~3 GB)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { load } from 'cheerio';
import { fastParse } from '../src/engine/fast-parse.js';
import { runExtraction } from '../src/engine/index.js';
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
  /** parse5 and the lenient parser too (they are superlinear in depth), and a Run of the page. */
  all: boolean;
}

function shapes(): Shape[] {
  const maxDepth = Number(process.env.BENCH_ENGINE_PARSE_MAX_DEPTH ?? 20_000);
  const maxElements = Number(process.env.BENCH_ENGINE_PARSE_MAX_ELEMENTS ?? 2_000_000);
  return [
    ...[5_000, 10_000, 20_000, 40_000, 80_000, 200_000].map((d) => ({
      label: `${d.toLocaleString('en-US')} levels of nesting`,
      elements: d,
      html: () => deepPage(d),
      all: d <= maxDepth,
    })),
    ...[10_000, 100_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000]
      .filter((n) => n <= maxElements)
      .map((n) => ({
        label: `${n.toLocaleString('en-US')} flat elements`,
        elements: n,
        html: () => flatPage(n),
        all: n <= 1_000_000,
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
  elements: number;
  bytes: number;
  /** NaN where not measured (see Shape.all). */
  parseMs: number;
  fastMs: number;
  /** The fast path took the page (else it left it to parse5 after fastMs). */
  fastTook: boolean;
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
      let html = shape.html();
      const bytes = Buffer.byteLength(html);
      const time = (parse: () => unknown) => {
        const started = performance.now();
        parse();
        return performance.now() - started;
      };
      let fastTook = false;
      const fastMs = time(() => (fastTook = fastParse(html) !== null));
      if (!shape.all) {
        rows.push({
          shape: shape.label,
          elements: shape.elements,
          bytes,
          parseMs: NaN,
          fastMs,
          fastTook,
          lenientMs: NaN,
          runMs: NaN,
          outcome: '-',
        });
        html = '';
        continue;
      }
      const parseMs = time(() => load(html));
      const lenientMs = time(() => load(html, { xml: { xmlMode: false } }));
      site.set(html);
      const started = performance.now();
      const result = await runExtraction({
        definition: {
          startUrl: site.url,
          politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed
          list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
        },
        inputRows: [],
        allowPrivateTargets: true,
        pageCpuSeconds: PAGE_BUDGET_SECONDS,
      });
      const runMs = performance.now() - started;
      const outcome = result.fatalError ? 'page failed: over budget' : `${result.stats.dataCount} record`;
      rows.push({
        shape: shape.label,
        elements: shape.elements,
        bytes,
        parseMs,
        fastMs,
        fastTook,
        lenientMs,
        runMs,
        outcome,
      });
    }
  } finally {
    await site.close();
  }
  const text = table(
    `Engine: parse cost by page shape (on this thread), and a one-page Run of it (fast path on) under a ${PAGE_BUDGET_SECONDS} s page CPU budget`,
    [
      'page',
      'bytes',
      'parse5 ms',
      'parse5 us / element',
      'fast path ms',
      'fast path us / element',
      'fast path took it',
      'htmlparser2 ms',
      'htmlparser2 us / element',
      'Run ms',
      'Run outcome',
    ],
    rows.map((r) => {
      const ms = (v: number) => (Number.isNaN(v) ? '-' : fmt(v, 0));
      const perElement = (v: number) => (Number.isNaN(v) ? '-' : fmt((v * 1000) / r.elements, 2));
      return [
        r.shape,
        r.bytes,
        ms(r.parseMs),
        perElement(r.parseMs),
        ms(r.fastMs),
        perElement(r.fastMs),
        r.fastTook ? 'yes' : 'no (parse5)',
        ms(r.lenientMs),
        perElement(r.lenientMs),
        ms(r.runMs),
        r.outcome,
      ];
    }),
  );
  return { rows, text };
}
