import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpClientOptions } from '../../src/engine/http.js';
import { backoffDelay, parseRetryAfter } from '../../src/engine/retry.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

async function withServer<T>(handler: http.RequestListener, use: (url: string) => Promise<T>): Promise<T> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function withClient<T>(options: Partial<HttpClientOptions>, use: (client: HttpClient) => Promise<T>): Promise<T> {
  const client = new HttpClient({
    maxConcurrency: 2,
    allowPrivateTargets: true,
    signal: new AbortController().signal,
    ...options,
  });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('retry timing', () => {
  it('backs off exponentially with jitter in [0.5, 1) of the nominal delay', () => {
    expect(backoffDelay(1, 100, () => 0)).toBe(50);
    expect(backoffDelay(1, 100, () => 0.999)).toBe(100);
    expect(backoffDelay(3, 100, () => 0)).toBe(200);
    expect(backoffDelay(3, 100, () => 0.5)).toBe(300);
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('Wed, 01 Jan 2026 00:00:10 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(10_000);
    expect(parseRetryAfter('garbage')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });

  it('honours Retry-After instead of the backoff', async () => {
    const retries: number[] = [];
    const started = Date.now();
    const result = await withClient(
      { retryBaseDelayMs: 10_000, maxRetries: 1, onRetry: (e) => retries.push(e.delayMs) },
      (client) => client.get(`${site.url}/status/503`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(retries).toEqual([0]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure).toMatchObject({ kind: 'http', status: 503, attempts: 2 });
  });
});

describe('options', () => {
  it('refuses an invalid proxy URL without quoting it', () => {
    const signal = new AbortController().signal;
    expect(
      () => new HttpClient({ maxConcurrency: 1, allowPrivateTargets: true, signal, proxyUrl: 'not a url:pw@' }),
    ).toThrow('proxyUrl is not a valid URL');
    expect(
      () => new HttpClient({ maxConcurrency: 1, allowPrivateTargets: true, signal, proxyUrl: 'ftp://proxy:21' }),
    ).toThrow('a proxy must be an http:// or https:// URL, not ftp:');
  });
});

describe('responses', () => {
  it('returns the final URL after redirects and counts body bytes', async () => {
    await withClient({}, async (client) => {
      const result = await client.get(`${site.url}/redirect`);
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(result.page.url).toBe(`${site.url}/redirect`);
        expect(result.page.finalUrl).toBe(`${site.url}/catalog?page=1`);
        expect(result.page.status).toBe(200);
        expect(result.page.contentType).toBe('text/html; charset=utf-8');
        expect(client.receivedBytes).toBe(result.page.body.length);
      }
    });
  });

  it('refuses bodies over the size limit', async () => {
    const result = await withClient({ maxBodyBytes: 100 }, (client) => client.get(`${site.url}/catalog?page=1`));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.failure).toMatchObject({
        kind: 'too-large',
        message: 'response body exceeds 100 bytes',
        attempts: 1,
      });
  });

  it('counts the bytes of error answers and of a body cut at the size limit', async () => {
    await withClient({ maxRetries: 0 }, async (client) => {
      const result = await client.get(`${site.url}/status/500`);
      expect(result).toMatchObject({ ok: false, failure: { kind: 'http', status: 500, attempts: 1 } });
      if (!result.ok) expect(client.receivedBytes).toBe(result.failure.body?.length);
    });
    await withClient({ maxBodyBytes: 100 }, async (client) => {
      await client.get(`${site.url}/catalog?page=1`);
      expect(client.receivedBytes).toBeGreaterThan(100);
    });
  });

  it('times out a request that gets no answer', async () => {
    await withClient({ requestTimeoutMs: 200, maxRetries: 0 }, async (client) => {
      const result = await client.get(`${site.url}/hang`);
      expect(result).toMatchObject({
        ok: false,
        failure: { kind: 'timeout', message: 'timed out after 200 ms', attempts: 1 },
      });
    });
  });

  it('reports a connection closed in the middle of the body as a reset, with the bytes that arrived counted', async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
        res.write('x'.repeat(300), () => res.socket?.destroy());
      },
      async (url) =>
        withClient({ maxRetries: 0 }, async (client) => {
          const result = await client.get(url);
          expect(result).toMatchObject({ ok: false, failure: { kind: 'reset', attempts: 1 } });
          expect(client.receivedBytes).toBe(300);
        }),
    );
  });

  it('times out a body that keeps dripping past the request timeout', async () => {
    const timers = new Set<NodeJS.Timeout>();
    await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => res.write('x'), 20);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
      },
      async (url) =>
        withClient({ requestTimeoutMs: 300, maxRetries: 0 }, async (client) => {
          const result = await client.get(url);
          expect(result).toMatchObject({
            ok: false,
            failure: { kind: 'timeout', message: 'timed out after 300 ms', attempts: 1 },
          });
          expect(client.receivedBytes).toBeGreaterThan(0);
        }),
    );
    for (const timer of timers) clearInterval(timer);
  });

  it('answers aborted once the signal fires while waiting for a slot', async () => {
    const controller = new AbortController();
    await withClient({ maxConcurrency: 1, signal: controller.signal }, async (client) => {
      const hanging = client.get(`${site.url}/hang`);
      const queued = client.get(`${site.url}/catalog?page=1&v=queued`);
      setTimeout(() => controller.abort(), 50);
      const [first, second] = await Promise.all([hanging, queued]);
      expect(first).toMatchObject({ ok: false, failure: { kind: 'aborted' } });
      expect(second).toMatchObject({ ok: false, failure: { kind: 'aborted' } });
      expect(site.hits.get('/catalog?page=1&v=queued')).toBeUndefined();
    });
  });
});
