// Engine throughput: pages per second of runExtraction (src/engine) against a bare loop of undici
// `request` + cheerio doing the same fetch + parse + extract work with the same concurrency. The
// bare loop is the floor the engine can approach; the ratio is what the engine's own work costs
// (limiter, retries/timeouts bookkeeping, redirect handling, buffer decoding, logging, progress).
//
// Two sites, both served by a separate process on 127.0.0.1 so the server's CPU is not counted in
// the client's event loop:
// - "fixture": the test fixture site's 3-page catalog (10 products per page) following each product
//   to its detail page: 33 tiny pages (~0.3-0.6 KB) per Run;
// - "catalog": a bigger catalog generated here: 10 list pages of 20 products (~20 KB each) following
//   to 200 detail pages (~25 KB each): 210 pages per Run, closer to real page weights.
//
// Each case alternates engine and bare repetitions (so background load hits both alike) until a
// time budget or a repetition cap is reached, and reports wall-clock pages/s and client CPU per page.
//
//   npm run bench -- engine              (or: npx tsx bench/engine.ts)
//   BENCH_ENGINE_SECONDS=4 npm run bench -- engine
//   BENCH_ENGINE_BEFORE=.bench/dist-before npm run bench -- engine   (another build's engine beside today's:
//     `tsc -p tsconfig.build.json --outDir .bench/dist-before` in a checkout of the earlier commit)
//   BENCH_ENGINE_COMPILED=.bench/dist-today npm run bench -- engine   (today's engine compiled by tsc beside
//     the tsx one: `tsc -p tsconfig.build.json --outDir .bench/dist-today` in this tree)
import { fork, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import { Agent, request } from 'undici';
import { DEFAULT_PAGE_CPU_SECONDS, runExtraction, type AgentDefinition, type AgentField } from '../src/engine/index.js';
import type { ExtractedRecord } from '../src/engine/extract.js';
import { extractDetailPage, extractListPage } from '../src/engine/page-extract.js';
import type { AnyNode } from '../src/engine/select.js';
import { startFixtureSite } from '../test/helpers/fixture-site.js';
import type { ChildMessage, ChildResult, ChildStartPayload } from '../src/services/runs/run-protocol.js';
import { benchParseCost, type ParseCostRow } from './engine-parse.js';
import {
  catalogList,
  fmt,
  installSignalCleanup,
  note,
  onCleanup,
  print,
  processCpuMs,
  runCleanups,
  table,
} from './helpers.js';

// ---------------------------------------------------------------------------------------------
// The bigger catalog site (deterministic pages, rendered once, served from memory).

export const CATALOG_LIST_PAGES = 10;
export const CATALOG_PER_PAGE = 20;
/** The large case: 40 list pages of 24 products, each followed: 1,000 pages per Run. */
export const LARGE_LIST_PAGES = 40;
export const LARGE_PER_PAGE = 24;
export const LARGE_PAGES = LARGE_LIST_PAGES * (LARGE_PER_PAGE + 1);
export const LARGE_CONCURRENCY = 16;

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna ' +
  'aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute ' +
  'irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident'
).split(' ');

function words(seed: number, count: number): string {
  let x = seed * 2654435761;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(' ');
}

function shell(title: string, body: string): string {
  const nav = Array.from({ length: 40 }, (_, i) => `<li><a href="/category/${i + 1}">Category ${i + 1}</a></li>`).join(
    '',
  );
  const footer = Array.from({ length: 30 }, (_, i) => `<a href="/info/${i + 1}">${words(i + 900, 2)}</a>`).join(' | ');
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
    `<style>${'.c{margin:0;padding:0}'.repeat(40)}</style><script>window.__data=${JSON.stringify({ t: title, w: words(7, 60) })}</script></head>` +
    `<body><header><nav><ul class="menu">${nav}</ul></nav></header><main>${body}</main><footer>${footer}</footer></body></html>\n`
  );
}

export function listPage(page: number, listPages = CATALOG_LIST_PAGES, perPage = CATALOG_PER_PAGE): string {
  const first = (page - 1) * perPage + 1;
  const items = Array.from({ length: perPage }, (_, i) => {
    const n = first + i;
    const tags = Array.from({ length: 6 }, (_, t) => `<li class="tag">${words(n * 7 + t, 1)}</li>`).join('');
    return (
      `<div class="product" data-id="${n}"><div class="thumb"><img src="/img/${n}.jpg" alt="${words(n, 3)}" width="200" height="200"></div>` +
      `<a class="title" href="/item/${n}">Item ${n} ${words(n, 3)}</a><span class="price">$${(n * 3.75).toFixed(2)}</span>` +
      `<p class="blurb">${words(n + 500, 45)}</p><ul class="tags">${tags}</ul>` +
      `<div class="rating" data-stars="${(n % 5) + 1}">${'&#9733;'.repeat((n % 5) + 1)}</div></div>`
    );
  }).join('\n');
  const next = page < listPages ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : '';
  return shell(`Catalog page ${page}`, `<section class="listing">${items}</section><div class="pager">${next}</div>`);
}

