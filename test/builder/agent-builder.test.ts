// The Agent Builder through HTTP with a real worker process: a session from start to a working
// Agent, refinement messages, the state machine's conflicts, stop releasing a running job, errors a
// user can act on, access, and the maintenance purge.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { builderJobId, redisConnection } from '../../src/queues/queues.js';
import { createMaintenanceProcessor } from '../../src/jobs/maintenance.processor.js';
import { createBuilderRepository } from '../../src/services/builder/builder.repository.js';
import { auth, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { builderClient } from '../helpers/builder.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { waitFor } from '../helpers/process.js';
import { useRunEnvironment } from '../helpers/runs.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { expectedRecords, startBuilderSite, type BuilderSite } from '../fixtures/builder/site.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let pages: BuilderSite;
let b: ReturnType<typeof builderClient>;
const fixture = (name: string) => BUILDER_FIXTURES.find((f) => f.name === name)!;

beforeAll(async () => {
  ({ ctx, org } = env);
  pages = await startBuilderSite();
  b = builderClient(ctx.app, () => org.apiKey);
});
afterAll(async () => pages?.close());

describe('a session from prompt to Agent', () => {
  it('proposes a draft with a preview, explains each step, and finishes into an Agent whose Run extracts the records', async () => {
    const grid = fixture('card-grid');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
    const { status, events } = await b.until(sessionId, ['ready', 'error']);
    expect(status).toBe('ready');
    expect(events.map((e) => e.type)).toEqual(['started', 'fetched', 'candidates', 'draft', 'preview', 'ready']);
    expect(events.map((e) => e.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[1].message).toMatch(/^Fetched .*HTTP 200/);
    expect(events[2].message).toMatch(/repeated structures/);
    expect(events[4].message).toMatch(/extracts 12 records/);

    const session = await b.session(sessionId);
    const expected = expectedRecords(grid.expected, pages.url);
    expect(session).toMatchObject({
      sessionId,
      status: 'ready',
      prompt: grid.prompt,
      url: `${pages.url}/grid`,
      spaceId: org.spaceId,
      mode: 'prompt',
      agentId: null,
      error: null,
    });
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'price', 'link']);
    expect(session.preview).toHaveLength(10);
    expect(session.preview[0]).toEqual(expected[0]);

    const finish = await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, { name: 'Grid products' });
    expect(finish.statusCode, finish.body).toBe(201);
    const agent = finish.json();
    expect(agent).toMatchObject({ name: 'Grid products', spaceId: org.spaceId, validationStatus: 3, version: 1 });
    expect(await b.session(sessionId)).toMatchObject({ status: 'completed', agentId: agent.id });

    const run = await b.call('POST', `/api/v1/agent/${agent.id}/start`, { isRunSynchronously: true, timeout: 60 });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toEqual(expected);

    // A finished session: finishing, messaging and stopping again are state-machine conflicts.
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {}), 409, 'SESSION_STATE_CONFLICT');
    expectProblem(
      await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, { message: 'also take the rating' }),
      409,
      'SESSION_STATE_CONFLICT',
    );
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${sessionId}/stop`), 409, 'SESSION_STATE_CONFLICT');
    const after = await b.until(sessionId, ['completed'], 6);
    expect(after.events.map((e) => e.type)).toEqual(['completed']);
  });

  it('refines the draft: also take the rating, also take the image, drop the image, rename a field', async () => {
    const grid = fixture('card-grid');
    const sessionId = await b.start({ prompt: `${grid.prompt}: ${pages.url}${grid.start}`, spaceId: org.spaceId });
    let last = (await b.until(sessionId, ['ready'])).events.at(-1)!.index;

    const say = async (message: string) => {
      const res = await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, { message });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().status).toBe('processing');
      const { events } = await b.until(sessionId, ['ready'], last);
      last = events.at(-1)!.index;
      expect(events[0]).toMatchObject({ type: 'message', message });
      return { events, session: await b.session(sessionId) };
    };

    let { session, events } = await say('also take the rating');
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual([
      'title',
      'price',
      'link',
      'rating',
    ]);
    expect(session.preview.map((r: { rating: number }) => r.rating)).toEqual([1, 2, 3, 4, 5, 1, 2, 3, 4, 5]);
    expect(events.find((e) => e.type === 'draft')!.message).toMatch(/Added from the list page: rating/);

    ({ session } = await say('also take the image'));
    expect(session.preview[0].image).toBe(`${pages.url}/img/p1.jpg`);
    ({ session } = await say('drop the image'));
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual([
      'title',
      'price',
      'link',
      'rating',
    ]);
    expect(session.preview[0]).not.toHaveProperty('image');
    ({ session } = await say('rename link to url'));
    expect(session.preview[0].url).toBe(`${pages.url}/grid/item/p1`);
  });

  it('follows each link for the description when asked', async () => {
    const books = fixture('detail-links');
    const sessionId = await b.start({
      prompt: 'Get the title and price of each book',
      url: `${pages.url}${books.start}`,
      spaceId: org.spaceId,
    });
    const first = await b.until(sessionId, ['ready']);
    expect((await b.session(sessionId)).draft.follow).toBeUndefined();
    const res = await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, {
      message: 'follow each link for the description',
    });
    expect(res.statusCode, res.body).toBe(200);
    await b.until(sessionId, ['ready'], first.events.at(-1)!.index);
    const session = await b.session(sessionId);
    expect(session.draft.follow).toMatchObject({ fields: [{ name: 'description' }] });
    const expected = expectedRecords(books.expected, pages.url);
    expect(session.preview).toEqual(expected);
  });

  it('follows detail pages in its preview only for the records the preview shows', async () => {
    const books = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, title: `Volume ${i + 1} of the saga` }));
    let detailHits = 0;
    const site = http.createServer((req, res) => {
      const id = /^\/b\/(\d+)$/.exec(req.url ?? '')?.[1];
      if (id) detailHits++;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        id
          ? `<html><body><main><h1>Volume ${id}</h1><div class="book-description"><p>The ${id}th winter of the saga, told slowly.</p></div></main></body></html>`
          : `<html><body><main><ol class="book-list">${books.map((x) => `<li class="book"><a class="book-link" href="/b/${x.id}">${x.title}</a><span class="cost">$${x.id}.50</span></li>`).join('')}</ol></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const sessionId = await b.start({
        prompt: 'Get the title and price of each book',
        url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/books`,
        spaceId: org.spaceId,
      });
      const first = await b.until(sessionId, ['ready']);
      const res = await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, {
        message: 'follow each link for the description',
      });
      expect(res.statusCode, res.body).toBe(200);
      detailHits = 0;
      await b.until(sessionId, ['ready'], first.events.at(-1)!.index);
      const session = await b.session(sessionId);
      expect(session.draft.follow).toMatchObject({ fields: [{ name: 'description' }] });
      expect(session.preview).toHaveLength(10);
      expect(session.preview[0]).toMatchObject({
        title: 'Volume 1 of the saga',
        description: expect.stringContaining('1th winter'),
      });
      // The preview's ten, and the few the refinement reads to find the field: never all 25.
      expect(detailHits).toBeGreaterThanOrEqual(10);
      expect(detailHits).toBeLessThan(books.length);
    } finally {
      site.closeAllConnections();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  it('wakes a waiting long poll with the next event', async () => {
    const grid = fixture('table-rows');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
    const { events } = await b.until(sessionId, ['ready']);
    const last = events.at(-1)!.index;
    // Nothing new yet: this request waits until the message below writes an event.
    const poll = b.call('GET', `/api/v1/agent-builder/${sessionId}/events?lastEventIndex=${last}`);
    const message = await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, { message: 'drop the country' });
    expect(message.statusCode).toBe(200);
    const woken = (await poll).json();
    expect(woken.events[0]).toMatchObject({ index: last + 1, type: 'message', message: 'drop the country' });
  });
});

describe('closing the API', () => {
  it('answers a waiting long poll at once instead of holding the close for 30 s', async () => {
    const grid = fixture('gallery');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
    const { events } = await b.until(sessionId, ['ready']);
    const second = await buildApp(ctx.config, { logger: false });
    await second.ready();
    const poll = second.inject({
      method: 'GET',
      url: `/api/v1/agent-builder/${sessionId}/events?lastEventIndex=${events.at(-1)!.index}`,
      headers: auth(org.apiKey),
    });
    // The request is waiting once its waiter is registered; closing must release it.
    await waitFor(
      async () => (await ctx.app.redis.pubsub('NUMSUB', `${ctx.config.redisPrefix}:builder:sessions`))[1] === 3,
      10_000,
      20,
    );
    await second.close();
    const res = await poll;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', events: [] });
  });
});

describe('stop', () => {
  it('cancels a running step (its request is aborted), twice is 204, and finish or message afterwards is 409', async () => {
    const sessionId = await b.start({
      prompt: 'Get every product on this page',
      url: `${env.site.url}/hang`,
      spaceId: org.spaceId,
    });
    await waitFor(async () => (await b.session(sessionId)) && env.site.inFlight > 0, 20_000, 50);
    const stop = await b.call('POST', `/api/v1/agent-builder/${sessionId}/stop`);
    expect(stop.statusCode).toBe(204);
    expect(stop.body).toBe('');
    expect(await b.session(sessionId)).toMatchObject({ status: 'cancelled', draft: null });
    // The job ends at once (not after the 30 s request timeout) and the page request is gone.
    const queue = new Queue('builder', {
      connection: redisConnection(ctx.config.redisUrl),
      prefix: ctx.config.redisPrefix,
    });
    try {
      const state = await waitFor(
        async () => {
          const s = await (await queue.getJob(builderJobId(sessionId, 1)))?.getState();
          return s === 'completed' ? s : null;
        },
        10_000,
        50,
      );
      expect(state).toBe('completed');
    } finally {
      await queue.close();
    }
    await waitFor(async () => env.site.inFlight === 0, 10_000, 50);

    expect((await b.call('POST', `/api/v1/agent-builder/${sessionId}/stop`)).statusCode).toBe(204);
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {}), 409, 'SESSION_STATE_CONFLICT');
    expectProblem(
      await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, { message: 'also take the price' }),
      409,
      'SESSION_STATE_CONFLICT',
    );
    const { status, events } = await b.until(sessionId, ['cancelled']);
    expect(status).toBe('cancelled');
    expect(events.map((e) => e.type)).toEqual(['started', 'cancelled']);
  });
});

describe('errors', () => {
  it('answers 400 for a short prompt, a missing or non-http URL, and unknown properties', async () => {
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', { prompt: 'too short', url: `${pages.url}/grid` }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', { prompt: '          x         ', url: `${pages.url}/grid` }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', { prompt: 'x'.repeat(5001), url: `${pages.url}/grid` }),
      'VALIDATION_FAILED',
    );
    const noUrl = expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', { prompt: 'Get the title of every product' }),
      'VALIDATION_FAILED',
    );
    expect(noUrl.message).toMatch(/send `url`/);
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', {
        prompt: 'Get the title of every product',
        url: 'ftp://example.com/x',
      }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', {
        prompt: 'Get the title of every product',
        url: `${pages.url}/grid`,
        extra: 1,
      }),
      'VALIDATION_FAILED',
    );
    expectBadRequest(
      await b.call('POST', '/api/v1/agent-builder/start', {
        prompt: 'Get the title of every product',
        url: `${pages.url}/grid`,
        mode: 'chat',
      }),
      'VALIDATION_FAILED',
    );
  });

  it('answers 404 for an unknown session on every operation', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expectProblem(await b.call('GET', `/api/v1/agent-builder/${id}`), 404, 'NOT_FOUND');
    expectProblem(await b.call('GET', `/api/v1/agent-builder/${id}/events`), 404, 'NOT_FOUND');
    expectProblem(
      await b.call('POST', `/api/v1/agent-builder/${id}/message`, { message: 'also take the rating' }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${id}/finish`, {}), 404, 'NOT_FOUND');
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${id}/stop`), 404, 'NOT_FOUND');
  });

  it("answers 404 for another organization's session and 403 for a Space the caller cannot reach", async () => {
    const other = await ctx.bootstrap({ org: 'Other' });
    const grid = fixture('card-grid');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/events'],
      ['POST', '/stop'],
      ['POST', '/finish'],
    ] as const) {
      expectProblem(
        await b.call(
          method,
          `/api/v1/agent-builder/${sessionId}${path}`,
          method === 'POST' ? {} : undefined,
          other.apiKey,
        ),
        404,
        'NOT_FOUND',
      );
    }
    expectProblem(
      await b.call('POST', '/api/v1/agent-builder/start', {
        prompt: grid.prompt,
        url: `${pages.url}/grid`,
        spaceId: other.spaceId,
      }),
      404,
      'NOT_FOUND',
    );
    // A member who is not in a private Space.
    const space = (await b.call('POST', '/api/v1/spaces', { name: 'Private builder space' })).json();
    const user = (
      await b.call('POST', '/api/v1/users', { email: 'builder-member@example.com', name: 'Member' })
    ).json();
    const key = (await b.call('POST', `/api/v1/users/${user.id}/api-keys`, {})).json().key as string;
    const privateSession = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: space.id });
    expectProblem(await b.call('GET', `/api/v1/agent-builder/${privateSession}`, undefined, key), 403, 'FORBIDDEN');
    expectProblem(
      await b.call(
        'POST',
        '/api/v1/agent-builder/start',
        { prompt: grid.prompt, url: `${pages.url}/grid`, spaceId: space.id },
        key,
      ),
      403,
      'FORBIDDEN',
    );
    await b.call('POST', `/api/v1/agent-builder/${sessionId}/stop`);
    await b.call('POST', `/api/v1/agent-builder/${privateSession}/stop`);
  });

  it('ends in error with an actionable message when the URL is unreachable; finish is then 409', async () => {
    const sessionId = await b.start({
      prompt: 'Get the title of every product',
      url: 'http://127.0.0.1:1/catalog',
      spaceId: org.spaceId,
    });
    const { status, events } = await b.until(sessionId, ['error']);
    expect(status).toBe('error');
    const session = await b.session(sessionId);
    expect(session.error).toMatch(/connection refused by 127\.0\.0\.1:1/);
    expect(session.error).toMatch(/Check the address/);
    expect(events.at(-1)).toMatchObject({ type: 'error', message: session.error });
    expectProblem(await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {}), 409, 'SESSION_STATE_CONFLICT');
    expectProblem(
      await b.call('POST', `/api/v1/agent-builder/${sessionId}/message`, { message: 'try again' }),
      409,
      'SESSION_STATE_CONFLICT',
    );
  });

  it('ends in error when the page refuses the request or holds no repeated records', async () => {
    const blocked = await b.start({
      prompt: 'Get the title of every product',
      url: `${env.site.url}/blocked`,
      spaceId: org.spaceId,
    });
    await b.until(blocked, ['error']);
    expect((await b.session(blocked)).error).toMatch(
      /answered 403 Forbidden: the site blocked the request; try a proxy pool/,
    );
    const single = await b.start({
      prompt: 'Get the title of every product',
      url: `${env.site.url}/product/1`,
      spaceId: org.spaceId,
    });
    await b.until(single, ['error']);
    expect((await b.session(single)).error).toMatch(/^No repeated records were found on the page/);
  });

  it('answers 400 when finishing a session that has no Space without naming one', async () => {
    const grid = fixture('gallery');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}` });
    await b.until(sessionId, ['ready']);
    expectBadRequest(await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {}), 'VALIDATION_FAILED');
    const res = await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, { spaceId: org.spaceId });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().name).toBe('Download the image and caption of every photo in the gallery');
  });
});

