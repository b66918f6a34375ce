// One SSRF rule for every hop kind, all through resolvePublic: a page, a redirect, the Run's proxy, and
// the browser's guard proxy with and without an upstream proxy. Everything here listens on loopback, so
// the policy lets the "public" site's and proxy's ports through and refuses every other loopback port,
// as a public site and a private one would be told apart.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/address-class.js';
import { GuardProxy, type GuardProxyEndpoint } from '../../src/engine/browser/guard-proxy.js';
import { HttpClient } from '../../src/engine/http.js';
import type { TargetPolicy } from '../../src/engine/ssrf.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';

interface Site {
  url: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

/** A site answering `/` with a small page and `/to?url=` with a redirect there. */
async function startSite(): Promise<Site> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/to') res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<ul><li class="item">one</li></ul>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

let publicSite: Site;
let privateSite: Site;
let proxy: ForwardProxy;
beforeAll(async () => {
  [publicSite, privateSite, proxy] = await Promise.all([startSite(), startSite(), startForwardProxy()]);
});
beforeEach(() => {
  for (const list of [publicSite.hits, privateSite.hits, proxy.proxied]) list.length = 0;
});
afterAll(async () => {
  await Promise.all([publicSite?.close(), privateSite?.close(), proxy?.close()]);
});

/** Loopback counts as public on the given ports only. */
const publicPorts = (...ports: number[]): TargetPolicy => ({
  allowPrivateTargets: false,
  isRefusedAddress: (address, port) => !(port !== undefined && ports.includes(port)) && isPrivateAddress(address),
});

async function withClient<T>(policy: TargetPolicy, proxyUrl: string | undefined, fn: (c: HttpClient) => Promise<T>) {
  const client = new HttpClient({
    maxConcurrency: 2,
    maxRetries: 0,
    signal: new AbortController().signal,
    proxyUrl,
    ...policy,
  });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

describe('HTTP renderer', () => {
  it('a page: refused before anything is sent', async () => {
    const result = await withClient(publicPorts(publicSite.port), undefined, (c) => c.get(`${privateSite.url}/`));
    expect(result).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
    if (!result.ok) expect(result.failure.message).toMatch(`refused to fetch ${privateSite.url}/: target resolves`);
    expect(privateSite.hits).toEqual([]);
  });

  it('a redirect: the hop to a refused address is not followed', async () => {
    const hop = `${privateSite.url}/secret`;
    const result = await withClient(publicPorts(publicSite.port), undefined, (c) =>
      c.get(`${publicSite.url}/to?url=${encodeURIComponent(hop)}`),
    );
    expect(result).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
    if (!result.ok) expect(result.failure.message).toMatch(`refused to fetch ${hop}: target resolves`);
    expect(privateSite.hits).toEqual([]);
  });

  it('a proxy: refused as a proxy, naming host:port only', async () => {
    const result = await withClient(publicPorts(publicSite.port), `http://u:secret@127.0.0.1:${proxy.port}`, (c) =>
      c.get(`${publicSite.url}/`),
    );
    expect(result).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
    if (!result.ok) {
      expect(result.failure.message).toMatch(`refused to use the proxy 127.0.0.1:${proxy.port}: it resolves`);
      expect(result.failure.message).not.toContain('secret');
    }
    expect(proxy.proxied).toEqual([]);
  });

  it('through an accepted proxy: a public target is fetched through it, a refused one is never asked for', async () => {
    const policy = publicPorts(publicSite.port, proxy.port);
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    const [ok, refused] = await withClient(policy, proxyUrl, async (c) => [
      await c.get(`${publicSite.url}/`),
      await c.get(`${privateSite.url}/`),
    ]);
    expect(ok.ok).toBe(true);
    expect(proxy.proxied.some((p) => p.includes(`127.0.0.1:${publicSite.port}`))).toBe(true);
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
    expect(proxy.proxied.some((p) => p.includes(`:${privateSite.port}`))).toBe(false);
    expect(privateSite.hits).toEqual([]);
  });
});

/** Asks the guard proxy for a URL the way Chromium does: a CONNECT tunnel, then a plain GET through it. */
function throughGuard(endpoint: GuardProxyEndpoint, target: string): Promise<number> {
  const { hostname, port, pathname } = new URL(target);
  const guard = new URL(endpoint.server);
  const credential = Buffer.from(`${endpoint.username}:${endpoint.password}`).toString('base64');
  return new Promise((resolve, reject) => {
    const connect = http.request({
      host: guard.hostname,
      port: guard.port,
      method: 'CONNECT',
      path: `${hostname}:${port}`,
      headers: { 'proxy-authorization': `Basic ${credential}` },
    });
    connect.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return resolve(res.statusCode ?? 0);
      }
      const get = http.request({
        createConnection: () => socket,
        path: pathname,
        headers: { host: `${hostname}:${port}` },
      });
      get.on('response', (answer) => (answer.resume(), resolve(answer.statusCode ?? 0)));
      get.on('error', reject);
      get.end();
    });
    connect.on('error', reject);
    connect.end();
  });
}