export function itemPage(n: number): string {
  const specs = Array.from(
    { length: 60 },
    (_, i) => `<tr class="spec-${i}"><th>${words(i + 300, 2)}</th><td>${words(n * 13 + i, 4)}</td></tr>`,
  ).join('');
  const related = Array.from(
    { length: 20 },
    (_, i) => `<li><a href="/item/${((n + i * 7) % 200) + 1}">${words(n + i, 3)}</a></li>`,
  ).join('');
  const paragraphs = Array.from({ length: 8 }, (_, i) => `<p>${words(n * 31 + i, 70)}</p>`).join('');
  return shell(
    `Item ${n}`,
    `<article class="item"><h1 class="name">Item ${n} ${words(n, 3)}</h1><p class="sku">SKU-${String(n).padStart(6, '0')}</p>` +
      `<div class="price-box"><span class="price">$${(n * 3.75).toFixed(2)}</span></div>` +
      `<div class="description">  ${paragraphs}  </div>` +
      `<table class="specs"><tr class="brand"><th>Brand</th><td>Brand ${n % 17}</td></tr>${specs}</table>` +
      `<div class="reviews"><span class="score">${((n % 50) / 10).toFixed(1)} out of 5</span></div>` +
      `<aside><ul class="related">${related}</ul></aside></article>`,
  );
}

