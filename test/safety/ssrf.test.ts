// Proxies obey the SSRF rule of targets (at pool creation and at connect time), the
// classifier knows NAT64, 6to4 and Teredo, open/closed/silent private ports cannot be told apart,
// and masking never garbles the URL shown. The suite lifts the guard; these tests put it back.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/engine/http.js';
import { createMasker } from '../../src/engine/secrets.js';
import { classifyAddress } from '../../src/engine/address-class.js';
import { connectLookup, GUARDED, TargetRefusedError } from '../../src/engine/ssrf.js';
import { seal } from '../../src/lib/crypto.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import { createAgent, errorCodeOf, useRunEnvironment, waitForRun } from '../helpers/runs.js';

describe('classifier: translation and tunnelling ranges', () => {
  it.each([
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known prefix to 127.0.0.1
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::1', 'reserved'], // local-use NAT64 (RFC 8215)
    ['64:ff9b:1:abcd::a00:1', 'reserved'],
    ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:a9fe:a9fe::1', 'link-local'], // 6to4 of 169.254.169.254
    ['2002:c0a8:101:1::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 (stored inverted)
    ['2001:0:a00:1:8000:63bf:3fff:fdd2', 'private'], // Teredo, server 10.0.0.1
    ['2001::f5ff:fffe', 'private'], // Teredo, client 10.0.0.1
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (SIIT)
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:db9::1',
    '2001:4860:4860::8888',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });
});

/** A loopback service, a closed port and a port that accepts but never answers. */
async function privatePorts() {
  let contacted = 0;
  const open = http.createServer((_req, res) => {
    contacted++;
    res.end('loopback-only secret');
  });
  await new Promise<void>((r) => open.listen(0, '127.0.0.1', () => r()));
  const silentSockets: net.Socket[] = [];
  const silent = net.createServer((socket) => {
    contacted++;
    silentSockets.push(socket);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  const closedServer = net.createServer();
  await new Promise<void>((r) => closedServer.listen(0, '127.0.0.1', () => r()));
  const closed = (closedServer.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closedServer.close(() => r()));
  return {
    ports: {
      open: (open.address() as net.AddressInfo).port,
      closed,
      silent: (silent.address() as net.AddressInfo).port,
    },
    contacted: () => contacted,
    async close() {
      for (const s of silentSockets) s.destroy();
      await new Promise<void>((r) => open.close(() => r()));
      await new Promise<void>((r) => silent.close(() => r()));
    },
  };
}

describe('engine: a private proxy is refused with the guard on', () => {
  let ports: Awaited<ReturnType<typeof privatePorts>>;
  beforeAll(async () => {
    ports = await privatePorts();
  });
  afterAll(async () => ports?.close());

  it('answers the same refusal for open, closed and silent ports, and contacts none of them', async () => {
    const messages: string[] = [];
    for (const [kind, port] of Object.entries(ports.ports)) {
      const client = new HttpClient({
        maxConcurrency: 1,
        allowPrivateTargets: false,
        signal: new AbortController().signal,
        requestTimeoutMs: 2000,
        maxRetries: 0,
        proxyUrl: `http://user:pw-${kind}@127.0.0.1:${port}`,
        checkTarget: async () => {},
      });
      try {
        const result = await client.get('http://93.184.216.34/page');
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.failure).toMatchObject({ kind: 'target-refused', attempts: 1 });
          expect(result.failure.message).not.toContain(`pw-${kind}`);
          messages.push(result.failure.message.replace(String(port), 'PORT'));
        }
      } finally {
        await client.close();
      }
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toBe(
      'refused to use the proxy 127.0.0.1:PORT: it resolves to a private address (127.0.0.1); set ENGINE_ALLOW_PRIVATE_TARGETS=true to allow',
    );
    expect(ports.contacted()).toBe(0);
  });

  it('refuses at connect time a proxy name that resolves to a private address', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      connectLookup(GUARDED, 'proxy')('localhost', {}, (err) => resolve(err)),
    );
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect((error as TargetRefusedError).role).toBe('proxy');
  });
});

