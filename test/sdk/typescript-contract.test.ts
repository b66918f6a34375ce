// The TypeScript SDK against the real service (app listening on a port, a real worker, files on the
// S3-compatible store): create an Agent, call() it, iterate Runs, stream the CSV through the store's
// pre-signed redirect, a 404 and a 429 as typed errors, and a delivered webhook verified.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CloudExtractionClient,
  NotFoundError,
  RateLimitError,
  RunStatus,
  verifyWebhook,
} from '../../sdk/typescript/src/index.js';
import { catalogDefinition, useRunEnvironment } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';
import { waitFor } from '../helpers/process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

// A small rate limit without a queue, so that a burst is answered 429 at once.
const h = useRunEnvironment({
  env: { ...testS3Env(testS3Options()), RATE_LIMIT_MAX: '40', RATE_LIMIT_QUEUE: '0' },
});
let baseUrl: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  await h.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.ctx.app.server.address() as AddressInfo).port}`;
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

describe('the TypeScript SDK against the service', () => {
  it('creates an Agent, calls it, iterates its Runs and streams its CSV from the store', async () => {
    const client = new CloudExtractionClient({ baseUrl, apiKey: h.org.apiKey });
    const hook = await client.webhooks().create({ url: receiver.url('/hooks'), eventTypes: ['run.succeeded'] });
    const agent = await client
      .agents()
      .create({ name: 'SDK catalog', spaceId: h.org.spaceId, definition: catalogDefinition(h.site.url) as never });
    const run = await client.agent(agent.id).call({}, { waitSecs: 120 });
    expect(run).toMatchObject({ configId: agent.id, status: RunStatus.Success, recordsExported: 30 });

    const seen: number[] = [];
    for await (const r of client.agent(agent.id).runs().iterate({ recordsPerPage: 1 })) seen.push(r.id);
    expect(seen).toEqual([run.id]);
    const agents: number[] = [];
    for await (const a of client.agents().iterate({ name: 'SDK catalog' })) agents.push(a.id);
    expect(agents).toEqual([agent.id]);

    const csv = (await client.run(agent.id, run.id).files()).find((f) => f.fileType === 'Csv')!;
    const text = await new Response(await client.run(agent.id, run.id).downloadFile(csv.id)).text();
    expect(text.trim().split('\n')).toHaveLength(31);

    const delivery = await waitFor(async () => receiver.at('/hooks')[0], 30_000);
    expect(verifyWebhook(hook.secret, delivery.body, delivery.headers)).toMatchObject({
      type: 'run.succeeded',
      data: { id: run.id },
    });
    expect(() => verifyWebhook(hook.secret, delivery.body + ' ', delivery.headers)).toThrow();
  });

  it('answers a missing Run with NotFoundError and a burst over the limit with RateLimitError', async () => {
    const client = new CloudExtractionClient({ baseUrl, apiKey: h.org.apiKey, maxRetries: 0 });
    const missing = await client
      .run(1, 999_999)
      .get()
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
    expect((missing as NotFoundError).requestId).toBeTruthy();

    const other = await h.ctx.bootstrap();
    const burst = new CloudExtractionClient({ baseUrl, apiKey: other.apiKey, maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => burst.spaces().list()));
    const limited = results.find((r) => r.status === 'rejected')!;
    expect(limited).toBeDefined();
    const err = (limited as PromiseRejectedResult).reason as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED' });
    expect(err.retryAfter).toBeGreaterThan(0);
  });
});
