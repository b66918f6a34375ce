// Paging, waiting for a Run, downloads through a cross-origin redirect and webhook verification,
// against scripted servers.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudExtractionClient, verifyWebhook, WebhookVerificationError } from '../src/index.js';
import { json, startMockServer, type MockServer } from './mock-server.js';

let api: MockServer;
let store: MockServer;
beforeAll(async () => {
  api = await startMockServer();
  store = await startMockServer();
});
afterAll(async () => {
  await api.close();
  await store.close();
});
const client = () => new CloudExtractionClient({ baseUrl: api.url, apiKey: 'cx_test' });

describe('paging', () => {
  it('iterates every Agent over several pages, sending both paging parameters', async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: i + 1 }));
    api.handle((req, res) => {
      const q = new URL(req.url, api.url).searchParams;
      const page = Number(q.get('pageIndex'));
      const size = Number(q.get('recordsPerPage'));
      json(res, 200, { agents: all.slice((page - 1) * size, page * size), totalRecordCount: all.length });
    });
    const seen = [];
    for await (const agent of client().agents().iterate({ recordsPerPage: 2, name: 'x' })) seen.push(agent.id);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(api.requests.map((r) => r.url)).toEqual([
      '/api/v1/agent/all?recordsPerPage=2&name=x&pageIndex=1',
      '/api/v1/agent/all?recordsPerPage=2&name=x&pageIndex=2',
      '/api/v1/agent/all?recordsPerPage=2&name=x&pageIndex=3',
    ]);
  });

  it('answers one page with its total', async () => {
    api.handle((_req, res) => json(res, 200, { runs: [{ id: 9 }], totalRecordCount: 30 }));
    const page = await client().agent(3).runs().list({ pageIndex: 2, recordsPerPage: 1 });
    expect(page).toEqual({ items: [{ id: 9 }], totalRecordCount: 30, pageIndex: 2, recordsPerPage: 1 });
  });
});

describe('waiting for a Run', () => {
  it.each([6, 8, 9, 10, 11])('ends at terminal status %i, long-polling with waitForFinish', async (status) => {
    api.handle((req, res) =>
      req.url.includes('/start') ? json(res, 202, { id: 5, status: 4 }) : json(res, 200, { id: 5, status }),
    );
    const run = await client().agent(3).call({}, { waitSecs: 120 });
    expect(run.status).toBe(status);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/v1/agent/3/start',
      'GET /api/v1/agent/3/run/5/status?waitForFinish=60',
    ]);
  });

  it('keeps waiting through active statuses (Failed is not an end) with a growing pause', async () => {
    const statuses = [7, 1];
    api.handle((_req, res, n) => json(res, 200, { id: 5, status: statuses[n - 1] ?? 10 }));
    const began = Date.now();
    const run = await client().run(3, 5).waitForFinish();
    expect(run.status).toBe(10);
    expect(api.requests).toHaveLength(3);
    // Answers that came back early are followed by 1 s, then 2 s.
    expect(Date.now() - began).toBeGreaterThanOrEqual(2_900);
  });

  it('answers the Run as it is when waitSecs are up', async () => {
    api.handle((_req, res) => json(res, 200, { id: 5, status: 1 }));
    const run = await client().run(3, 5).waitForFinish({ waitSecs: 1 });
    expect(run.status).toBe(1);
    expect(api.requests[0].url).toBe('/api/v1/agent/3/run/5/status?waitForFinish=1');
  });
});

describe('downloads', () => {
  it('follows the 302 to another origin without the Authorization header and streams the bytes', async () => {
    const csv = 'title,price\nA,1\n'.repeat(1000);
    api.handle((_req, res) => res.writeHead(302, { location: `${store.url}/bucket/file.csv?sig=1` }).end());
    store.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(csv));
    const stream = await client().run(3, 5).downloadFile(11);
    expect(await new Response(stream).text()).toBe(csv);
    expect(api.requests[0].headers.authorization).toBe('ApiKey cx_test');
    expect(store.requests).toHaveLength(1);
    expect(store.requests[0].url).toBe('/bucket/file.csv?sig=1');
    expect(store.requests[0].headers.authorization).toBeUndefined();
  });

  it('streams the bytes the API serves itself', async () => {
    api.handle((_req, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end('a\n1\n'));
    expect(await new Response(await client().run(3, 5).downloadFile(11)).text()).toBe('a\n1\n');
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const body = JSON.stringify({ type: 'run.succeeded', timestamp: '2026-01-01T00:00:00Z', data: { id: 1 } });
  const signed = (at = new Date(), s = secret) => {
    const ts = new Date(Math.floor(at.getTime() / 1000) * 1000);
    return {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts.getTime() / 1000),
      'webhook-signature': new Webhook(s).sign('evt_1', ts, body),
    };
  };

  it('accepts what the Standard Webhooks library signs, also among several signatures', () => {
    expect(verifyWebhook(secret, body, signed())).toMatchObject({ type: 'run.succeeded' });
    const other = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const h = signed();
    const rotated = {
      ...h,
      'webhook-signature': `${signed(undefined, other)['webhook-signature']} ${h['webhook-signature']}`,
    };
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(rotated))).toMatchObject({ data: { id: 1 } });
  });

  it('refuses an altered body, another secret, an old timestamp and missing headers', () => {
    expect(() => verifyWebhook(secret, body.replace('1', '2'), signed())).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook('whsec_' + Buffer.alloc(32, 1).toString('base64'), body, signed())).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(secret, body, signed(new Date(Date.now() - 10 * 60_000)))).toThrow(/timestamp/);
    expect(() => verifyWebhook(secret, body, {})).toThrow(/missing/);
  });
});

describe('the Agent Builder', () => {
  it("follows a session's events until it settles", async () => {
    const pages = [
      { status: 'processing', events: [{ index: 1 }, { index: 2 }] },
      { status: 'processing', events: [] },
      { status: 'ready', events: [{ index: 3 }] },
      { status: 'ready', events: [] },
    ];
    api.handle((_req, res, n) => json(res, 200, pages[n - 1]));
    const seen: number[] = [];
    for await (const event of client().builder().session('s1').events()) seen.push(event.index);
    expect(seen).toEqual([1, 2, 3]);
    expect(api.requests.map((r) => r.url.split('?')[1])).toEqual([
      'lastEventIndex=0',
      'lastEventIndex=2',
      'lastEventIndex=2',
      'lastEventIndex=3',
    ]);
  });
});
