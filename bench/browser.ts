// `npm run bench -- browser`: the browser renderer against a bare playwright-core loop, side by side
// in one run, on 200 detail pages built by script (plus their list page), at concurrency 4, with the
// same Chromium (CHROMIUM_PATH, default /usr/bin/chromium). Reports pages/s and the peak memory (PSS)
// of the browser process tree, sampled every 100 ms. The HTTP path's
// figures are `bench -- engine`'s.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { closeSharedBrowserPool, descendants } from '../src/engine/browser/index.js';
import type { AgentDefinition } from '../src/engine/definition.js';
import { runExtraction } from '../src/engine/index.js';
import { median, print, table } from './helpers.js';

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
  const timer = setInterval(() => {
    const total = descendants(process.pid).reduce((sum, pid) => sum + memoryMb(pid), 0);
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

async function engineCase(siteUrl: string): Promise<Case> {
  const definition: AgentDefinition = {
    startUrl: `${siteUrl}/`,
    render: 'browser',
    list: { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] },
    follow: {
      selector: 'a.name',
      fields: [
        { name: 'sku', selector: '.sku' },
        { name: 'price', selector: '.price' },
      ],
    },
  };
  const stop = treeMemorySampler();
  const started = performance.now();
  const result = await runExtraction({
    definition,
    inputRows: [],
    allowPrivateTargets: true,
    maxConcurrency: CONCURRENCY,
    browser: { executablePath: CHROMIUM, maxPages: CONCURRENCY, maxRssMb: 4096 },
  });
  const seconds = (performance.now() - started) / 1000;
  await closeSharedBrowserPool();
  const records = result.sets.flatMap((s) => s.records);
  if (records.some((r) => !r.sku)) throw new Error('the engine missed a detail field');
  return { pages: result.stats.pageCount, records: records.length, seconds, peakRssMb: stop() };
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
    // One warm-up of each (Chromium's first start reads its files from disk), then ROUNDS measured pairs,
    // alternating, so that a load changing meanwhile weighs on both; the medians and each round's ratio.
    await bareCase(site.url);
    await engineCase(site.url);
    const pairs: Array<{ bare: Case; engine: Case }> = [];
    for (let r = 0; r < ROUNDS; r++) pairs.push({ bare: await bareCase(site.url), engine: await engineCase(site.url) });
    const rate = (c: Case) => c.pages / c.seconds;
    const med = (f: (p: { bare: Case; engine: Case }) => number) => median(pairs.map(f));
    const row = (name: string, pick: (p: { bare: Case; engine: Case }) => Case) => [
      name,
      String(pick(pairs[0]).pages),
      String(pick(pairs[0]).records),
      med((p) => pick(p).seconds).toFixed(1),
      med((p) => rate(pick(p))).toFixed(1),
      `${med((p) => rate(pick(p)) / rate(p.bare)).toFixed(2)}x (${pairs.map((p) => (rate(pick(p)) / rate(p.bare)).toFixed(2)).join(', ')})`,
      med((p) => pick(p).peakRssMb).toFixed(0),
    ];
    const title = `Browser renderer: ${PAGES} detail pages built by script + their list page, concurrency ${CONCURRENCY}, ${CHROMIUM}, medians of ${ROUNDS} alternating rounds`;
    const out = table(
      title,
      ['path', 'pages', 'records', 'seconds', 'pages/s', 'vs bare (each round)', 'browser tree peak PSS (MB)'],
      [row('bare playwright-core loop', (p) => p.bare), row('engine (render: browser)', (p) => p.engine)],
    );
    print(out);
  } finally {
    await site.close();
  }
}
