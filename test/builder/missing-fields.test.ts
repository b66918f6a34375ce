// A field the prompt names and the page does not hold is never dropped silently: through the HTTP API
// with a real worker, the session's draft event names it, says why, and lists the closest candidates;
// the fields that exist are in the draft, and the records' own noun ("each product") is not reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/app.js';
import { builderClient } from '../helpers/builder.js';
import { useRunEnvironment } from '../helpers/runs.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { startBuilderSite, type BuilderSite } from '../fixtures/builder/site.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let pages: BuilderSite;
let b: ReturnType<typeof builderClient>;

beforeAll(async () => {
  ({ ctx, org } = env);
  pages = await startBuilderSite();
  b = builderClient(ctx.app, () => org.apiKey);
});
afterAll(async () => pages?.close());

describe('fields the prompt names that the page does not hold', () => {
  it('are reported in the draft event with the reason and the closest candidates', async () => {
    const grid = BUILDER_FIXTURES.find((f) => f.name === 'card-grid')!;
    const sessionId = await b.start({
      prompt: 'Get the title, price, warranty and link of each product on this page',
      url: `${pages.url}${grid.start}`,
      spaceId: org.spaceId,
    });
    const { status, events } = await b.until(sessionId, ['ready', 'error']);
    expect(status).toBe('ready');
    const draft = events.find((e) => e.type === 'draft')!;
    expect(draft.message).toMatch(
      /Field "warranty" not found on the page: no value is labelled, classed or shaped like "warranty"\. Closest candidates: '[^']+'/,
    );
    expect(draft.data.notes.some((n: string) => n.startsWith('Field "warranty" not found'))).toBe(true);
    // The records' noun is not a field; the fields that exist are all in the draft.
    expect(draft.message).not.toMatch(/"product"/);
    const session = await b.session(sessionId);
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual(['title', 'price', 'link']);
  });

  it('with a concept the page lacks and no detail page to follow, say so with the candidates', async () => {
    const grid = BUILDER_FIXTURES.find((f) => f.name === 'card-grid')!;
    const sessionId = await b.start({
      prompt: 'title and email of each product',
      url: `${pages.url}${grid.start}`,
      spaceId: org.spaceId,
    });
    const { status, events } = await b.until(sessionId, ['ready', 'error']);
    expect(status).toBe('ready');
    const draft = events.find((e) => e.type === 'draft')!;
    expect(draft.message).toMatch(
      /Field "email" not found on the (?:page|list page)[^.]*: no value is labelled, classed or shaped like "email"\. Closest candidates: /,
    );
    const session = await b.session(sessionId);
    expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toContain('title');
  });

  it.each([
    ['German', 'Titel, Preis, Garantie und Link jedes Produkts', ['titel', 'preis', 'link'], 'garantie'],
    ['Japanese', '各商品のタイトル、価格、保証期間、リンク', ['title', 'price', 'link'], '保証期間'],
  ])(
    'in %s: the fields found are named by the prompt, the field not found is named in the notes',
    async (_l, prompt, names, absent) => {
      const grid = BUILDER_FIXTURES.find((f) => f.name === 'card-grid')!;
      const sessionId = await b.start({ prompt, url: `${pages.url}${grid.start}`, spaceId: org.spaceId });
      const { status, events } = await b.until(sessionId, ['ready', 'error']);
      expect(status).toBe('ready');
      const draft = events.find((e) => e.type === 'draft')!;
      expect(draft.data.notes.some((n: string) => n.startsWith(`Field "${absent}" not found`))).toBe(true);
      const session = await b.session(sessionId);
      expect(session.draft.list.fields.map((f: { name: string }) => f.name)).toEqual(names);
    },
  );
});
