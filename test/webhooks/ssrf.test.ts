// With ENGINE_ALLOW_PRIVATE_TARGETS off, webhook targets pass the engine's SSRF guard: a private
// address (literal or resolved) is refused before anything is sent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

let ctx: TestContext;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  ctx = await createTestContext({ env: { ENGINE_ALLOW_PRIVATE_TARGETS: 'false' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

it('refuses a private target and sends nothing', async () => {
  const org = await ctx.bootstrap();
  const port = new URL(receiver.url('/')).port;
  for (const url of [receiver.url('/private'), `http://localhost:${port}/private`]) {
    const w = (
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth(org.apiKey),
        payload: { url, eventTypes: ['*'] },
      })
    ).json();
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${w.id}/test`,
      headers: auth(org.apiKey),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ outcome: 'failed', statusCode: null });
    expect(res.json().error).toMatch(/private address \(127\.0\.0\.1\)/);
  }
  expect(receiver.received).toHaveLength(0);
});
