// Pure rules of the Agent Builder: the session state machine, the request examples, the prompt's
// words, stable classes and pagination recognition.
import { load } from 'cheerio';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { FinishBody, MessageBody, StartSessionBody } from '../../src/schemas/agent-builder.js';
import { nameFromPrompt, urlInPrompt } from '../../src/services/builder/builder.service.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { detectPagination } from '../../src/services/builder/inference/pagination.js';
import { isUnstableClass } from '../../src/services/builder/inference/selectors.js';
import { extractListPage } from '../../src/engine/page-extract.js';
import { assertCanFinish, assertCanMessage, stopDecision } from '../../src/services/builder/session-state.js';
import { RATING_CLASS } from '../../src/services/builder/inference/values.js';

const conflict = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { status: (err as { statusCode: number }).statusCode, code: (err as { errorCode: string }).errorCode };
  }
  return null;
};

describe('session state machine', () => {
  it('lets only a ready session take messages and be finished', () => {
    expect(conflict(() => assertCanMessage('s', 'ready'))).toBeNull();
    expect(conflict(() => assertCanFinish('s', 'ready'))).toBeNull();
    for (const status of ['processing', 'completed', 'cancelled', 'error']) {
      expect(conflict(() => assertCanMessage('s', status))).toEqual({ status: 409, code: 'SESSION_STATE_CONFLICT' });
      expect(conflict(() => assertCanFinish('s', status))).toEqual({ status: 409, code: 'SESSION_STATE_CONFLICT' });
    }
  });

  it('stops processing and ready sessions, ignores ended ones, refuses completed ones', () => {
    expect(stopDecision('s', 'processing')).toBe('cancel');
    expect(stopDecision('s', 'ready')).toBe('cancel');
    expect(stopDecision('s', 'cancelled')).toBe('nothing');
    expect(stopDecision('s', 'error')).toBe('nothing');
    expect(conflict(() => stopDecision('s', 'completed'))).toEqual({ status: 409, code: 'SESSION_STATE_CONFLICT' });
  });
});

describe('request bodies', () => {
  it('accept their own documented examples', () => {
    for (const schema of [StartSessionBody, MessageBody, FinishBody]) {
      for (const example of schema.examples as unknown[]) expect(Value.Check(schema, example)).toBe(true);
    }
  });
});

describe('prompts', () => {
  it('reads a noun asked for again with another word before it as another field', () => {
    expect(
      promptRequests('away team, away score, home team and home score of each game').map((r) => [r.word, r.concept]),
    ).toEqual([
      ['away_team', undefined],
      ['away_score', 'rating'],
      ['home_team', undefined],
      ['home_score', 'rating'],
      ['game', undefined],
    ]);
    // Asked again alone, the noun names no new field.
    expect(promptRequests('the title, the title link and the price').map((r) => r.word)).toEqual([
      'title',
      'link',
      'price',
    ]);
  });

  it('finds the URL and the requested words', () => {
    expect(urlInPrompt('Scrape https://shop.example.com/list?page=1, please.')).toBe(
      'https://shop.example.com/list?page=1',
    );
    expect(urlInPrompt('no address here')).toBeUndefined();
    expect(promptRequests('Get the title, price and link of each product').map((r) => [r.word, r.concept])).toEqual([
      ['title', 'title'],
      ['price', 'price'],
      ['link', 'link'],
    ]);
    expect(promptRequests('I want the name, cost and photo of every item').map((r) => r.concept)).toEqual([
      'title',
      'price',
      'image',
    ]);
    expect(nameFromPrompt('Get the title, price and link of each product on https://x.example/', null)).toBe(
      'Get the title, price and link of each product',
    );
  });
});

describe('stable selectors', () => {
  it('treats generated and state classes as unstable', () => {
    for (const c of ['css-1k2x9z4', 'sc-bdVaJa', 'Card_title__3xYz1', 'active', 'md:flex', 'item--featured'])
      expect(isUnstableClass(c), c).toBe(true);
    for (const c of ['product-card', 'price', 'book__title', 'col-md-4']) expect(isUnstableClass(c), c).toBe(false);
  });
});

