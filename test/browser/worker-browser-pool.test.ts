// One browser pool per worker, with a real worker and Chromium: the Runs of all its run
// processes render in one browser within BROWSER_MAX_PAGES pages, and a Run that is stopped, killed, or
// whose run process dies mid-render leaves no page open and the browser processes at their baseline.
import { describe, expect, it } from 'vitest';
import { descendants } from '../../src/engine/browser/pool.js';
import { chromiumUnder, comm, inject, parentOf, scriptAgent, useBrowserSuite } from '../helpers/browser-suite.js';
import { waitFor } from '../helpers/process.js';
import { errorCodeOf, waitForRun } from '../helpers/runs.js';
import { HELD_ITEMS } from '../helpers/script-site.js';

// Two Runs at once, one page at a time for the whole worker; a stop aborts pages after 1 s.
const suite = useBrowserSuite({ RUN_WORKER_CONCURRENCY: '2', BROWSER_MAX_PAGES: '1', RUN_STOP_GRACE_SECONDS: '1' });
const workerPid = () => suite.worker!.child.pid!;
const agentFor = (path: string, extra: Record<string, unknown> = {}) =>
  scriptAgent(suite, path, { render: 'browser', ...extra });

/** Chromium browsers (the roots of Chromium process trees) below the worker, with their parents. */
const browsers = () =>
  chromiumUnder(workerPid())
    .map((pid) => ({ pid, parent: parentOf(pid) }))
    // A renderer that ended between the reads has no parent or a parent without a name: not a browser.
    .filter(({ parent }) => parent > 0 && comm(parent) !== '' && !comm(parent).startsWith('chrom'));
/** The worker's run processes (Node, forked by the worker). */
const runProcesses = () =>
  descendants(workerPid()).filter((pid) => parentOf(pid) === workerPid() && comm(pid) === 'node');

/**
 * The Chromium process count below the worker once it has not changed for a second: a page closed by
 * the previous test may still have its renderer, and Chromium keeps a spare renderer that it starts a
 * moment after a navigation (a new page then takes it: the count need not grow while a page renders).
 */
async function settledChromiumCount(): Promise<number> {
  let last = chromiumUnder(workerPid()).length;
  let since = Date.now();
  const settled = await waitFor(
    async () => {
      const now = chromiumUnder(workerPid()).length;
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= 1_000 ? { count: now } : null;
    },
    15_000,
    100,
  );
  return settled.count;
}

async function start(agentId: number): Promise<number> {
  // The worker announces Chromium with its first heartbeat: until then the start is refused.
  return waitFor(async () => {
    const res = await inject(suite, 'POST', `/api/v1/agent/${agentId}/start`);
    return res.statusCode === 202 ? (res.json().id as number) : null;
  }, 30_000);
}