/** Serves the bigger catalog on 127.0.0.1 (random port). Pages are rendered once and kept in memory. */
export async function startCatalogSite(
  listPages = CATALOG_LIST_PAGES,
  perPage = CATALOG_PER_PAGE,
): Promise<{ url: string; close(): Promise<void>; pageBytes: { list: number; item: number } }> {
  const lists = Array.from({ length: listPages }, (_, i) => Buffer.from(listPage(i + 1, listPages, perPage)));
  const items = Array.from({ length: listPages * perPage }, (_, i) => Buffer.from(itemPage(i + 1)));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://catalog.local');
    let body: Buffer | undefined;
    if (url.pathname === '/list') body = lists[Number(url.searchParams.get('page') ?? '1') - 1];
    const item = url.pathname.match(/^\/item\/(\d+)$/);
    if (item) body = items[Number(item[1]) - 1];
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<h1>Not found</h1>');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const avg = (bufs: Buffer[]) => Math.round(bufs.reduce((n, b) => n + b.length, 0) / bufs.length);
  return {
    url: `http://127.0.0.1:${port}`,
    pageBytes: { list: avg(lists), item: avg(items) },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Definitions.

export function fixtureDefinition(siteUrl: string): AgentDefinition {
  return {
    ...catalogList(siteUrl),
    politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed: no robots.txt, the Run-wide limit only
    next: { selector: 'a.next', maxPages: 10 },
    follow: {
      selector: 'a.title',
      fields: [
        { name: 'name', selector: 'h1.name' },
        { name: 'sku', selector: 'p.sku' },
        { name: 'description', selector: 'div.description', transform: 'trim' },
      ],
    },
  };
}

export function catalogDefinition(siteUrl: string): AgentDefinition {
  return {
    startUrl: `${siteUrl}/list?page=1`,
    politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed: no robots.txt, the Run-wide limit only
    list: {
      selector: 'div.product',
      fields: [
        { name: 'title', selector: 'a.title', transform: 'trim' },
        { name: 'price', selector: 'span.price', transform: 'number' },
        { name: 'url', selector: 'a.title', attribute: 'href', transform: 'absoluteUrl' },
        { name: 'image', selector: 'img', attribute: 'src', transform: 'absoluteUrl' },
        { name: 'stars', selector: 'div.rating', attribute: 'data-stars', transform: 'number' },
      ],
    },
    next: { selector: 'a.next', maxPages: 50 },
    follow: {
      selector: 'a.title',
      fields: [
        { name: 'name', selector: 'h1.name', transform: 'trim' },
        { name: 'sku', selector: 'p.sku' },
        { name: 'brand', selector: 'table.specs tr.brand td' },
        { name: 'score', selector: 'div.reviews span.score', transform: 'number' },
        { name: 'description', selector: 'div.description', transform: 'trim' },
      ],
    },
  };
}

/**
 * The catalog read with the extraction language's newer keywords: XPath locators (list, fields, next,
 * follow), regex and number steps, and nested multiple fields (each product's tags, each item's spec rows).
 * The bare loop's floor for it is the plain catalog definition: the same pages, crawled the same way.
 */
export function languageDefinition(siteUrl: string): AgentDefinition {
  return {
    startUrl: `${siteUrl}/list?page=1`,
    politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed: no robots.txt, the Run-wide limit only
    list: {
      xpath: "//div[@class='product']",
      fields: [
        { name: 'title', xpath: "./a[@class='title']/text()", transform: 'trim' },
        { name: 'price', selector: 'span.price', transform: [{ regex: '\\$([\\d.]+)', group: 1 }, 'number'] },
        { name: 'url', xpath: "./a[@class='title']/@href", transform: 'absoluteUrl' },
        { name: 'id', xpath: '@data-id', transform: 'number' },
        {
          name: 'tags',
          selector: 'li.tag',
          multiple: true,
          fields: [
            { name: 'tag', attribute: 'ownText' },
            { name: 'initial', transform: [{ regex: '^(?P<first>\\w)', group: 'first' }, 'uppercase'] },
          ],
        },
      ],
    },
    next: { xpath: "//a[@class='next']/@href", maxPages: 50 },
    follow: {
      xpath: "./a[@class='title']",
      fields: [
        { name: 'name', xpath: '//h1', transform: 'trim' },
        { name: 'sku', selector: 'p.sku', transform: { regex: '\\d+' } },
        { name: 'brand', xpath: "//tr[@class='brand']/td" },
        {
          name: 'specs',
          selector: 'table.specs tr',
          multiple: true,
          fields: [
            { name: 'k', selector: 'th' },
            { name: 'v', selector: 'td' },
          ],
        },
        { name: 'score', selector: 'div.reviews span.score', transform: [{ regex: '[\\d.]+' }, 'number'] },
      ],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The floor: undici request + cheerio, same crawl shape (list pages one after another, each page's
// detail pages side by side), same concurrency limit over all requests, same fields.

type Rec = ExtractedRecord;

function semaphore(capacity: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= capacity) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

function absolute(href: string | undefined, base: string): string | null {
  if (href === undefined || href.trim() === '') return null;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return null;
  }
}

function bareFields($: CheerioAPI, scope: Cheerio<AnyNode>, fields: AgentField[], base: string, into: Rec): void {
  for (const f of fields) {
    const target = f.selector ? scope.find(f.selector).first() : scope.first();
    let value: string | null = null;
    if (target.length > 0)
      value = !f.attribute || f.attribute === 'text' ? target.text() : (target.attr(f.attribute) ?? null);
    if (value !== null && f.transform === 'trim') value = value.trim();
    if (value !== null && f.transform === 'absoluteUrl') value = absolute(value, base);
    if (value !== null && f.transform === 'number') {
      const m = value.replace(/\s+/g, '').match(/[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)/);
      into[f.name] = m ? Number(m[0].replace(/,/g, '')) : null;
    } else into[f.name] = value;
  }
}

export async function bareCrawl(def: AgentDefinition, concurrency: number): Promise<{ pages: number; records: Rec[] }> {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const limit = semaphore(concurrency);
  const get = (url: string) =>
    limit(async () => {
      const res = await request(url, { dispatcher });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
      return text;
    });
  const records: Rec[] = [];
  let pages = 0;
  try {
    let url: string | null = def.startUrl;
    for (let n = 1; url !== null; n++) {
      const listUrl: string = url;
      const $ = load(await get(listUrl));
      pages++;
      const items = $(def.list.selector)
        .toArray()
        .map((el) => {
          const scope = $(el);
          const record: Rec = {};
          bareFields($, scope, def.list.fields, listUrl, record);
          const link = def.follow
            ? scope.is(def.follow.selector)
              ? scope
              : scope.find(def.follow.selector).first()
            : null;
          return { record, follow: link ? absolute(link.attr('href'), listUrl) : null };
        });
      await Promise.all(
        items.map(async (item) => {
          if (!def.follow || !item.follow) return;
          const $d = load(await get(item.follow));
          pages++;
          bareFields($d, $d.root(), def.follow.fields, item.follow, item.record);
        }),
      );
      for (const item of items) records.push(item.record);
      const next = def.next ? absolute($(def.next.selector).first().attr('href'), listUrl) : null;
      url = next !== null && n < (def.next?.maxPages ?? 100) ? next : null;
    }
  } finally {
    await dispatcher.close();
  }
  return { pages, records };
}

async function engineCrawl(
  def: AgentDefinition,
  concurrency: number,
  engine = runExtraction,
): Promise<{ pages: number; records: Rec[] }> {
  let messages = 0;
  let progress = 0;
  const result = await engine({
    definition: def,
    inputRows: [],
    maxConcurrency: concurrency,
    allowPrivateTargets: true,
    // As in a Run: every message is built and masked; the run log writer is left out.
    log: () => void messages++,
    onProgress: () => void progress++,
  });
  if (result.fatalError || result.stats.errorCount > 0)
    throw new Error(`engine: ${result.fatalError ?? `${result.stats.errorCount} errors`}`);
  return { pages: result.stats.pageCount, records: result.sets.flatMap((s) => s.records) };
}

/** HTTP alone: the same URLs fetched with the same concurrency, bodies read, nothing parsed. */
async function fetchOnly(urls: string[], concurrency: number): Promise<{ pages: number; records: Rec[] }> {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < urls.length) {
          const res = await request(urls[next++], { dispatcher });
          await res.body.arrayBuffer();
        }
      }),
    );
  } finally {
    await dispatcher.close();
  }
  return { pages: urls.length, records: [] };
}

