// A list whose items carry a modifier class on some and no class on the others (`<li class="tight">`
// beside `<li>`): one list, not the classed items alone. On a small page written here (no LLM, run by the
// engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const groups: Array<[string, Array<[string, boolean]>]> = [
  [
    'For the sponge',
    [
      ['200g self-raising flour', true],
      ['175g caster sugar', true],
      ['3 large eggs', false],
      ['150ml whole milk', false],
      ['100g butter, melted', true],
    ],
  ],
  [
    'For the icing',
    [
      ['250g icing sugar', true],
      ['2 tbsp lemon juice', false],
      ['1 tsp vanilla extract', false],
    ],
  ],
];

const page = `<html><body><nav><ul><li><a href="/">Home</a></li><li><a href="/recipes">Recipes</a></li><li><a href="/shop">Shop</a></li></ul></nav><main><h1>Lemon sponge</h1><div class="ingredients"><h2>Ingredients</h2>${groups
  .map(
    ([heading, items]) =>
      `<div class="group"><h3>${heading}</h3><ul>${items
        .map(([text, tight]) => {
          const [amount, ...rest] = text.split(' ');
          return `<li${tight ? ' class="tight"' : ''}><span class="qty">${amount}</span> ${rest.join(' ')}</li>`;
        })
        .join('')}</ul></div>`,
  )
  .join(
    '',
  )}</div><div class="method"><h2>Method</h2><p>Beat everything together, bake for 25 minutes and ice when cool.</p></div></main></body></html>`;

describe('items of one list with and without a modifier class', () => {
  it('are all the records', async () => {
    const { records } = await draftRecords(page, 'alle Zutaten des Rezepts');
    expect(records.map((r) => r.quantity)).toEqual(groups.flatMap(([, items]) => items.map(([t]) => t.split(' ')[0])));
  });
});
