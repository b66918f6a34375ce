// Pages whose every class a build generated (CSS-in-JS, CSS modules): the classes are the same on every
// element of one kind on the page, so they tell the records from the boxes beside them, but the next build
// of the site names them anew, so the Agent's selectors do not use them.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import {
  isGeneratedClass,
  isIdClass,
  isStateClass,
  pageClasses,
} from '../../src/services/builder/inference/selectors.js';
import { draftRecords } from '../helpers/draft-records.js';

const products = ['Linen shirt', 'Wool coat', 'Denim jacket', 'Canvas shoes', 'Silk scarf', 'Leather belt'];

/** Each product card, followed by a promotion box of a heading, `promo` and a link. */
const pageOf = (promo: (i: number) => string) =>
  `<html><body><main><div class="css-9df3k2b">${products
    .map(
      (name, i) => `<div class="css-2mx8q1c"><h3 class="css-7pw1z9d">${name}</h3>
      <span class="css-3na8k2e">$${(i + 1) * 10}.00</span><a class="css-5tb2w8x" href="/p/${i}">View</a></div>
      <div class="css-8rq4v0y"><h3 class="css-1hz6k3m">Offer ${i + 1}</h3>${promo(i)}
      <a class="css-0kd7s5f" href="/offers/${i}">More</a></div>`,
    )
    .join('')}</div></main></body></html>`;

const selectorsOf = (list: { selector?: string; fields: Array<{ selector?: string }> }) => [
  list.selector ?? '',
  ...list.fields.map((f) => f.selector ?? ''),
];

describe('records told apart by generated classes', () => {
  it('reads the product cards, not the promotion boxes between them, by what they hold', async () => {
    // The boxes hold a paragraph where the cards hold a price: the records' selector can say so.
    const { records, proposal } = await draftRecords(
      pageOf(() => '<p class="css-6yc9n4p">Free shipping this week</p>'),
      'name and price of every product',
    );
    expect(records.map((r) => r.name)).toEqual(products);
    expect(records[1]).toMatchObject({ price: 20 });
    for (const selector of selectorsOf(proposal.definition.list)) expect(selector).not.toMatch(/css-/);
    expect(proposal.notes.join('\n')).not.toMatch(/generated/);
  });

  it('names the generated class when nothing else tells them apart, and says so in the notes', async () => {
    // The boxes are built as the cards are: only their classes differ.
    const { records, proposal } = await draftRecords(
      pageOf(() => '<span class="css-6yc9n4p">Free shipping this week</span>'),
      'name and price of every product',
    );
    expect(records.map((r) => r.name)).toEqual(products);
    expect(proposal.definition.list.selector).toBe('div.css-2mx8q1c');
    expect(proposal.notes.join('\n')).toMatch(/only by 'css-2mx8q1c', a class the site's build generated/);
  });
});

describe('the classes compared on a page', () => {
  it('keeps generated classes, leaves out states and ids written as classes', () => {
    const $ = load(
      '<div class="css-2mx8q1c active post-1886 mbrName_686D3331C671D65DC578CD147CF323DA Card_title__3xYz1 card"></div>',
    );
    expect(pageClasses($('div')[0])).toEqual(['Card_title__3xYz1', 'card', 'css-2mx8q1c']);
  });

  it('tells generated, state and id classes apart', () => {
    expect(['css-2mx8q1c', 'Card_title__3xYz1', 'x7f3a9c', 'md:flex'].every(isGeneratedClass)).toBe(true);
    expect(['active', 'job-alt', 'stars_5', 'depth-2'].every(isStateClass)).toBe(true);
    expect(['post-1886', 'profile_686D3331C671D65DC578CD147CF323DA'].every(isIdClass)).toBe(true);
    expect(
      ['card', 'product-title', 'col-md-4'].some((c) => isGeneratedClass(c) || isStateClass(c) || isIdClass(c)),
    ).toBe(false);
  });
});

describe('a value told apart by a generated class', () => {
  // A live commentary laid out left and right: the minute first in some entries, the text first in others.
  const entries = [
    ["95'", 'Full time: the home side held on to the draw.'],
    ["93'", 'A yellow card for the keeper, who took too long over a free kick.'],
    ["90'", 'Four minutes of added time are shown on the board.'],
    ["88'", 'A volley ends in the side netting after a long move.'],
    ["85'", 'A change for the visitors: a striker comes on for a midfielder.'],
    ["81'", 'The home side claim a penalty, the referee waves play on.'],
  ];
  const page = `<html><body><main><div class="css-r4t8n1w">${entries
    .map(([minute, text], i) => {
      const time = `<div class="css-t1m3x9q"><span>${minute}</span></div>`;
      const body = `<div class="css-b0d7y2k"><div class="css-h9k2m4p"><span class="css-i3c0n5s"></span></div>${text}</div>`;
      return `<div class="css-e7n2t4r ${i % 2 ? 'css-r1g8h7t' : 'css-l3f9t2e'}">${i % 2 ? body + time : time + body}</div>`;
    })
    .join('')}</div></main></body></html>`;

  it('reads it by that class, and the notes say so', async () => {
    const { records, proposal } = await draftRecords(page, 'the minute and the text of each comment');
    expect(records.map((r) => Object.values(r))).toEqual(entries.map(([minute, text]) => [minute, text]));
    expect(proposal.notes.join('\n')).toMatch(
      /is found in each record by 'css-t1m3x9q', a class the site's build generated/,
    );
  });
});

describe('records whose only hooks are a box around them or a data attribute', () => {
  const ingredients = ['200 g flour', '100 g butter', '2 eggs', '1 tsp salt', '50 g sugar', '1 cup milk'];
  const comments = Array.from(
    { length: 8 },
    (_, i) => `Reader ${i + 1} made these on a Sunday and says the dough needed a little more flour than written.`,
  );
  const pageOf = (hook: string) => `<html><body><main><h1>Butter cookies</h1>
    <div class="css-h4d1r9x"><h3>Ingredients</h3></div>
    <div class="css-i7g2q0z"><ul>${ingredients.map((t) => `<li${hook}>${t}</li>`).join('')}</ul></div>
    <div class="css-h4d1r9x"><h3>Comments</h3></div>
    <div class="css-c5m8w3k"><ul>${comments.map((t) => `<li><p>${t}</p></li>`).join('')}</ul></div>
    </main></body></html>`;

  it('reads the list by the generated class of its box when nothing else names it', async () => {
    const { records, proposal } = await draftRecords(pageOf(''), 'the ingredients of this recipe');
    expect(records.map((r) => Object.values(r)[0])).toEqual(ingredients);
    expect(proposal.definition.list.selector).toBe('div.css-i7g2q0z > ul > li');
    expect(proposal.notes.join('\n')).toMatch(/only by 'css-i7g2q0z'/);
  });

  it('reads the list by a data attribute every record carries, whatever its value', async () => {
    const { records, proposal } = await draftRecords(
      pageOf(' data-ingredient-checkbox=""'),
      'the ingredients of this recipe',
    );
    expect(records.map((r) => Object.values(r)[0])).toEqual(ingredients);
    expect(proposal.definition.list.selector).toBe('li[data-ingredient-checkbox]');
    expect(proposal.notes.join('\n')).not.toMatch(/generated/);
  });
});