describe('proxy pool', () => {
  it("fetches through the session's proxy pool, keeps it on the Agent, and never shows the proxy URL", async () => {
    const proxy = await startForwardProxy();
    const proxied = proxy.proxied;
    try {
      const proxyUrl = `http://user:builder-proxy-secret@127.0.0.1:${proxy.port}`;
      const pool = await b.call('POST', '/api/v1/proxy-pools', { name: 'Builder pool', proxies: [proxyUrl] });
      expect(pool.statusCode, pool.body).toBe(201);
      const other = await ctx.bootstrap({ org: 'Pool owner elsewhere' });
      expectProblem(
        await b.call(
          'POST',
          '/api/v1/agent-builder/start',
          { prompt: 'Get every product please', url: `${pages.url}/grid`, proxyPoolId: pool.json().id },
          other.apiKey,
        ),
        404,
        'NOT_FOUND',
      );

      const grid = fixture('card-grid');
      const sessionId = await b.start({
        prompt: grid.prompt,
        url: `${pages.url}${grid.start}`,
        spaceId: org.spaceId,
        proxyPoolId: pool.json().id,
      });
      const { status, events } = await b.until(sessionId, ['ready', 'error']);
      expect(status).toBe('ready');
      expect(proxied).toContain(`CONNECT ${new URL(pages.url).host}`);
      const finish = await b.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {});
      expect(finish.statusCode, finish.body).toBe(201);
      expect(finish.json().proxyPoolId).toBe(pool.json().id);
      expect(JSON.stringify({ events, session: await b.session(sessionId) })).not.toContain('builder-proxy-secret');
    } finally {
      await proxy.close();
    }
  });
});

