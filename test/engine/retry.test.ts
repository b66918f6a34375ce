// The retry rule of the HTTP renderer (the browser's, the same helper, is tested in test/browser/
// browser-retry.test.ts): 429 is retried, Retry-After replaces the backoff (capped at 30 s), and a stop
// ends a wait at once.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { HttpClient } from '../../src/engine/http.js';
import type { RetryEvent } from '../../src/engine/retry.js';
import { startScriptSite, type ScriptSite } from '../helpers/script-site.js';

let site: ScriptSite;
beforeAll(async () => {
  site = await startScriptSite();
});
beforeEach(() => site.hits.clear());
afterAll(async () => site?.close());

function client(signal: AbortSignal, retries: RetryEvent[]) {
  return new HttpClient({
    maxConcurrency: 1,
    allowPrivateTargets: true,
    signal,
    maxRetries: 3,
    retryBaseDelayMs: 5,
    onRetry: (e) => retries.push(e),
  });
}

it('retries a 429 after the Retry-After the server asked for, not the backoff', async () => {
  const retries: RetryEvent[] = [];
  const http = client(new AbortController().signal, retries);
  const started = Date.now();
  const result = await http.get(`${site.url}/throttled?busy=1&after=1`);
  await http.close();
  expect(result.ok).toBe(true);
  expect(retries.map((r) => [r.delayMs, r.message])).toEqual([[1000, expect.stringMatching(/^answered 429/)]]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  expect(site.hits.get('/throttled')).toBe(2);
});

it('caps a long Retry-After at 30 s, and a stop ends the wait at once', async () => {
  const retries: RetryEvent[] = [];
  const controller = new AbortController();
  const http = client(controller.signal, retries);
  const pending = http.get(`${site.url}/throttled?busy=5&after=3600`);
  while (retries.length === 0) await new Promise((r) => setTimeout(r, 10));
  const stoppedAt = Date.now();
  controller.abort();
  const result = await pending;
  await http.close();
  expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  expect(retries[0].delayMs).toBe(30_000);
  expect(result).toMatchObject({ ok: false, failure: { kind: 'aborted', attempts: 1 } });
  expect(site.hits.get('/throttled')).toBe(1);
});
