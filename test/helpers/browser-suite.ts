// What the browser suites share: a test context with an organization, the script-built fixture site
// (script-site.ts), a worker when the suite wants one from the start, the API calls they make, and the
// Chromium processes below a process, read from /proc.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { descendants } from '../../src/engine/browser/pool.js';
import { auth, createTestContext, type TestContext } from './app.js';
import { createAgent, startWorker } from './runs.js';
import { startScriptSite, type ScriptSite } from './script-site.js';

export interface BrowserSuite {
  ctx: TestContext;
  site: ScriptSite;
  org: Awaited<ReturnType<TestContext['bootstrap']>>;
  worker?: Awaited<ReturnType<typeof startWorker>>;
}

/**
 * Registers the suite's setup and teardown; the returned object is filled in `beforeAll`. `workerEnv`:
 * a worker is started with these settings over the context's; without it, the suite starts its own.
 */
export function useBrowserSuite(workerEnv?: Record<string, string>): BrowserSuite {
  const suite = {} as BrowserSuite;
  beforeAll(async () => {
    suite.ctx = await createTestContext();
    suite.site = await startScriptSite();
    suite.org = await suite.ctx.bootstrap();
    if (workerEnv) suite.worker = await startWorker({ ...suite.ctx.env, ...workerEnv });
  });
  // A failed test shows what the suite's worker said (its output is otherwise kept in memory only).
  afterEach((test) => {
    const w = suite.worker;
    if (!w || test.task.result?.state !== 'fail') return;
    const status = w.child.exitCode ?? w.child.signalCode ?? 'running';
    const tail = w.output().split('\n').slice(-80).join('\n');
    process.stderr.write(`\n--- worker (${status}), last lines of its output ---\n${tail}\n---\n`);
  });
  afterAll(async () => {
    await suite.worker?.stop();
    await suite.site?.close();
    await suite.ctx?.close();
  });
  return suite;
}

/** An API call as the suite's organization. */
export const inject = (suite: BrowserSuite, method: 'GET' | 'POST', url: string) =>
  suite.ctx.app.inject({ method, url, headers: auth(suite.org.apiKey) });

/** The list every page of the script site carries. */
export const SCRIPT_LIST = { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] };

/** An Agent on a page of the script site, exporting JSON; `extra` adds to (or replaces) its definition. */
export const scriptAgent = (suite: BrowserSuite, path: string, extra: Record<string, unknown> = {}) =>
  createAgent(suite.ctx.app, suite.org.apiKey, suite.org.spaceId, {
    startUrl: `${suite.site.url}${path}`,
    list: SCRIPT_LIST,
    export: { format: 'json' },
    ...extra,
  });

/** A process's name, '' once it has ended. */
export function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** A process's parent, -1 once it has ended. */
export function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/** The Chromium processes below a process. */
export const chromiumUnder = (pid: number): number[] => descendants(pid).filter((p) => comm(p).startsWith('chrom'));
