// The Agent Builder on a page whose records are built by script: the served HTML
// has no repeated structure, so the worker renders the page in its browser, builds the draft from the
// rendered DOM and sets `render: "browser"`; the finished Agent then runs in the browser too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPageReader } from '../../src/services/builder/page-reader.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import { builderClient } from '../helpers/builder.js';
import { waitForRun } from '../helpers/runs.js';
import { SCRIPT_ITEMS } from '../helpers/script-site.js';

const suite = useBrowserSuite({});

describe('the Agent Builder on a page built by script', () => {
  it('renders it, drafts from the rendered DOM with render "browser", and the finished Agent extracts every item', async () => {
    const builder = builderClient(suite.ctx.app, () => suite.org.apiKey);
    const sessionId = await builder.start({
      prompt: 'Get the name and price of each item',
      url: `${suite.site.url}/xhr`,
      spaceId: suite.org.spaceId,
    });
    const { status, events } = await builder.until(sessionId, ['ready', 'error'], 0, 90_000);
    expect(status, JSON.stringify(events.map((e) => `${e.type}: ${e.message}`))).toBe('ready');
    const rendered = events.find((e) => e.type === 'rendered');
    expect(rendered?.message).toMatch(/no repeated records but carries scripts: rendered .*\/xhr in the browser/);

    const session = await builder.session(sessionId);
    expect(session.draft).toMatchObject({ render: 'browser', list: { selector: expect.any(String) } });
    expect(session.preview.length, JSON.stringify(events.map((e) => `${e.type}: ${e.message}`))).toBeGreaterThan(0);
    expect(JSON.stringify(session.preview)).toContain('Item 1');

    const finish = await builder.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {
      name: 'Rendered by the builder',
      spaceId: suite.org.spaceId,
    });
    expect(finish.statusCode, finish.body).toBe(201);
    const agentId = finish.json().id as number;
    const start = await builder.call('POST', `/api/v1/agent/${agentId}/start`, {});
    expect(start.statusCode, start.body).toBe(202);
    const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agentId, start.json().id, undefined, 90_000);
    expect(run).toMatchObject({ status: 10, recordsExtracted: SCRIPT_ITEMS });
  });
});

describe("the Agent Builder's render of a page that never goes quiet", () => {
  it('reads the page a few seconds after its document, not after the page timeout', async () => {
    const html = `<html><body><ul id="items"></ul><script>
      for (let i = 1; i <= 3; i++) document.getElementById('items').insertAdjacentHTML('beforeend', '<li>Item ' + i + '</li>');
      setInterval(() => fetch('/poll').catch(() => {}), 200);
    </script></body></html>`;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(req.url === '/' ? html : 'x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reader = createPageReader({
      allowPrivateTargets: true,
      requestTimeoutMs: 10_000,
      signal: new AbortController().signal,
      browser: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', maxPages: 2, maxRssMb: 2_000 },
    });
    try {
      const t0 = Date.now();
      const read = await reader.render(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(read.ok && read.page.$('li').length).toBe(3);
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      await reader.close();
      server.close();
    }
  });
});