describe('maintenance', () => {
  it('deletes sessions untouched for longer than the retention period', async () => {
    const grid = fixture('card-grid');
    const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
    await b.until(sessionId, ['ready']);
    const at = (days: number) => ({ now: () => new Date(Date.now() + days * 86_400_000) });
    const purge = (days: number) =>
      createMaintenanceProcessor({
        identity: { purgeRefreshTokensExpiredBefore: (async () => ({ count: 0 })) as never },
        clock: at(days),
        reconcile: (async () => ({})) as never,
        reconcileIntervalMs: 30_000,
        sweepOrphanFiles: (async () => ({})) as never,
        settlement: { settlePending: async () => ({ settled: 0, failed: 0 }) },
        creditExpiry: { expireGrants: async () => ({}) } as never,
        webhooks: { purge: async () => 0 },
        builder: createBuilderRepository(ctx.db),
        builderRetentionDays: 7,
      })({ data: { task: 'purge-builder-sessions' } } as never);
    await purge(6);
    expect((await b.call('GET', `/api/v1/agent-builder/${sessionId}`)).statusCode).toBe(200);
    const res = (await purge(8)) as { purged: number };
    expect(res.purged).toBeGreaterThanOrEqual(1);
    expectProblem(await b.call('GET', `/api/v1/agent-builder/${sessionId}`), 404, 'NOT_FOUND');
  });
});