describe('pagination', () => {
  const base = 'https://example.com/list?page=2';
  it.each([
    ['<a rel="next" href="?page=3">Older</a>', 'a[rel~="next"]'],
    ['<a class="next-page" href="?page=3">→</a>', 'a.next-page'],
    ['<a href="?page=1">Back</a><a href="?page=3">Next »</a>', 'a:contains("Next »")'],
    [
      '<ul><li><a href="?page=1">1</a></li><li class="active"><span>2</span></li><li><a href="?page=3">3</a></li></ul>',
      'li.active + li a',
    ],
  ])('recognises %s', (html, selector) => {
    expect(detectPagination(load(`<body>${html}</body>`), base)).toMatchObject({
      selector,
      nextUrl: 'https://example.com/list?page=3',
    });
  });

  it('never goes back to an earlier page', () => {
    expect(detectPagination(load('<body><a href="?page=1">Next</a></body>'), base)).toBeNull();
  });
});

describe('a prompt that names no field', () => {
  it('gets the meaningful fields once each, named by labels and concepts, without secondary links', async () => {
    const { proposeDraft } = await import('../../src/services/builder/inference/draft.js');
    const rows = Array.from(
      { length: 5 },
      (_, i) => `<tr><td><a href="/c/${i}">City ${i}</a></td><td>${1000 + i}</td></tr>`,
    ).join('');
    const table = load(
      `<body><table><thead><tr><th>City</th><th>Population</th></tr></thead><tbody>${rows}</tbody></table></body>`,
    );
    const tableDraft = await proposeDraft({
      page: { $: table, url: 'https://example.com/' },
      prompt: 'Scrape this page for me please',
      fetchPage: async () => null,
    });
    expect(tableDraft.definition.list.fields.map((f) => f.name)).toEqual(['city', 'link', 'population']);

    const cards = Array.from(
      { length: 4 },
      (_, i) =>
        `<div class="card"><a class="thumb" href="/p/${i}"><img src="/i/${i}.jpg"></a><h3><a href="/p/${i}">Item ${i}</a></h3><p class="byline">By <span class="author">Ann ${i}</span></p><a class="cart" href="/cart?add=${i}">Add to cart</a></div>`,
    ).join('');
    const page = load(`<body><div class="cards">${cards}</div></body>`);
    const draft = await proposeDraft({
      page: { $: page, url: 'https://example.com/' },
      prompt: 'Scrape this page for me please',
      fetchPage: async () => null,
    });
    expect(draft.definition.list.fields.map((f) => f.name)).toEqual(['image', 'title', 'link', 'author']);
    expect(draft.definition.list.fields.find((f) => f.name === 'author')?.selector).toBe('span.author');
  });
});

describe('values written as classes or with a decimal comma', () => {
  it('reads a rating written as classes from the class that says it, and a decimal-comma price as a number', async () => {
    const { proposeDraft } = await import('../../src/services/builder/inference/draft.js');
    const words = ['One', 'Two', 'Three', 'Four', 'Five'];
    const items = words
      .map(
        (w, i) =>
          `<article class="pod"><h3><a href="/b/${i}">Book ${i}</a></h3><p class="star-rating ${w}"><i class="icon-star"></i></p><p class="price">€ ${10 + i},99</p></article>`,
      )
      .join('');
    const draft = await proposeDraft({
      page: { $: load(`<body><section>${items}</section></body>`), url: 'https://example.com/' },
      prompt: 'title, price and rating of each book',
      fetchPage: async () => null,
    });
    expect(draft.definition.list.fields).toEqual([
      { name: 'title', selector: 'a', transform: 'trim', required: true },
      { name: 'price', selector: 'p.price', transform: 'number' },
      {
        name: 'rating',
        selector: 'p.star-rating',
        attribute: 'class',
        transform: ['trim', { regex: RATING_CLASS, group: 1, flags: 'i' }],
      },
    ]);
  });
});

