// The browser renderer retries by the same rule as HTTP (one helper, retry.ts; HTTP's side is in
// test/engine/retry.test.ts): 429 is retried, Retry-After replaces the backoff (capped at 30 s), and a
// stop ends a wait at once.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { BrowserPageSource } from '../../src/engine/browser/browser-source.js';
import { closeSharedBrowserPool, sharedBrowserPool } from '../../src/engine/browser/index.js';
import { startScriptSite, type ScriptSite } from '../helpers/script-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let site: ScriptSite;
beforeAll(async () => {
  site = await startScriptSite();
});
beforeEach(() => site.hits.clear());
afterAll(async () => {
  await closeSharedBrowserPool();
  await site?.close();
});

function source(signal: AbortSignal, logs: string[]) {
  return new BrowserPageSource({
    pool: sharedBrowserPool({ executablePath: CHROMIUM, maxPages: 2, maxRssMb: 4096 }),
    definition: { startUrl: site.url, render: 'browser', list: { selector: 'li.item', fields: [{ name: 'n' }] } },
    allowPrivateTargets: true,
    signal,
    maxRetries: 3,
    retryBaseDelayMs: 5,
    log: (level, message) => logs.push(`${level} ${message}`),
  });
}

const delays = (logs: string[]) => logs.flatMap((l) => /retrying in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);

it('retries a 429 after the Retry-After the server asked for, not the backoff', async () => {
  const logs: string[] = [];
  const browser = source(new AbortController().signal, logs);
  const started = Date.now();
  const result = await browser.get(`${site.url}/throttled?busy=1&after=1`);
  await browser.close();
  expect(result.ok).toBe(true);
  expect(delays(logs)).toEqual([1000]);
  expect(logs[0]).toMatch(/^Warning render .*\/throttled\?busy=1&after=1 answered 429/);
  expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  expect(site.hits.get('/throttled')).toBe(2);
});

it('caps a long Retry-After at 30 s, and a stop ends the wait at once', async () => {
  const logs: string[] = [];
  const controller = new AbortController();
  const browser = source(controller.signal, logs);
  const pending = browser.get(`${site.url}/throttled?busy=5&after=3600`);
  while (logs.length === 0) await new Promise((r) => setTimeout(r, 10));
  const stoppedAt = Date.now();
  controller.abort();
  const result = await pending;
  await browser.close();
  expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  expect(delays(logs)).toEqual([30_000]);
  expect(result).toMatchObject({ ok: false, failure: { kind: 'aborted', attempts: 1 } });
  expect(site.hits.get('/throttled')).toBe(1);
});
