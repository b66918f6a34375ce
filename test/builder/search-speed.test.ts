// The Builder's search stays fast on large pages: what it speeds up answers as the slower way did.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/engine/parse.js';
import { selectAll } from '../../src/engine/select.js';
import type { Document, Element } from '../../src/engine/select.js';
import { safeFind } from '../../src/services/builder/inference/selectors.js';
import {
  cutShortNote,
  SEARCH_BUDGET_MS,
  searchBudget,
  type SearchBudget,
} from '../../src/services/builder/inference/budget.js';
import { proposeDraft, type FetchPage } from '../../src/services/builder/inference/draft.js';

const page = (body: string) =>
  parseHtml({ body: Buffer.from(`<html><body>${body}</body></html>`), contentType: 'text/html' });

describe('position selectors', () => {
  it('find by `tag:nth-of-type(n)` exactly what the engine finds, below every element', () => {
    const links = Array.from({ length: 12 }, (_, i) => `<a href="/${i}">${i}</a><span>s${i}</span>`).join('');
    const $ = page(
      `<div id="r"><p>one</p><script>x</script>${links}<div><a href="/in">in</a><p>two</p><a>three</a></div>` +
        `<template><a>hidden</a></template><p><a>deep</a><a>deeper</a></p></div><div><p>other</p></div>`,
    );
    const root = $.root()[0] as unknown as Document;
    const elements = $('body *').toArray() as Element[];
    for (const scope of elements)
      for (const tag of ['a', 'p', 'span', 'script', 'div'])
        for (const n of [0, 1, 2, 3, 7, 12, 13])
          for (const limit of [1, 2, Infinity]) {
            const selector = `${tag}:nth-of-type(${n})`;
            expect(safeFind(scope, selector, limit)).toEqual(selectAll(scope, selector, root, limit));
          }
  });

  it('find by `tag.class` exactly what the engine finds, searched once or many times', () => {
    const cell = (r: number, i: number) =>
      `<span class="f${i % 5} v v${r}"><b class="f${i % 5}">${i}</b></span><i class="f${i % 3}\u00a0w  w">${r}</i>`;
    const $ = page(
      Array.from(
        { length: 4 },
        (_, r) =>
          `<div class="rec"><p class="f1">t</p>${Array.from({ length: 9 }, (_, i) => cell(r, i)).join('')}</div>`,
      ).join(''),
    );
    const root = $.root()[0] as unknown as Document;
    const selectors = ['span.f1', 'span.f4.v', 'span.v.f2', 'b.f0', 'i.w', 'i.f2.w', 'p.f1', 'span.f9', 'div.rec'];
    for (let round = 0; round < 3; round++)
      for (const scope of $('body *').toArray() as Element[])
        for (const selector of selectors)
          for (const limit of [1, 2, Infinity])
            expect(safeFind(scope, selector, limit)).toEqual(selectAll(scope, selector, root, limit));
  });

  it('find by a path of children from the record exactly what the engine finds', () => {
    const cells = (r: number) =>
      Array.from({ length: 6 }, (_, i) => `<div class="c x${i % 2}\u00a0y"><span>${r}.${i}</span><a>l</a></div>`).join(
        '',
      );
    const $ = page(
      Array.from(
        { length: 4 },
        (_, r) => `<section class="card"><p>t</p>${cells(r)}<div><div>in</div></div></section>`,
      ).join(''),
    );
    const root = $.root()[0] as unknown as Document;
    const selectors = [
      ':scope > div:nth-of-type(2) > span',
      ':scope > div:nth-of-type(3) > a:nth-of-type(1)',
      ':scope > div.c.x1 > span',
      ':scope > div.x0 > a',
      ':scope > div.y > span',
      ':scope > div > div',
      ':scope > p',
      ':scope > div:nth-of-type(7) > div:nth-of-type(1)',
      ':scope > section > div',
    ];
    for (const scope of $('body *').toArray() as Element[])
      for (const selector of selectors)
        for (const limit of [1, 2, Infinity])
          expect(safeFind(scope, selector, limit)).toEqual(selectAll(scope, selector, root, limit));
  });
});

describe('the search budget', () => {
  // Products, a sidebar of links and a footer of links: three repeated structures to choose from.
  const products = Array.from(
    { length: 8 },
    (_, i) =>
      `<div class="product"><h3><a href="/p/${i}">Product number ${i} with a name</a></h3><span class="price">${10 + i}.99 €</span></div>`,
  ).join('');
  const side = Array.from({ length: 6 }, (_, i) => `<li class="tag"><a href="/t/${i}">Tag ${i}</a></li>`).join('');
  const foot = Array.from({ length: 5 }, (_, i) => `<p class="note"><a href="/n/${i}">Note ${i}</a> text</p>`).join('');
  const html = `<body><main>${products}</main><aside><ul>${side}</ul></aside><footer>${foot}</footer></body>`;
  const prompt = 'name and price of each product';
  const propose = async (budget?: SearchBudget, fetchPage: FetchPage = async () => null) =>
    proposeDraft({ page: { $: load(html), url: 'https://example.com/' }, prompt, fetchPage, budget });

  it('once spent, stops the search at the best draft so far and says so', async () => {
    const full = await propose();
    expect(full.candidates.length).toBeGreaterThan(1);
    expect(full.notes.some((n) => n.includes('cut short'))).toBe(false);

    const cut = await propose(searchBudget(0, () => 0));
    expect(cut.candidates).toHaveLength(1);
    expect(cut.definition.list.selector).toBe(full.definition.list.selector);
    expect(cut.definition.list.fields).toEqual(full.definition.list.fields);
    expect(cut.notes.at(-1)).toBe(cutShortNote(searchBudget(0)));
  });

  it('is read on the injected clock: before the end every step is taken', async () => {
    let now = 1_000;
    const budget = searchBudget(SEARCH_BUDGET_MS, () => now);
    const full = await propose(budget);
    expect(budget.cut).toBe(false);
    expect(full.candidates.length).toBeGreaterThan(1);
    now += SEARCH_BUDGET_MS;
    expect(budget.spent()).toBe(true);
    expect(budget.cut).toBe(true);
  });

  it('once spent, follows no detail page', async () => {
    const pages: string[] = [];
    const fetchPage: FetchPage = async (url) => {
      pages.push(url);
      return null;
    };
    const withDescription = (budget: SearchBudget) =>
      proposeDraft({
        page: { $: load(html), url: 'https://example.com/' },
        prompt: 'name, price and description of each product',
        fetchPage,
        budget,
      });
    await withDescription(searchBudget(1_000, () => 0));
    const followed = pages.length;
    expect(followed).toBeGreaterThan(0);
    const cut = await withDescription(searchBudget(0, () => 0));
    expect(pages).toHaveLength(followed);
    expect(cut.notes.some((n) => n.includes('detail pages were not read'))).toBe(true);
  });
});