/**
 * Parsing and extraction alone (no HTTP): the same pages, already in memory, one after another, by the
 * engine's own page work (page-extract.ts): parse5 only, or the fast path where it takes the page.
 */
async function parseOnly(
  pages: Array<{ url: string; html: string; fields: AgentField[]; list?: string }>,
  fast = false,
): Promise<{ pages: number; records: Rec[] }> {
  const records: Rec[] = [];
  for (const p of pages) {
    const page = { finalUrl: p.url, body: Buffer.from(p.html), contentType: 'text/html; charset=utf-8' };
    if (p.list) {
      const plan = { list: { selector: p.list, fields: p.fields } };
      for (const item of extractListPage(page, plan, fast).items) records.push(item.record);
    } else records.push(extractDetailPage(page, p.fields, fast).record);
  }
  return { pages: pages.length, records };
}

/**
 * The engine of another build (BENCH_ENGINE_BEFORE: a `tsc -p tsconfig.build.json` output directory), in
 * this process beside today's: "before and after" in one run.
 */
async function beforeEngine(): Promise<{ label: string; run: typeof runExtraction } | null> {
  const dir = process.env.BENCH_ENGINE_BEFORE;
  if (!dir) return null;
  const engine = (await import(pathToFileURL(path.resolve(dir, 'engine/index.js')).href)) as {
    runExtraction: typeof runExtraction;
  };
  // An engine from before `politeness` existed refuses the keyword; it never had robots.txt or per-host
  // limits, so the definition without it asks it for the same crawl.
  const run: typeof runExtraction = ({ definition, ...rest }) => {
    const { politeness: _politeness, ...older } = definition;
    return engine.runExtraction({ ...rest, definition: older as typeof definition });
  };
  return { label: process.env.BENCH_ENGINE_BEFORE_LABEL ?? path.basename(dir), run };
}

/**
 * Today's engine compiled by tsc (BENCH_ENGINE_COMPILED: this tree's `tsc -p tsconfig.build.json` output),
 * as the image runs it: compared with a compiled engine before, tsx's own transpilation is left out.
 */
async function compiledEngine(): Promise<{ label: string; run: typeof runExtraction } | null> {
  const dir = process.env.BENCH_ENGINE_COMPILED;
  if (!dir) return null;
  const engine = (await import(pathToFileURL(path.resolve(dir, 'engine/index.js')).href)) as {
    runExtraction: typeof runExtraction;
  };
  return { label: path.basename(dir), run: engine.runExtraction };
}

// ---------------------------------------------------------------------------------------------
// The large case in separate processes: pages/s and peak memory of the process doing the work.

/** The heap budget the worker gives its run processes (RUN_PROCESS_MAX_OLD_SPACE_MB's default). */
const RUN_PROCESS_HEAP_MB = 128;

export interface ProcessCase {
  name: string;
  pages: number;
  seconds: number;
  cpuMs: number;
  /** VmHWM before the measured Run (modules loaded), and at its end. */
  idlePeakMb: number;
  peakMb: number;
}

function vmHwmMb(pid: number): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * One Run in the real run process (src/jobs/run-child.ts under tsx, or BENCH_DIST's compiled
 * jobs/run-child.js), forked and driven as the worker's pool does it.
 */
