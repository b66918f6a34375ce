// The SDK's requests against a scripted server: retries (429 with Retry-After, 503, network errors),
// the start's stricter rule, time-outs and abort signals, and both error shapes of the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  BadRequestError,
  CloudExtractionClient,
  ConnectionError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
} from '../src/index.js';
import { json, problem, startMockServer, type MockServer } from './mock-server.js';

let api: MockServer;
beforeAll(async () => {
  api = await startMockServer();
});
afterAll(() => api.close());

const client = (opts: { maxRetries?: number; timeoutMs?: number } = {}) =>
  new CloudExtractionClient({ baseUrl: api.url, apiKey: 'cx_test', ...opts });
const agent = { id: 7, name: 'A' };

describe('retries', () => {
  it('waits the Retry-After of a 429 before repeating a GET', async () => {
    api.handle((_req, res, n) =>
      n === 1
        ? json(res, 429, problem(429, 'RATE_LIMITED', 'slow down'), { 'retry-after': '1' })
        : json(res, 200, agent),
    );
    const began = Date.now();
    expect(await client().agent(7).get()).toEqual(agent);
    expect(Date.now() - began).toBeGreaterThanOrEqual(950);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1].headers.authorization).toBe('ApiKey cx_test');
  });

  it('repeats a GET after a 503 and after a dropped connection', async () => {
    api.handle((_req, res, n) => {
      if (n === 1) return json(res, 503, problem(503, 'SERVICE_UNAVAILABLE', 'busy'));
      if (n === 2) return res.socket!.destroy();
      json(res, 200, agent);
    });
    expect(await client().agent(7).get()).toEqual(agent);
    expect(api.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with the last error, its retryAfter and requestId', async () => {
    api.handle((_req, res) =>
      json(res, 429, problem(429, 'RATE_LIMITED', 'slow down', 'req-429'), { 'retry-after': '0' }),
    );
    const err = await client({ maxRetries: 2 })
      .agent(7)
      .get()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED', retryAfter: 0, requestId: 'req-429' });
    expect(api.requests).toHaveLength(3);
  });

  it('repeats a start only after a 429 or a 503 with Retry-After', async () => {
    const run = { id: 1, status: 4 };
    api.handle((_req, res, n) =>
      n === 1
        ? json(res, 503, problem(503, 'SERVICE_UNAVAILABLE', 'queue down'), { 'retry-after': '0' })
        : json(res, 202, run),
    );
    expect(await client().agent(7).start({})).toEqual(run);
    expect(api.requests).toHaveLength(2);

    api.handle((_req, res) => json(res, 503, problem(503, 'SERVICE_UNAVAILABLE', 'no Retry-After')));
    await expect(client().agent(7).start({})).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(api.requests).toHaveLength(1);

    api.handle((_req, res) => json(res, 500, problem(500, 'INTERNAL_ERROR', 'oops')));
    await expect(client().agent(7).start({})).rejects.toMatchObject({ status: 500 });
    expect(api.requests).toHaveLength(1);
  });

  it('never repeats a start after a network error (a Run may have been created)', async () => {
    api.handle((_req, res) => res.socket!.destroy());
    await expect(client().agent(7).start({})).rejects.toBeInstanceOf(ConnectionError);
    expect(api.requests).toHaveLength(1);
  });
});

describe('time-outs and abort signals', () => {
  it('ends an attempt that gets no answer within timeoutMs', async () => {
    api.handle(() => undefined);
    const began = Date.now();
    await expect(client({ timeoutMs: 200, maxRetries: 0 }).agent(7).get()).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it('stops a call, its retries and waits when the signal aborts', async () => {
    api.handle((_req, res) => json(res, 429, problem(429, 'RATE_LIMITED', 'x'), { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 200);
    await expect(client().agent(7).get({ signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(api.requests).toHaveLength(1);
  });
});

describe('error shapes', () => {
  it('reads a 400 BadRequestError body and the request id header', async () => {
    api.handle((_req, res) =>
      json(
        res,
        400,
        {
          statusCode: 400,
          statusDescription: 'Bad Request',
          message: 'body: name is required',
          severity: 0,
          errorCode: 'VALIDATION_FAILED',
        },
        { 'x-request-id': 'req-400' },
      ),
    );
    const err = await client()
      .agents()
      .create({ name: '', spaceId: 1, definition: {} } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      errorCode: 'VALIDATION_FAILED',
      message: 'body: name is required',
      requestId: 'req-400',
    });
  });

  it('reads RFC 7807 problem details', async () => {
    api.handle((_req, res) => json(res, 404, problem(404, 'NOT_FOUND', 'Agent 7 was not found.', 'req-404')));
    const err = await client()
      .agent(7)
      .get()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({
      status: 404,
      errorCode: 'NOT_FOUND',
      message: 'Agent 7 was not found.',
      requestId: 'req-404',
    });
  });
});
