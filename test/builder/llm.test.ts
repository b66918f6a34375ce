// The optional LLM step against a small OpenAI-compatible server run here on 127.0.0.1: a good
// answer renames and chooses fields; a malformed, slow, failing or unworkable answer leaves the
// heuristic draft in place, and the events say why. The LLM sees candidates, never the page.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { builderClient } from '../helpers/builder.js';
import { startWorker } from '../helpers/runs.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { expectedRecords, startBuilderSite, type BuilderSite } from '../fixtures/builder/site.js';

const API_KEY = 'sk-test-llm-key-0123456789';
type Mode = 'choose' | 'garbage' | 'slow' | 'unworkable' | 'error';
let mode: Mode = 'choose';
const requests: Array<{ authorization?: string; body: any }> = [];

function llmAnswer(body: any): string {
  const user = JSON.parse(body.messages.find((m: { role: string }) => m.role === 'user').content);
  const candidate = user.candidates[0];
  const byLook = (look: string) =>
    candidate.fields.find((f: { looksLike?: string; kind: string }) => f.looksLike === look);
  const title = candidate.fields.find(
    (f: { kind: string; hints: string[] }) => f.kind === 'text' && f.hints.some((h) => /title/.test(h)),
  );
  return JSON.stringify({
    candidate: 0,
    fields: [
      { id: title.id, name: 'product_name' },
      { id: byLook('price').id, name: 'cost' },
    ],
  });
}

let llm: http.Server;
let ctx: TestContext;
let worker: Awaited<ReturnType<typeof startWorker>>;
let pages: BuilderSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let b: ReturnType<typeof builderClient>;

beforeAll(async () => {
  llm = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ authorization: req.headers.authorization, body });
      if (mode === 'slow') return; // never answers; the builder gives up after BUILDER_LLM_TIMEOUT_MS
      if (mode === 'error') {
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"overloaded"}}');
      }
      const content =
        mode === 'garbage'
          ? 'Sure! Here is what I think about this page...'
          : mode === 'unworkable'
            ? JSON.stringify({
                definition: {
                  startUrl: 'http://x.invalid/',
                  list: { selector: 'div.does-not-exist', fields: [{ name: 'title', selector: 'h3' }] },
                },
              })
            : `\`\`\`json\n${llmAnswer(body)}\n\`\`\``;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  const llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
  ctx = await createTestContext({
    env: {
      BUILDER_LLM_URL: llmUrl,
      BUILDER_LLM_MODEL: 'tiny-test-model',
      BUILDER_LLM_API_KEY: API_KEY,
      BUILDER_LLM_TIMEOUT_MS: '1500',
    },
  });
  worker = await startWorker(ctx.env);
  pages = await startBuilderSite();
  org = await ctx.bootstrap();
  b = builderClient(ctx.app, () => org.apiKey);
});
afterAll(async () => {
  await worker?.stop();
  llm?.closeAllConnections();
  await new Promise((resolve) => llm?.close(resolve));
  await pages?.close();
  await ctx?.close();
});

const grid = BUILDER_FIXTURES.find((f) => f.name === 'card-grid')!;

async function build() {
  const sessionId = await b.start({ prompt: grid.prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
  const { status, events } = await b.until(sessionId, ['ready', 'error']);
  expect(status).toBe('ready');
  return { session: await b.session(sessionId), events };
}

describe('with an OpenAI-compatible LLM configured', () => {
  it('uses a valid answer: the LLM chose the fields and named them; it saw candidates, not the page, and the key only in a header', async () => {
    mode = 'choose';
    requests.length = 0;
    const { session, events } = await build();
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual(['product_name', 'cost']);
    const expected = expectedRecords(grid.expected, pages.url)[0];
    expect(session.preview[0]).toEqual({ product_name: expected.title, cost: expected.price });
    expect(events.filter((e) => e.type === 'llm').map((e) => e.message)).toEqual([
      expect.stringMatching(/^Asking the configured LLM/),
      expect.stringMatching(/^LLM suggestion accepted/),
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0].authorization).toBe(`Bearer ${API_KEY}`);
    expect(requests[0].body.model).toBe('tiny-test-model');
    const sent = JSON.stringify(requests[0].body);
    expect(sent).not.toContain('<div');
    expect(sent).not.toContain('product-grid">');
    expect(sent.length).toBeLessThan(8000);
    expect(JSON.stringify({ session, events })).not.toContain(API_KEY);
  });

  it('reads a page that is one article as one record, and does not ask the LLM, which chooses among repeated records', async () => {
    mode = 'choose';
    requests.length = 0;
    const teasers = Array.from(
      { length: 4 },
      (_, i) =>
        `<li class="teaser"><a href="/a/${i}"><h3>Other story ${i}</h3></a><span class="author">W ${i}</span></li>`,
    ).join('');
    const html =
      '<html><head><meta property="og:type" content="article"><meta name="author" content="Ada Lovelace"></head>' +
      `<body><h1>A headline</h1><p class="byline">By <a href="/ada">Ada Lovelace</a></p>${'<p>The story itself, told at some length over several paragraphs of text.</p>'.repeat(6)}<ul>${teasers}</ul></body></html>`;
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const sessionId = await b.start({
        prompt: 'the headline and the author of the article',
        url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/story`,
        spaceId: org.spaceId,
      });
      const { status, events } = await b.until(sessionId, ['ready', 'error']);
      expect(status).toBe('ready');
      const session = await b.session(sessionId);
      expect(session.draft.list.selector).toBe('html');
      expect(session.preview).toEqual([{ headline: 'A headline', author: 'Ada Lovelace' }]);
      expect(events.filter((e) => e.type === 'llm').map((e) => e.message)).toEqual([
        expect.stringMatching(/read as one record: the LLM, which chooses among repeated records, is not asked/),
      ]);
      expect(requests).toHaveLength(0);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });

  for (const [failure, reason] of [
    ['garbage', /not JSON/],
    ['unworkable', /does not work on the page: list selector 'div.does-not-exist' matches nothing/],
    ['error', /answered 500/],
    ['slow', /did not answer within 1500 ms/],
  ] as const) {
    it(`falls back to the heuristic draft when the LLM answer is ${failure}`, async () => {
      mode = failure;
      const { session, events } = await build();
      expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'price', 'link']);
      const llmEvents = events.filter((e) => e.type === 'llm');
      expect(llmEvents.at(-1)!.message).toMatch(/^LLM suggestion not used \(/);
      expect(llmEvents.at(-1)!.message).toMatch(reason);
    });
  }
});
