// How the API serves the console: at /console, deep links answered with the page, hashed
// assets cached for good, a strict Content Security Policy on all of it, and nothing when not built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/plugins/external/console.js';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-console-files-'));
const INDEX = '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1a2b.js"></script>';
let ctx: TestContext;
let unbuilt: TestContext;
beforeAll(async () => {
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log(1);');
  ctx = await createTestContext({ env: { CONSOLE_DIR: dir } });
  unbuilt = await createTestContext({ env: { CONSOLE_DIR: path.join(dir, 'missing') } });
});
afterAll(async () => {
  await ctx?.close();
  await unbuilt?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, c = ctx) => c.app.inject({ method: 'GET', url });

function expectSecured(res: { headers: Record<string, unknown> }) {
  expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

describe('the console at /console', () => {
  it('has a policy without inline scripts, third-party origins or framing', () => {
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it('serves the page at /console and /console/, revalidated on every load', async () => {
    for (const url of ['/console', '/console/']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toBe(INDEX);
      expectSecured(res);
    }
  });

  it('answers deep links with the page, so the app routes them in the browser', async () => {
    for (const url of ['/console/runs/12/345', '/console/agents?page=2', '/console/api-keys']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
      expectSecured(res);
    }
  });

  it('serves hashed assets cached for a year, and a missing one is a 404, not the page', async () => {
    const js = await get('/console/assets/app-1a2b.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectSecured(js);
    expect(js.body).toBe('console.log(1);');
    const missing = await get('/console/assets/app-0000.js');
    expectProblem(missing, 404, 'NOT_FOUND');
  });

  it('needs no credentials (the API behind it does)', async () => {
    expectProblem(await get('/api/v1/agent/all'), 401, 'UNAUTHENTICATED');
    expect((await get('/console/agents')).statusCode).toBe(200);
  });

  it('is not served when the console was not built', async () => {
    expectProblem(await get('/console', unbuilt), 404, 'NOT_FOUND');
    expectProblem(await get('/console/agents', unbuilt), 404, 'NOT_FOUND');
  });
});