describe('real-page rules', () => {
  it('reads two prompt words in a row as one field, in more than one language', () => {
    const asked = (prompt: string) => promptRequests(prompt).map((r) => [r.word, r.concept]);
    expect(asked('reviewer name, star rating and date posted')).toEqual([
      ['reviewer', 'author'],
      ['rating', 'rating'],
      ['date', 'date'],
    ]);
    expect(asked('repository name and total stars')).toEqual([
      ['repository', 'title'],
      ['stars', 'rating'],
    ]);
    expect(asked('Rang, DFL-Tabelle und Wahre Tabelle jeder Zeile')).toEqual([
      ['rang', 'rank'],
      ['dfl-tabelle', undefined],
      ['wahre_tabelle', undefined],
    ]);
  });

  it('treats zebra-row classes and values written as classes as unstable', () => {
    for (const c of ['job-alt', 'row_odd', 'stars_5', 'a-star-small-4-5']) expect(isUnstableClass(c), c).toBe(true);
  });

  it('reads a page that is one article from its root, guided by its JSON-LD, unless the prompt asks for a list', async () => {
    const { proposeDraft } = await import('../../src/services/builder/inference/draft.js');
    const related = Array.from(
      { length: 4 },
      (_, i) =>
        `<li class="teaser"><a href="/a/${i}"><h3>Other story ${i}</h3></a><span class="author">Writer ${i}</span></li>`,
    ).join('');
    const html =
      '<html><head><script type="application/ld+json">{"@type":"NewsArticle","headline":"A headline","author":{"@type":"Person","name":"Ada Lovelace"}}</script></head>' +
      `<body><h1>A headline</h1><p class="byline">By <a href="/ada">Ada Lovelace</a></p>${'<p>The story itself, told at some length over several paragraphs of text.</p>'.repeat(6)}<ul>${related}</ul></body></html>`;
    const one = await proposeDraft({
      page: { $: load(html), url: 'https://example.com/story' },
      prompt: 'the headline and the author of the article',
      fetchPage: async () => null,
    });
    expect(one.definition.list.selector).toBe('html');
    const read = extractListPage(
      { finalUrl: 'https://example.com/story', body: Buffer.from(html), contentType: 'text/html; charset=utf-8' },
      { list: one.definition.list },
    );
    expect(read.items.map((i) => i.record)).toEqual([{ headline: 'A headline', author: 'Ada Lovelace' }]);
    const lacking = await proposeDraft({
      page: { $: load(html), url: 'https://example.com/story' },
      prompt: 'the headline and the warranty of the article',
      fetchPage: async () => null,
    });
    expect(lacking.definition.list.fields.map((f) => f.name)).toEqual(['headline']);
    expect(lacking.notes).toContainEqual(
      expect.stringMatching(
        /^Field "warranty" not found on the page: .* Closest candidates: JSON-LD headline \("A headline"\)/,
      ),
    );
    const list = await proposeDraft({
      page: { $: load(html), url: 'https://example.com/story' },
      prompt: 'the headline and the author of each related story',
      fetchPage: async () => null,
    });
    expect(list.definition.list.selector).toBe('li.teaser');
  });

  it('reads the rows of a table that is the body of a page declaring one article', async () => {
    const { proposeDraft } = await import('../../src/services/builder/inference/draft.js');
    const rows = Array.from(
      { length: 12 },
      (_, i) => `<tr><td><a href="/c/${i}">Country ${i}</a></td><td>Capital ${i}</td><td>${1000 + i}</td></tr>`,
    ).join('');
    const html =
      '<html><head><meta property="og:type" content="article"></head><body><h1>Countries</h1>' +
      `<table><tr><th>Country</th><th>Capital</th><th>Population</th></tr>${rows}</table></body></html>`;
    const draft = await proposeDraft({
      page: { $: load(html), url: 'https://example.com/countries' },
      prompt: 'country, capital and population',
      fetchPage: async () => null,
    });
    expect(draft.definition.list.selector).not.toBe('html');
    const read = extractListPage(
      { finalUrl: 'https://example.com/countries', body: Buffer.from(html), contentType: 'text/html; charset=utf-8' },
      { list: draft.definition.list },
    );
    expect(read.items).toHaveLength(12);
    expect(read.items[0].record).toMatchObject({ country: 'Country 0', capital: 'Capital 0', population: '1000' });
  });

  it('takes the whole text from an aria-label when the shown text is shortened', async () => {
    const { proposeDraft } = await import('../../src/services/builder/inference/draft.js');
    const cards = Array.from(
      { length: 4 },
      (_, i) =>
        `<div class="card"><a href="/p/${i}" aria-label="A very long product name number ${i}">A very long ...</a><span class="price">$${i + 1}.00</span></div>`,
    ).join('');
    const draft = await proposeDraft({
      page: { $: load(`<body><div class="grid">${cards}</div></body>`), url: 'https://example.com/' },
      prompt: 'name and price of each product',
      fetchPage: async () => null,
    });
    expect(draft.definition.list.fields[0]).toMatchObject({ name: 'name', attribute: 'aria-label' });
  });
});
