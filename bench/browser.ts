// `npm run bench -- browser`: the browser renderer against a bare playwright-core loop, side by side
// in one run, on 200 detail pages built by script (plus their list page), at concurrency 4, with the
// same Chromium (CHROMIUM_PATH, default /usr/bin/chromium); and the same Run as a worker executes it, in a
// run process (src/jobs/run-child.ts) whose pages render in this process's pool over IPC. Reports pages/s
// and the peak memory (PSS) of the browser process tree, sampled every 100 ms. The HTTP path's
// figures are `bench -- engine`'s.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { closeSharedBrowserPool, descendants } from '../src/engine/browser/index.js';
import type { AgentDefinition } from '../src/engine/definition.js';
import { DEFAULT_PAGE_CPU_SECONDS, pooledBrowserSources, runExtraction } from '../src/engine/index.js';
import { openRunBrowserSessions } from '../src/jobs/browser-sessions.js';
import {
  isBrowserRequest,
  type ChildMessage,
  type ChildResult,
  type ParentMessage,
} from '../src/services/runs/run-protocol.js';
import { median, onCleanup, print, table } from './helpers.js';

const PAGES = Number(process.env.BENCH_BROWSER_PAGES ?? 200);
const CONCURRENCY = 4;
const ROUNDS = Number(process.env.BENCH_BROWSER_ROUNDS ?? 3);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The same launch flags the engine's pool uses where they matter for speed and this closed network.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

/** A list page of links (built by script) and detail pages whose fields a script writes from JSON. */
function startSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const detail = /^\/item\/(\d+)$/.exec(url);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url === '/') {
      const items = JSON.stringify(Array.from({ length: PAGES }, (_, i) => i + 1));
      res.end(`<!doctype html><html><body><ul id="list"></ul><script>
for (const n of ${items}) { const li = document.createElement('li'); li.className = 'item';
  li.innerHTML = '<a class="name" href="/item/' + n + '">Item ' + n + '</a>'; document.getElementById('list').appendChild(li); }
</script></body></html>`);
    } else if (detail) {
      const n = Number(detail[1]);
      const data = JSON.stringify({ sku: `SKU-${n}`, price: (n * 1.25).toFixed(2), text: 'lorem ipsum '.repeat(200) });
      res.end(`<!doctype html><html><body><main id="app"></main><script>
const d = ${data}; document.getElementById('app').innerHTML =
  '<h1 class="sku">' + d.sku + '</h1><span class="price">' + d.price + '</span><p>' + d.text + '</p>';
</script></body></html>`);
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/** Proportional set size (shared pages split between the processes sharing them), else RSS, in MB. */
function memoryMb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    // fall through to RSS
  }
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples the memory of the browser process tree (every process this one started: Chromium's
 * browser, renderers, GPU and utility processes) until stopped; returns the peak (MB, PSS: Chromium's
 * processes share much of their memory, which RSS would count once per process).
 */