async function runProcessCase(
  def: AgentDefinition,
  concurrency: number,
  warmUp: AgentDefinition,
): Promise<ProcessCase> {
  const dist = (process.env.BENCH_DIST ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)
    .at(-1);
  const childPath = dist
    ? path.resolve(dist, 'jobs/run-child.js')
    : fileURLToPath(new URL('../src/jobs/run-child.ts', import.meta.url));
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-bench-engine-'));
  onCleanup('engine storage', () => fs.rmSync(storageDir, { recursive: true, force: true }));
  const execArgv = [
    ...(childPath.endsWith('.ts') ? ['--import', 'tsx'] : []),
    `--max-old-space-size=${RUN_PROCESS_HEAP_MB}`,
  ];
  const child = fork(childPath, [], {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const kill = onCleanup(`run process ${child.pid}`, () => void child.kill('SIGKILL'));
  const payload = (runId: number, definition: AgentDefinition): ChildStartPayload => ({
    runId,
    storage: { driver: 'local' as const, dir: storageDir },
    definition: { ...definition, timeoutSeconds: 600 },
    inputRows: [{}],
    parallelism: 1,
    maxConcurrency: concurrency,
    parallelExport: 'Combined',
    requestTimeoutMs: 30_000,
    pageCpuSeconds: DEFAULT_PAGE_CPU_SECONDS,
    allowPrivateTargets: true,
    logLevel: 'Info',
    logMode: 'Text',
    secrets: [],
    keepRecords: false,
    stopGraceMs: 5_000,
  });
  const runOnce = (p: ChildStartPayload) =>
    new Promise<ChildResult>((resolve, reject) => {
      const onMessage = (msg: ChildMessage) => {
        if (msg.type === 'done') {
          child.off('message', onMessage);
          if (msg.result.fatalError) reject(new Error(`run process: ${msg.result.fatalError}`));
          else resolve(msg.result);
        }
        if (msg.type === 'error') reject(new Error(`run process: ${msg.message}`));
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`run process exited with ${code}`)));
      child.send({ type: 'start', payload: p });
    });
  try {
    // This branch's run process says done before its scratch cleanup (fixed on main by ff66659): a
    // start right after done is refused, so each Run waits a moment first (outside the measured time).
    const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
    await runOnce(payload(1, warmUp));
    const idlePeakMb = vmHwmMb(child.pid!);
    await settle();
    await runOnce(payload(2, def)); // the large Run once before the measured one: code compiled, as in a busy worker
    await settle();
    const cpu0 = processCpuMs(child.pid!).own;
    const t0 = performance.now();
    const result = await runOnce(payload(3, def));
    const seconds = (performance.now() - t0) / 1000;
    return {
      name: `run process (${dist ? `node ${dist}/jobs/run-child.js` : 'tsx src/jobs/run-child.ts'})`,
      pages: result.stats.pageCount,
      seconds,
      cpuMs: processCpuMs(child.pid!).own - cpu0,
      idlePeakMb,
      peakMb: vmHwmMb(child.pid!),
    };
  } finally {
    child.removeAllListeners('exit');
    await kill();
  }
}