async function withGuard<T>(
  options: ConstructorParameters<typeof GuardProxy>[0],
  fn: (g: GuardProxy, e: GuardProxyEndpoint) => Promise<T>,
) {
  const guard = new GuardProxy(options);
  try {
    return await fn(guard, await guard.start());
  } finally {
    await guard.close();
  }
}

describe("browser's guard proxy", () => {
  it('without an upstream proxy: passes a public target, refuses a private one', async () => {
    await withGuard(publicPorts(publicSite.port), async (guard, endpoint) => {
      expect(await throughGuard(endpoint, `${publicSite.url}/`)).toBe(200);
      expect(await throughGuard(endpoint, `${privateSite.url}/`)).toBe(403);
      expect(guard.refusalFor('127.0.0.1')?.role).toBe('target');
    });
    expect(privateSite.hits).toEqual([]);
  });

  it('with an upstream proxy: still checks every target, and tunnels only public ones through the proxy', async () => {
    const policy = publicPorts(publicSite.port, proxy.port);
    await withGuard({ ...policy, upstreamProxyUrl: `http://127.0.0.1:${proxy.port}` }, async (guard, endpoint) => {
      expect(await throughGuard(endpoint, `${publicSite.url}/`)).toBe(200);
      expect(await throughGuard(endpoint, `${privateSite.url}/`)).toBe(403);
      expect(guard.refusalFor('127.0.0.1')?.message).toMatch(/^refused to fetch host 127\.0\.0\.1: target resolves/);
    });
    expect(proxy.proxied).toEqual([`CONNECT 127.0.0.1:${publicSite.port}`]);
    expect(privateSite.hits).toEqual([]);
  });

  it('with a refused upstream proxy: reports the proxy, not the target, and contacts neither', async () => {
    await withGuard(
      { ...publicPorts(publicSite.port), upstreamProxyUrl: `http://u:secret@127.0.0.1:${proxy.port}` },
      async (guard, endpoint) => {
        expect(await throughGuard(endpoint, `${publicSite.url}/`)).toBe(403);
        const refusal = guard.refusalFor('127.0.0.1');
        expect(refusal?.role).toBe('proxy');
        expect(refusal?.message).toMatch(`refused to use the proxy 127.0.0.1:${proxy.port}: it resolves`);
      },
    );
    expect(proxy.proxied).toEqual([]);
    expect(publicSite.hits).toEqual([]);
  });
});

describe('one proxy rule for both renderers', () => {
  it('accepts http and https proxies and refuses any other scheme alike', () => {
    const signal = new AbortController().signal;
    for (const scheme of ['http', 'https']) {
      const proxyUrl = `${scheme}://proxy.example:3128`;
      expect(() => new GuardProxy({ allowPrivateTargets: true, upstreamProxyUrl: proxyUrl })).not.toThrow();
      expect(() => new HttpClient({ maxConcurrency: 1, allowPrivateTargets: true, signal, proxyUrl })).not.toThrow();
    }
    const socks = 'socks5://proxy.example:1080';
    const message = 'a proxy must be an http:// or https:// URL, not socks5:';
    expect(() => new GuardProxy({ allowPrivateTargets: true, upstreamProxyUrl: socks })).toThrow(message);
    expect(() => new HttpClient({ maxConcurrency: 1, allowPrivateTargets: true, signal, proxyUrl: socks })).toThrow(
      message,
    );
  });
});
