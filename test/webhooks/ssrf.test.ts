// With ENGINE_ALLOW_PRIVATE_TARGETS off, webhook targets obey the SSRF rule twice: a URL whose host is
// (or resolves to) a non-public address is refused when the subscription is saved, with a 400 naming the
// address's class; and every delivery checks the target again, since DNS may answer differently later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

let ctx: TestContext;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let apiKey: string;
beforeAll(async () => {
  ctx = await createTestContext({ env: { ENGINE_ALLOW_PRIVATE_TARGETS: 'false' } });
  receiver = await startReceiver();
  apiKey = (await ctx.bootstrap()).apiKey;
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

const create = (url: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: auth(apiKey),
    payload: { url, eventTypes: ['*'] },
  });

describe('at subscription', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local', '169.254.169.254'],
    ['http://0xa9fea9fe/', '169.254.169.254', 'link-local', '169.254.169.254'],
    ['http://2852039166/', '169.254.169.254', 'link-local', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254', 'link-local', '169.254.169.254'],
    ['http://[::ffff:169.254.169.254]/', '[::ffff:a9fe:a9fe]', 'link-local', '::ffff:a9fe:a9fe'],
    ['https://10.0.0.1/hook', '10.0.0.1', 'private', '10.0.0.1'],
    ['http://172.16.0.1/', '172.16.0.1', 'private', '172.16.0.1'],
    ['http://192.168.1.1/', '192.168.1.1', 'private', '192.168.1.1'],
    ['http://100.64.0.1/', '100.64.0.1', 'CGNAT (shared address space)', '100.64.0.1'],
    ['http://[fd00::1]/', '[fd00::1]', 'unique-local', 'fd00::1'],
    ['http://[fe80::1]/', '[fe80::1]', 'link-local', 'fe80::1'],
    ['http://127.0.0.1:9/', '127.0.0.1', 'loopback', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1', 'loopback', '127.0.0.1'],
    ['http://[::1]/', '[::1]', 'loopback', '::1'],
  ])('refuses %s with 400 naming the address class', async (url, host, kind, address) => {
    const body = expectBadRequest(await create(url), 'VALIDATION_FAILED');
    expect(body.message).toBe(
      `body.url (${host}) resolves to a non-public address (${address}, ${kind}); webhook targets must be public addresses unless the operator sets ENGINE_ALLOW_PRIVATE_TARGETS=true.`,
    );
  });

  it('resolves names: localhost is refused as loopback', async () => {
    const body = expectBadRequest(await create('http://localhost:9/hook'), 'VALIDATION_FAILED');
    expect(body.message).toMatch(
      /^body\.url \(localhost\) resolves to a non-public address \((127\.0\.0\.1|::1), loopback\);/,
    );
  });

  it('refuses a private target on update too, and accepts a public one', async () => {
    const res = await create('https://93.184.216.34/hook');
    expect(res.statusCode).toBe(201);
    const update = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/webhooks/${res.json().id}`,
      headers: auth(apiKey),
      payload: { url: 'http://169.254.169.254/', eventTypes: ['*'] },
    });
    expect(expectBadRequest(update, 'VALIDATION_FAILED').message).toMatch(
      /^body\.url \(169\.254\.169\.254\) resolves to a non-public address \(169\.254\.169\.254, link-local\)/,
    );
  });
});

describe('at delivery', () => {
  it('checks the target again and sends nothing to an address that is no longer public', async () => {
    // Saved while its name answered a public address; it answers loopback now (as after a DNS change).
    const saved = await create('https://93.184.216.34/hook');
    expect(saved.statusCode).toBe(201);
    const port = new URL(receiver.url('/')).port;
    for (const url of [receiver.url('/private'), `http://localhost:${port}/private`]) {
      await ctx.db.webhook.update({ where: { id: saved.json().id }, data: { url } });
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${saved.json().id}/test`,
        headers: auth(apiKey),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ outcome: 'failed', statusCode: null });
      expect(res.json().error).toMatch(/private address \((127\.0\.0\.1|::1)\)/);
    }
    expect(receiver.received).toHaveLength(0);
  });
});
