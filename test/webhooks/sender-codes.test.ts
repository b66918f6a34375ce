// Each webhook delivery failure code, set by the sender where the attempt fails, and the metric
// outcome decided from it: a receiver that answers an error, answers 410, never answers, cannot be
// reached, or sits on a private address the SSRF guard refuses.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptOutcomeOf } from '../../src/services/webhooks/attempts.js';
import { createWebhookSender, WebhookFailureCode } from '../../src/services/webhooks/sender.js';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    const status = Number(req.url?.slice(1)) || 200;
    res.writeHead(status).end('x');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('webhook delivery failure codes', () => {
  const open = createWebhookSender({ allowPrivateTargets: true, timeoutMs: 300 });
  afterAll(() => open.close());

  it('a 2xx answer has no code and counts as success', async () => {
    const r = await open.send(`${base}/204`, {}, '{}');
    expect(r.errorCode).toBeNull();
    expect(attemptOutcomeOf(r)).toBe('success');
  });

  it('RECEIVER_HTTP_ERROR: any other answer', async () => {
    const r = await open.send(`${base}/500`, {}, '{}');
    expect(r.errorCode).toBe(WebhookFailureCode.ReceiverHttpError);
    expect(attemptOutcomeOf(r)).toBe('http_error');
  });

  it('RECEIVER_GONE: 410', async () => {
    const r = await open.send(`${base}/410`, {}, '{}');
    expect(r.errorCode).toBe(WebhookFailureCode.ReceiverGone);
    expect(attemptOutcomeOf(r)).toBe('http_error');
  });

  it('RECEIVER_TIMEOUT: no answer before the deadline', async () => {
    const r = await open.send(`${base}/hang`, {}, '{}');
    expect(r.errorCode).toBe(WebhookFailureCode.ReceiverTimeout);
    expect(attemptOutcomeOf(r)).toBe('timeout');
  });

  it('RECEIVER_UNREACHABLE: no connection', async () => {
    const r = await open.send('http://127.0.0.1:1/', {}, '{}');
    expect(r.errorCode).toBe(WebhookFailureCode.ReceiverUnreachable);
    expect(attemptOutcomeOf(r)).toBe('network_error');
  });

  it('TARGET_REFUSED: a private address, when the operator did not allow them', async () => {
    const guarded = createWebhookSender({ allowPrivateTargets: false, timeoutMs: 300 });
    try {
      const r = await guarded.send(`${base}/200`, {}, '{}');
      expect(r.errorCode).toBe(WebhookFailureCode.TargetRefused);
      expect(attemptOutcomeOf(r)).toBe('network_error');
    } finally {
      await guarded.close();
    }
  });
});