describe('masks never garble the URL shown', () => {
  it('keeps a host that merely contains a secret, masks it in the path and query and always masks URL passwords', () => {
    const mask = createMasker(['example', 'tok3n']);
    expect(mask('GET https://shop.example.com/example/items?q=example&k=tok3n failed')).toBe(
      'GET https://shop.example.com/********/items?q=********&k=******** failed',
    );
    expect(mask('proxy http://alice:s3cret@proxy.example.net:8080/ failed')).toBe(
      'proxy http://alice:********@proxy.example.net:8080/ failed',
    );
    expect(mask('plain example text')).toBe('plain ******** text');
  });

  it('masks a host that is entirely a secret', () => {
    expect(createMasker(['internal-host'])('GET http://internal-host/x failed')).toBe('GET http://********/x failed');
  });
});

describe('API: proxy pools under the guard', () => {
  let ctx: TestContext;
  let key: string;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { ENGINE_ALLOW_PRIVATE_TARGETS: 'false' } });
    key = (await ctx.bootstrap()).apiKey;
  });
  afterAll(async () => ctx?.close());

  it.each([
    ['http://127.0.0.1:8080', '127.0.0.1', 'loopback', '127.0.0.1'],
    ['http://user:pw@[::1]:3128', '[::1]', 'loopback', '::1'],
    ['http://localhost:3128', 'localhost', 'loopback', '127.0.0.1'],
    ['https://10.1.2.3', '10.1.2.3', 'private', '10.1.2.3'],
    ['http://169.254.169.254/', '169.254.169.254', 'link-local', '169.254.169.254'],
    ['http://[64:ff9b::7f00:1]:80', '[64:ff9b::7f00:1]', 'loopback', '64:ff9b::7f00:1'],
  ])('refuses %s at creation with 400 naming the proxy (not its credentials)', async (proxy, host, kind, address) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(key),
      payload: { name: `p ${proxy}`, proxies: ['http://93.184.216.34:3128', proxy] },
    });
    const body = expectBadRequest(res, 'VALIDATION_FAILED');
    // localhost may resolve to ::1 first.
    const shown = host === 'localhost' ? body.message.replace('(::1,', `(${address},`) : body.message;
    expect(shown).toBe(
      `proxies[1] (${host}) resolves to a non-public address (${address}, ${kind}); proxies must be public addresses unless the operator sets ENGINE_ALLOW_PRIVATE_TARGETS=true.`,
    );
    expect(body.message).not.toContain('pw');
  });

  it('accepts public proxies', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(key),
      payload: { name: 'public', proxies: ['http://u:p@93.184.216.34:3128'] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'public', proxyCount: 1 });
  });
});

describe('Run drill: a pool pointed inward with the guard on', () => {
  const env = useRunEnvironment({ env: { ENGINE_ALLOW_PRIVATE_TARGETS: 'false' } });
  let ports: Awaited<ReturnType<typeof privatePorts>>;
  beforeAll(async () => {
    ports = await privatePorts();
  });
  afterAll(async () => ports?.close());

  it('ends the Run Failure with the same message for open, closed and silent ports, and nothing private is reached', async () => {
    const { ctx, org } = env;
    const messages: string[] = [];
    for (const [kind, port] of Object.entries(ports.ports)) {
      // Written directly: a pool created while the operator had lifted the guard.
      const pool = await ctx.db.proxyPool.create({
        data: {
          organizationId: org.organizationId,
          name: `inward ${kind}`,
          proxies: seal(ctx.config.encryptionKey, JSON.stringify([`http://u:pw@127.0.0.1:${port}`])),
          proxyCount: 1,
        },
      });
      const agent = await createAgent(
        ctx.app,
        org.apiKey,
        org.spaceId,
        { startUrl: 'http://93.184.216.34/', list: { selector: 'p', fields: [{ name: 'p', selector: 'p' }] } },
        `Inward ${kind}`,
      );
      const start = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/agent/${agent.id}/start`,
        headers: auth(org.apiKey),
        payload: { proxyPoolId: pool.id },
      });
      expect(start.statusCode, start.body).toBe(202);
      const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id);
      expect(run.status).toBe(6);
      messages.push(String(run.errorMessage).replace(String(port), 'PORT'));
      expect(await errorCodeOf(ctx.app, org.apiKey, agent.id, run.id)).toBe('TARGET_REFUSED');
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toContain(
      'refused to use the proxy 127.0.0.1:PORT: it resolves to a private address (127.0.0.1)',
    );
    expect(ports.contacted()).toBe(0);
  });
});
