// The resumable-Run drill: a 30-page Run (10 records a page) whose worker gets SIGTERM (the Run is handed
// back) or SIGKILL (the Run is taken over after RUN_STALE_SECONDS) once a given page was asked for.
// Another worker goes on from the last checkpoint: the site counts every page's hits (none fetched twice
// beyond the checkpoint window), the export has every record once, recordsExtracted never goes
// backwards, and the log keeps both attempts with the interruption and the resumption.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { auth, createTestContext, type TestContext } from './app.js';
import { waitFor } from './process.js';
import { createAgent, startWorker, waitForRun } from './runs.js';

const PAGES = 30;
const PAGE_MS = 150;

/** Sets up the site, the app and an organization for the file; `render` is the Agent's renderer. */
export function useResumeDrill(render: 'http' | 'browser', env: Record<string, string> = {}) {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['bootstrap']>>;
  let server: http.Server;
  let siteUrl: string;
  const hits = new Map<number, number>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
      hits.set(page, (hits.get(page) ?? 0) + 1);
      const items = Array.from({ length: 10 }, (_, i) => `<div class="item"><b>p${page}-r${i + 1}</b></div>`).join('');
      const next = page < PAGES ? `<a class="next" href="/list?page=${page + 1}">next</a>` : '';
      setTimeout(() => res.end(`<html><body>${items}${next}</body></html>`), PAGE_MS);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ctx = await createTestContext({
      env: {
        RUN_STALE_SECONDS: '3',
        RUN_RECONCILE_INTERVAL_SECONDS: '1',
        SHUTDOWN_GRACE_SECONDS: '2',
        RUN_MAX_TAKEOVERS: '3',
        ENGINE_ALLOW_PRIVATE_TARGETS: 'true',
        ...env,
      },
    });
    org = await ctx.bootstrap();
  }, 120_000);
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await ctx?.close();
  });

  const definition = (extra: Record<string, unknown> = {}) => ({
    startUrl: `${siteUrl}/list?page=1`,
    list: { selector: 'div.item', fields: [{ name: 'title', selector: 'b' }] },
    next: { selector: 'a.next', maxPages: 100 },
    export: { format: 'csv' },
    render,
    ...extra,
  });

  async function status(agentId: number, runId: number) {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/agent/${agentId}/run/${runId}/status`,
      headers: auth(org.apiKey),
    });
    return res.json() as { status: number; recordsExtracted: number };
  }

  /** Interrupts the worker executing the Run with `signal` once page `atPage` was asked for; another worker ends it. */
  async function drill(signal: 'SIGTERM' | 'SIGKILL', atPage: number, extra: Record<string, unknown> = {}) {
    hits.clear();
    const first = await startWorker(ctx.env);
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      definition(extra),
      `Resume ${render} ${signal} ${atPage}`,
    );
    const started = Date.now();
    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(org.apiKey),
      payload: {},
    });
    const runId = start.json().id as number;
    const seen: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        seen.push((await status(agent.id, runId)).recordsExtracted);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await waitFor(async () => ((hits.get(atPage) ?? 0) > 0 ? true : null), 60_000, 20);
    first.child.kill(signal);
    await first.exited;
    const recordsAtSignal = (await status(agent.id, runId)).recordsExtracted;
    const second = await startWorker(ctx.env);
    try {
      const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 120_000);
      sampling = false;
      await sampler;
      const csv = fs.readFileSync(path.join(ctx.config.storageDir, 'runs', String(runId), 'data.csv'), 'utf8');
      const log = fs.readFileSync(path.join(ctx.config.storageDir, 'runs', String(runId), 'run.log'), 'utf8');
      // List pages only: the fixture counts a request without `page` (robots.txt, which each attempt asks
      // for once) as page 0.
      const twice = [...hits].filter(([p, n]) => p >= 1 && n > 1).map(([p]) => p);
      const figures = {
        render,
        signal,
        atPage,
        recordsAtSignal,
        pagesFetchedTwice: twice,
        totalHits: [...hits.values()].reduce((a, b) => a + b, 0),
        records: run.recordsExtracted,
        seconds: (Date.now() - started) / 1000,
      };
      console.log(`resume drill: ${JSON.stringify(figures)}`);
      return { run, csv, log, seen, twice, figures, agentId: agent.id, runId };
    } finally {
      sampling = false;
      await second.stop();
    }
  }

  function expectResumed(r: Awaited<ReturnType<typeof drill>>) {
    expect(r.run.status, r.run.errorMessage).toBe(10);
    expect(r.run.recordsExtracted).toBe(300);
    expect(r.run.recordsExported).toBe(300);
    // Every record once: 300 distinct titles, no duplicate line.
    const lines = r.csv.trim().split('\r\n').slice(1);
    expect(lines).toHaveLength(300);
    expect(new Set(lines).size).toBe(300);
    // Every page fetched, and again only within the checkpoint window: the page in flight when interrupted
    // and, after a kill, the one before it when its checkpoint had not reached the database yet.
    for (let p = 1; p <= PAGES; p++) expect(hits.get(p) ?? 0, `page ${p}`).toBeGreaterThanOrEqual(1);
    expect(r.twice.length).toBeLessThanOrEqual(2);
    expect(hits.get(0) ?? 0, 'robots.txt, once per attempt').toBeLessThanOrEqual(2);
    // A browser Run's page may show one more hit: on a loaded machine one page was once requested a third
    // time by Chromium's side around the interruption. What resuming bounds is which pages were fetched
    // again (`twice`, above); the HTTP drill keeps the stricter bound.
    expect(Math.max(...hits.values())).toBeLessThanOrEqual(render === 'browser' ? 3 : 2);
    // The record count never went backwards.
    for (let i = 1; i < r.seen.length; i++) expect(r.seen[i]).toBeGreaterThanOrEqual(r.seen[i - 1]);
    // The log keeps both attempts, the interruption and where it went on.
    expect(r.log.match(/Run \d+ started/g)).toHaveLength(2);
    expect(r.log).toMatch(/\[Warning\] Interrupted: /);
    expect(r.log).toMatch(
      /Resumed \(attempt 2\) from its last checkpoint: 0 input\(s\) done, \d+ pages, \d+ records; going on at page \d+/,
    );
    expect(r.log.indexOf('Interrupted: ')).toBeLessThan(r.log.indexOf('Resumed (attempt 2)'));
  }

  return { drill, expectResumed, app: () => ctx.app, apiKey: () => org.apiKey };
}