/** The bare undici + cheerio loop once, in its own process (this file with --bare-once). */
async function bareProcessCase(def: AgentDefinition, concurrency: number): Promise<ProcessCase> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      `--max-old-space-size=${RUN_PROCESS_HEAP_MB}`,
      self,
      '--bare-once',
      JSON.stringify({ def, concurrency }),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const kill = onCleanup(`bare process ${child.pid}`, () => void child.kill('SIGKILL'));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the bare loop process exited with ${code}`)));
    });
    return { name: 'bare undici + cheerio (own process)', ...(JSON.parse(line) as Omit<ProcessCase, 'name'>) };
  } finally {
    child.removeAllListeners('exit');
    await kill();
  }
}

async function bareOnce(arg: string): Promise<void> {
  const { def, concurrency } = JSON.parse(arg) as { def: AgentDefinition; concurrency: number };
  await bareCrawl({ ...def, startUrl: def.startUrl, next: { selector: 'a.next', maxPages: 1 } }, concurrency); // modules loaded, as in the run process
  const idlePeakMb = vmHwmMb(process.pid);
  await bareCrawl(def, concurrency); // once before the measured one, as for the run process
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { pages } = await bareCrawl(def, concurrency);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(
    `${JSON.stringify({ pages, seconds, cpuMs: (cpu.user + cpu.system) / 1000, idlePeakMb, peakMb: vmHwmMb(process.pid) })}\n`,
  );
}

// ---------------------------------------------------------------------------------------------
// Measurement.

interface Impl {
  name: string;
  run: () => Promise<{ pages: number; records: Rec[] }>;
}

export interface EngineCaseResult {
  site: string;
  concurrency: number;
  impl: string;
  reps: number;
  pages: number;
  seconds: number;
  pagesPerSecond: number;
  /** Client process CPU (user + system) per page, microseconds. */
  cpuUsPerPage: number;
}

/**
 * Alternates the implementations round by round (so a burst of background load hits them alike)
 * until the budget or the repetition cap is reached. Rates are totals over the repetitions (pages
 * over time, CPU over pages): a Run's cost is bimodal (with or without a garbage collection in it),
 * and a median lands in one mode or the other by chance.
 */
async function measure(
  impls: Impl[],
  budgetMs: number,
  maxReps: number,
  minReps = 5,
): Promise<Array<Omit<EngineCaseResult, 'site' | 'concurrency'>>> {
  // Warm-up (JIT, sockets): each implementation for a while, as a run process that has done a few Runs.
  for (const impl of impls) {
    const until = performance.now() + Math.min(1000, budgetMs / 3);
    for (let i = 0; i < 2 || performance.now() < until; i++) await impl.run();
  }
  const acc = impls.map(() => ({ reps: 0, pages: 0, ms: 0, cpuUs: 0 }));
  const started = performance.now();
  for (
    let round = 0;
    round < maxReps && (round < minReps || performance.now() - started < budgetMs * impls.length);
    round++
  ) {
    for (let i = 0; i < impls.length; i++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await impls[i].run();
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      acc[i].reps++;
      acc[i].pages += r.pages;
      acc[i].ms += ms;
      acc[i].cpuUs += cpu.user + cpu.system;
    }
  }
  return impls.map((impl, i) => ({
    impl: impl.name,
    reps: acc[i].reps,
    pages: acc[i].pages,
    seconds: acc[i].ms / 1000,
    pagesPerSecond: acc[i].pages / (acc[i].ms / 1000),
    cpuUsPerPage: acc[i].cpuUs / acc[i].pages,
  }));
}

/**
 * With two cores or more, the measuring process (and the processes it forks) runs on CPU 0 and the
 * sites on CPU 1: otherwise the client and the site preempt each other on whichever core is free,
 * and at concurrency 1 that noise is as large as the difference being measured. BENCH_ENGINE_PIN=0
 * turns it off.
 */
const PINNED =
  os.cpus().length >= 2 &&
  process.env.BENCH_ENGINE_PIN !== '0' &&
  spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

function pinSelf(): void {
  if (PINNED) spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}

/** Starts the two sites in a separate process (this file with --serve) and returns their URLs. */
async function startSitesProcess(): Promise<{
  fixture: string;
  catalog: string;
  large: string;
  pageBytes: { list: number; item: number };
}> {
  const self = fileURLToPath(import.meta.url);
  const command = [process.execPath, '--import', 'tsx', self, '--serve'];
  const child = PINNED
    ? spawn('taskset', ['-c', '1', ...command], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  onCleanup(`site process ${child.pid}`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });
  const lines = readline.createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the site process did not start in 30 s')), 30_000);
    lines.once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`the site process exited with ${code}`)));
  });
  return JSON.parse(first);
}

async function serve(): Promise<void> {
  const fixture = await startFixtureSite();
  const catalog = await startCatalogSite();
  const large = await startCatalogSite(LARGE_LIST_PAGES, LARGE_PER_PAGE);
  process.stdout.write(
    `${JSON.stringify({ fixture: fixture.url, catalog: catalog.url, large: large.url, pageBytes: catalog.pageBytes })}\n`,
  );
  const stop = async () => {
    await Promise.all([fixture.close(), catalog.close(), large.close()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Ends with its parent.
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

export interface EngineBenchResult {
  cases: EngineCaseResult[];
  processes: ProcessCase[];
  pageBytes: { fixture: number; catalogList: number; catalogItem: number };
  parseCost: ParseCostRow[];
}

export async function benchEngine(
  opts: { concurrencies?: number[]; budgetSeconds?: number } = {},
): Promise<EngineBenchResult> {
  const concurrencies = opts.concurrencies ?? [1, 4];
  const budgetMs = (opts.budgetSeconds ?? Number(process.env.BENCH_ENGINE_SECONDS ?? 3)) * 1000;
  if (!(budgetMs > 0 && budgetMs <= 60_000)) throw new Error('BENCH_ENGINE_SECONDS must be between 0 and 60');
  const cases: EngineCaseResult[] = [];
  const processes: ProcessCase[] = [];
  let fixtureBytes = 0;
  let pageBytes = { list: 0, item: 0 };
  let parseCost: { rows: ParseCostRow[]; text: string } = { rows: [], text: '' };
  const before = await beforeEngine();
  const compiled = await compiledEngine();
  try {
    note('engine: starting the fixture sites in a separate process...');
    const sites = await startSitesProcess();
    pinSelf();
    pageBytes = sites.pageBytes;
    const kb = Math.round(pageBytes.item / 1024);
    const defs: Array<{
      site: string;
      def: AgentDefinition;
      maxReps: number;
      minReps?: number;
      concurrencies?: number[];
      parse?: boolean;
      /** The bare loop's definition, when the engine's cannot be read by it (then records are not compared). */
      floor?: AgentDefinition;
    }> = [
      { site: 'fixture (33 tiny pages/run)', def: fixtureDefinition(sites.fixture), maxReps: 200 },
      { site: `catalog (210 pages/run, ~${kb} KB)`, def: catalogDefinition(sites.catalog), maxReps: 40 },
      {
        site: `catalog, XPath + regex + nested multiple fields (210 pages/run, ~${kb} KB)`,
        def: languageDefinition(sites.catalog),
        floor: catalogDefinition(sites.catalog),
        maxReps: 40,
        parse: false,
      },
      // Same pages as the catalog (parse + extract only is measured there).
      {
        site: `catalog (${LARGE_PAGES.toLocaleString('en-US')} pages/run, ~${kb} KB)`,
        def: catalogDefinition(sites.large),
        maxReps: 10,
        minReps: 3,
        concurrencies: [LARGE_CONCURRENCY],
        parse: false,
      },
    ];
    for (const { site, def, maxReps, minReps, concurrencies: caseConcurrencies, parse, floor } of defs) {
      const bareDef = floor ?? def;
      // Same work, checked once: the engine's records must equal the bare loop's.
      const reference = await bareCrawl(bareDef, 4);
      const engines = [() => engineCrawl(def, 4)];
      if (before && !floor) engines.push(() => engineCrawl(def, 4, before.run));
      if (compiled) engines.push(() => engineCrawl(def, 4, compiled.run));
      for (const crawl of engines) {
        const engine = await crawl();
        const differ = !floor && JSON.stringify(reference.records) !== JSON.stringify(engine.records);
        if (differ || reference.pages !== engine.pages) {
          throw new Error(
            `${site}: the engine and the bare loop disagree (${engine.pages} vs ${reference.pages} pages)`,
          );
        }
      }
      // Inputs of the breakdown rows: every URL of a Run, and every page body.
      const urls: string[] = [];
      const bodies: Array<{ url: string; html: string; fields: AgentField[]; list?: string }> = [];
      for (let url: string | null = bareDef.startUrl; url !== null;) {
        const listUrl: string = url;
        const html = await (await request(listUrl)).body.text();
        urls.push(listUrl);
        bodies.push({ url: listUrl, html, fields: bareDef.list.fields, list: bareDef.list.selector });
        const $ = load(html);
        for (const el of $(bareDef.list.selector).toArray()) {
          const href = absolute($(el).find(bareDef.follow!.selector!).first().attr('href'), listUrl)!;
          urls.push(href);
          bodies.push({ url: href, html: await (await request(href)).body.text(), fields: bareDef.follow!.fields });
        }
        url = absolute($(bareDef.next!.selector).first().attr('href'), listUrl);
      }
      if (site.startsWith('fixture'))
        fixtureBytes = Math.round(bodies.reduce((n, b) => n + Buffer.byteLength(b.html), 0) / bodies.length);

      const cs = caseConcurrencies ?? concurrencies;
      for (const c of cs) {
        note(`engine: ${site}, concurrency ${c}...`);
        const impls: Impl[] = [
          { name: 'engine, fast parse path (runExtraction)', run: () => engineCrawl(def, c) },
          { name: 'bare undici + cheerio', run: () => bareCrawl(bareDef, c) },
          { name: 'HTTP only (no parsing)', run: () => fetchOnly(urls, c) },
        ];
        if (before && !floor)
          impls.splice(2, 0, {
            name: `engine before (${before.label})`,
            run: () => engineCrawl(def, c, before.run),
          });
        if (compiled)
          impls.splice(1, 0, {
            name: `engine, compiled (${compiled.label})`,
            run: () => engineCrawl(def, c, compiled.run),
          });
        // Parsing does not depend on the concurrency: measured once, in the first rotation.
        if (c === cs[0] && parse !== false) {
          impls.push({ name: 'parse + extract only, parse5 (no HTTP)', run: () => parseOnly(bodies) });
          impls.push({ name: 'parse + extract only, fast path (no HTTP)', run: () => parseOnly(bodies, true) });
        }
        const results = await measure(impls, budgetMs, maxReps, minReps);
        for (const r of results) cases.push({ site, concurrency: c, ...r });
      }
    }
    note(
      `engine: one Run of ${LARGE_PAGES} pages at concurrency ${LARGE_CONCURRENCY} in the run process and a bare loop in its own process...`,
    );
    const large = catalogDefinition(sites.large);
    processes.push(await runProcessCase(large, LARGE_CONCURRENCY, fixtureDefinition(sites.fixture)));
    processes.push(await bareProcessCase(large, LARGE_CONCURRENCY));
    parseCost = await benchParseCost();
  } finally {
    await runCleanups();
  }

  const rows: Array<Array<string | number>> = [];
  for (const site of [...new Set(cases.map((c) => c.site))]) {
    const ofSite = cases.filter((x) => x.site === site);
    for (const c of [
      ...ofSite.filter((x) => !x.impl.startsWith('parse')),
      ...ofSite.filter((x) => x.impl.startsWith('parse')),
    ]) {
      const floor = cases.find((x) => x.site === site && x.concurrency === c.concurrency && x.impl.startsWith('bare'));
      const ratio = c.impl.startsWith('engine') && floor ? `${fmt(c.pagesPerSecond / floor.pagesPerSecond, 2)}x` : '';
      // CPU per page is steadier than pages/s on a shared machine.
      const cpuRatio = c.impl.startsWith('engine') && floor ? `${fmt(c.cpuUsPerPage / floor.cpuUsPerPage, 2)}x` : '';
      rows.push([
        site,
        c.impl.startsWith('parse') ? '-' : c.concurrency,
        c.impl,
        c.reps,
        fmt(c.pagesPerSecond, 0),
        ratio,
        fmt(c.cpuUsPerPage, 0),
        cpuRatio,
      ]);
    }
  }
  print(
    table(
      'Engine: pages per second, runExtraction vs a bare undici + cheerio loop',
      [
        'site',
        'concurrency',
        'implementation',
        'runs',
        'pages/s',
        'engine / bare',
        'client CPU us/page',
        'engine CPU / bare CPU',
      ],
      rows,
    ),
  );
  print(
    `Average page size: fixture ${fixtureBytes} B; catalog list ${pageBytes.list} B, detail ${pageBytes.item} B. Sites served by a separate process on 127.0.0.1` +
      (PINNED
        ? ', pinned to CPU 1; the measuring process (and the processes it forks) pinned to CPU 0.'
        : '; no CPU pinning.'),
  );
  print(
    table(
      `Engine: one Run of ${LARGE_PAGES.toLocaleString('en-US')} pages (catalog), concurrency ${LARGE_CONCURRENCY}, each in its own process (--max-old-space-size=${RUN_PROCESS_HEAP_MB}, as the worker forks run processes)`,
      ['process', 'pages', 'seconds', 'pages/s', 'CPU ms/page', 'peak RSS before the Run MB', 'peak RSS (VmHWM) MB'],
      processes.map((p) => [
        p.name,
        p.pages,
        fmt(p.seconds, 2),
        fmt(p.pages / p.seconds, 0),
        fmt(p.cpuMs / p.pages, 2),
        fmt(p.idlePeakMb, 0),
        fmt(p.peakMb, 0),
      ]),
    ),
  );
  print(
    'The run process gets the Runs as the worker sends them (records spooled to files, CSV export, run log): one small Run (the fixture) ' +
      'loads its modules ("before the Run"), then the large Run twice; the second is measured. The bare loop process does the same with bareCrawl. ' +
      "Peak RSS is VmHWM from /proc, over the process's life.",
  );
  print(parseCost.text);
  return {
    cases,
    processes,
    pageBytes: { fixture: fixtureBytes, catalogList: pageBytes.list, catalogItem: pageBytes.item },
    parseCost: parseCost.rows,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--serve')) {
    await serve();
  } else if (process.argv.includes('--bare-once')) {
    await bareOnce(process.argv[process.argv.indexOf('--bare-once') + 1]);
    process.exit(0);
  } else {
    installSignalCleanup();
    benchEngine().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
        process.exit(1);
      },
    );
  }
}
