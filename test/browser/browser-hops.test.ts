// The browser's requests through a Run's proxy obey the same rule as without one (resolvePublic in the
// guard proxy): every target a page reaches for is checked before anything goes to the proxy, and a proxy
// on a refused address is reported as the proxy. Everything listens on loopback, so the policy lets the
// page's site and the proxy through by port, as public addresses would be.
import { load } from 'cheerio';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/address-class.js';
import { BrowserPageSource } from '../../src/engine/browser/browser-source.js';
import { closeSharedBrowserPool, sharedBrowserPool } from '../../src/engine/browser/index.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { startScriptSite, type ScriptSite } from '../helpers/script-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let site: ScriptSite;
let other: ScriptSite;
let proxy: ForwardProxy;
beforeAll(async () => {
  [site, other, proxy] = await Promise.all([startScriptSite(), startScriptSite(), startForwardProxy()]);
});
beforeEach(() => {
  site.hits.clear();
  other.hits.clear();
  proxy.proxied.length = 0;
});
afterAll(async () => {
  await closeSharedBrowserPool();
  await Promise.all([site?.close(), other?.close(), proxy?.close()]);
});

const list = { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] };

function source(upstreamProxyUrl: string, publicPorts: number[]) {
  return new BrowserPageSource({
    pool: sharedBrowserPool({ executablePath: CHROMIUM, maxPages: 2, maxRssMb: 4096 }),
    definition: { startUrl: site.url, list, render: 'browser', waitFor: 'li.item' },
    signal: new AbortController().signal,
    allowPrivateTargets: false,
    isRefusedAddress: (address, port) =>
      !(port !== undefined && publicPorts.includes(port)) && isPrivateAddress(address),
    upstreamProxyUrl,
    maxRetries: 0,
    log: () => undefined,
  });
}

it('through an upstream proxy: the page comes through it, and its private sub-requests are refused before the proxy', async () => {
  const browser = source(`http://127.0.0.1:${proxy.port}`, [site.port, proxy.port]);
  const targets = [`${other.url}/static`, 'http://169.254.169.254/latest/meta-data/'];
  try {
    const result = await browser.get(`${site.url}/reach?${targets.map((t) => `t=${encodeURIComponent(t)}`).join('&')}`);
    expect(result.ok).toBe(true);
    const $ = load(result.ok ? result.page.body.toString() : '');
    expect(
      $('li.item a.name')
        .map((_, a) => $(a).text())
        .get(),
    ).toEqual(['refused', 'refused']);
    expect(proxy.proxied.length).toBeGreaterThan(0);
    expect(proxy.proxied.every((p) => p === `CONNECT 127.0.0.1:${site.port}`)).toBe(true);
    expect(other.hits.size).toBe(0);
  } finally {
    await browser.close();
  }
});

it('a refused upstream proxy fails the page as target-refused, naming the proxy, and nothing is sent', async () => {
  const browser = source(`http://user:secret@127.0.0.1:${proxy.port}`, [site.port]);
  try {
    const result = await browser.get(`${site.url}/static`);
    expect(result).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
    if (!result.ok) {
      expect(result.failure.message).toMatch(`refused to use the proxy 127.0.0.1:${proxy.port}: it resolves`);
      expect(result.failure.message).not.toContain('secret');
    }
    expect(proxy.proxied).toEqual([]);
    expect(site.hits.size).toBe(0);
  } finally {
    await browser.close();
  }
});