function treeMemorySampler(): () => number {
  let peak = 0;
  // A run process (Node) is not part of the browser tree.
  const node = fs.realpathSync(process.execPath);
  const isNode = (pid: number) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/exe`) === node;
    } catch {
      return false;
    }
  };
  const timer = setInterval(() => {
    const total = descendants(process.pid, isNode).reduce((sum, pid) => sum + memoryMb(pid), 0);
    peak = Math.max(peak, total);
  }, 100);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

interface Case {
  pages: number;
  records: number;
  seconds: number;
  peakRssMb: number;
}

const definitionFor = (siteUrl: string): AgentDefinition => ({
  startUrl: `${siteUrl}/`,
  politeness: { respectRobotsTxt: false, perHostConcurrency: 100 }, // raw speed: no robots.txt, the Run-wide limit only
  render: 'browser',
  list: { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] },
  follow: {
    selector: 'a.name',
    fields: [
      { name: 'sku', selector: '.sku' },
      { name: 'price', selector: '.price' },
    ],
  },
});
const BROWSER = { executablePath: CHROMIUM, maxPages: CONCURRENCY, maxRssMb: 4096 };

async function engineCase(siteUrl: string): Promise<Case> {
  const definition = definitionFor(siteUrl);
  const stop = treeMemorySampler();
  const started = performance.now();
  const result = await runExtraction({
    definition,
    inputRows: [],
    allowPrivateTargets: true,
    maxConcurrency: CONCURRENCY,
    browser: BROWSER,
  });
  const seconds = (performance.now() - started) / 1000;
  await closeSharedBrowserPool();
  const records = result.sets.flatMap((s) => s.records);
  if (records.some((r) => !r.sku)) throw new Error('the engine missed a detail field');
  return { pages: result.stats.pageCount, records: records.length, seconds, peakRssMb: stop() };
}

/**
 * The Run as a worker executes it: the run process (src/jobs/run-child.ts under tsx) renders its pages in
 * this process's browser pool over IPC. A small Run first loads the process (not measured), as a warm
 * worker's run process is.
 */
async function runProcessCase(siteUrl: string): Promise<Case> {
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-bench-browser-'));
  const removeStorage = onCleanup('browser storage', () => fs.rmSync(storageDir, { recursive: true, force: true }));
  const child = fork(fileURLToPath(new URL('../src/jobs/run-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const kill = onCleanup(`run process ${child.pid}`, () => void child.kill('SIGKILL'));
  const runOnce = (runId: number, definition: AgentDefinition) =>
    new Promise<ChildResult>((resolve, reject) => {
      const sessions = openRunBrowserSessions(pooledBrowserSources(BROWSER), (msg: ParentMessage) => child.send(msg));
      const onMessage = (msg: ChildMessage) => {
        if (isBrowserRequest(msg)) return sessions.handle(msg);
        if (msg.type === 'done' || msg.type === 'error') child.off('message', onMessage);
        if (msg.type === 'done') resolve(msg.result);
        if (msg.type === 'error') reject(new Error(`run process: ${msg.message}`));
      };
      child.on('message', onMessage);
      child.send({
        type: 'start',
        payload: {
          runId,
          storage: { driver: 'local', dir: storageDir },
          definition,
          inputRows: [],
          parallelism: 1,
          maxConcurrency: CONCURRENCY,
          parallelExport: 'Combined',
          requestTimeoutMs: 30_000,
          pageCpuSeconds: DEFAULT_PAGE_CPU_SECONDS,
          allowPrivateTargets: true,
          browser: BROWSER,
          logLevel: 'Info',
          logMode: 'Text',
          secrets: [],
          stopGraceMs: 5_000,
        },
      });
    });
  try {
    const { follow: _follow, ...listOnly } = definitionFor(siteUrl);
    await runOnce(1, listOnly);
    const stop = treeMemorySampler();
    const started = performance.now();
    const result = await runOnce(2, definitionFor(siteUrl));
    const seconds = (performance.now() - started) / 1000;
    await closeSharedBrowserPool();
    if (result.fatalError || result.stats.dataCount !== PAGES || result.stats.errorCount > 0)
      throw new Error(`the run process missed pages: ${JSON.stringify(result.stats)} ${result.fatalError ?? ''}`);
    return { pages: result.stats.pageCount, records: result.stats.dataCount, seconds, peakRssMb: stop() };
  } finally {
    await kill();
    await removeStorage();
  }
}

/** The same work with playwright-core alone: one browser, one context, 4 pages at a time. */
async function bareCase(siteUrl: string): Promise<Case> {
  const stop = treeMemorySampler();
  const started = performance.now();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext();
  await context.route('**/*', (route) =>
    ['image', 'font', 'media'].includes(route.request().resourceType()) ? route.abort() : route.continue(),
  );
  const list = await context.newPage();
  await list.goto(`${siteUrl}/`);
  await list.waitForSelector('li.item');
  const links = await list.$$eval('a.name', (as) => as.map((a) => (a as unknown as { href: string }).href));
  await list.close();
  const records: Array<Record<string, string>> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const page = await context.newPage();
      while (next < links.length) {
        const url = links[next++];
        await page.goto(url, { waitUntil: 'load' });
        const sku = await page.$eval('.sku', (e) => e.textContent ?? '');
        const price = await page.$eval('.price', (e) => e.textContent ?? '');
        records.push({ sku, price });
      }
      await page.close();
    }),
  );
  await browser.close();
  const seconds = (performance.now() - started) / 1000;
  if (records.some((r) => !r.sku)) throw new Error('the bare loop missed a detail field');
  return { pages: links.length + 1, records: records.length, seconds, peakRssMb: stop() };
}

export async function benchBrowser(): Promise<void> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`);
  const site = await startSite();
  try {
    // One warm-up of each (Chromium's first start reads its files from disk), then ROUNDS measured rounds,
    // alternating, so that a load changing meanwhile weighs on both; the medians and each round's ratio.
    await bareCase(site.url);
    await engineCase(site.url);
    type Round = { bare: Case; engine: Case; process: Case };
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++)
      rounds.push({
        bare: await bareCase(site.url),
        engine: await engineCase(site.url),
        process: await runProcessCase(site.url),
      });
    const rate = (c: Case) => c.pages / c.seconds;
    const med = (f: (p: Round) => number) => median(rounds.map(f));
    const row = (name: string, pick: (p: Round) => Case) => [
      name,
      String(pick(rounds[0]).pages),
      String(pick(rounds[0]).records),
      med((p) => pick(p).seconds).toFixed(1),
      med((p) => rate(pick(p))).toFixed(1),
      `${med((p) => rate(pick(p)) / rate(p.bare)).toFixed(2)}x (${rounds.map((p) => (rate(pick(p)) / rate(p.bare)).toFixed(2)).join(', ')})`,
      med((p) => pick(p).peakRssMb).toFixed(0),
    ];
    const title = `Browser renderer: ${PAGES} detail pages built by script + their list page, concurrency ${CONCURRENCY}, ${CHROMIUM}, medians of ${ROUNDS} alternating rounds`;
    const out = table(
      title,
      ['path', 'pages', 'records', 'seconds', 'pages/s', 'vs bare (each round)', 'browser tree peak PSS (MB)'],
      [
        row('bare playwright-core loop', (p) => p.bare),
        row('engine (render: browser)', (p) => p.engine),
        row("run process, the worker's pool over IPC", (p) => p.process),
      ],
    );
    print(out);
  } finally {
    await site.close();
  }
}