describe('one browser pool per worker', () => {
  it('two Runs at once share one browser in the worker and never exceed BROWSER_MAX_PAGES pages', async () => {
    // Each renders the list and its HELD_ITEMS detail pages.
    const follow = { follow: { selector: 'a.name', fields: [{ name: 'sku', selector: '.sku' }] } };
    const [a, b] = [await agentFor('/held', follow), await agentFor('/held', follow)];
    const runs = [await start(a.id), await start(b.id)];
    const seen: Array<{ pid: number; parent: number }> = [];
    const sampler = setInterval(() => seen.push(...browsers()), 50);
    const ended = await Promise.all(
      [a.id, b.id].map((agentId, i) =>
        waitForRun(suite.ctx.app, suite.org.apiKey, agentId, runs[i], undefined, 90_000),
      ),
    );
    clearInterval(sampler);
    expect(ended.map((r) => [r.status, r.recordsExtracted])).toEqual([
      [10, HELD_ITEMS],
      [10, HELD_ITEMS],
    ]);
    // The two Runs overlapped: each started before the other ended.
    const [ra, rb] = ended.map((r) => ({ start: Date.parse(r.startTime), end: Date.parse(r.endTime) }));
    expect(ra.start < rb.end && rb.start < ra.end).toBe(true);
    // One browser, the worker's own (no run process launched one), and one page in flight at a time.
    expect(new Set(seen.map((s) => s.pid)).size).toBe(1);
    expect(seen.every((s) => s.parent === workerPid())).toBe(true);
    expect(suite.site.maxHeld()).toBe(1);
  });

  it('a stop mid-render closes the page within 5 s of the grace; the Run ends Stopped', async () => {
    const agent = await agentFor('/hang', { pageTimeoutSeconds: 120 });
    const runId = await start(agent.id);
    await waitFor(async () => suite.site.hanging() > 0 || null, 60_000);
    expect((await inject(suite, 'POST', `/api/v1/agent/${agent.id}/run/${runId}/stop`)).statusCode).toBe(200);
    const stoppedAt = Date.now();
    await waitFor(async () => suite.site.hanging() === 0 || null, 10_000);
    expect(Date.now() - stoppedAt).toBeLessThan(1_000 + 5_000);
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 30_000);
    expect(run.status).toBe(8);
  });

  it('a kill mid-render closes the page within 5 s and the browser processes return to their baseline', async () => {
    const baseline = await settledChromiumCount();
    const agent = await agentFor('/hang', { pageTimeoutSeconds: 120 });
    const runId = await start(agent.id);
    await waitFor(async () => suite.site.hanging() > 0 || null, 60_000);
    // The page renders in the worker's one browser.
    expect(browsers().map((b) => b.parent)).toEqual([workerPid()]);
    expect((await inject(suite, 'POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`)).statusCode).toBeLessThan(300);
    const killedAt = Date.now();
    await waitFor(async () => suite.site.hanging() === 0 || null, 10_000);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 30_000);
    expect([8, 9]).toContain(run.status);
    await waitFor(async () => chromiumUnder(workerPid()).length <= baseline || null, 30_000);
  });

  it('a run process SIGKILLed mid-render: the worker closes its page, the Run fails, no Chromium is left over', async () => {
    const baseline = await settledChromiumCount();
    const agent = await agentFor('/hang', { pageTimeoutSeconds: 120 });
    const runId = await start(agent.id);
    await waitFor(async () => suite.site.hanging() > 0 || null, 60_000);
    // Every run process of the worker (the idle ones are forked again as needed).
    const killedAt = Date.now();
    for (const pid of runProcesses()) process.kill(pid, 'SIGKILL');
    await waitFor(async () => suite.site.hanging() === 0 || null, 10_000);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 30_000);
    expect(run.status).toBe(6);
    expect(run.errorMessage).toContain('ended unexpectedly');
    expect(await errorCodeOf(suite.ctx.app, suite.org.apiKey, agent.id, runId)).toBe('RUN_PROCESS_CRASHED');
    await waitFor(async () => chromiumUnder(workerPid()).length <= baseline || null, 30_000);
    expect(browsers().every((b) => b.parent === workerPid())).toBe(true);
  });

  it("a crashed browser fails only the pages it had: they are retried in the worker's new browser", async () => {
    const follow = { follow: { selector: 'a.name', fields: [{ name: 'sku', selector: '.sku' }] } };
    const agent = await agentFor('/held', follow);
    const hits = suite.site.hits.get('/held/2') ?? 0;
    const runId = await start(agent.id);
    await waitFor(async () => (suite.site.hits.get('/held/2') ?? 0) > hits || null, 60_000, 20);
    const [crashed] = browsers();
    process.kill(crashed.pid, 'SIGKILL');
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 90_000);
    expect([run.status, run.recordsExtracted]).toEqual([10, HELD_ITEMS]);
    const now = browsers();
    expect(now.map((b) => b.pid)).not.toContain(crashed.pid);
    expect(now.every((b) => b.parent === workerPid())).toBe(true);
  });
});
