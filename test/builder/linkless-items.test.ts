// Items of one list whose value is linked in most and written bare in some (an ingredient without its
// glossary link): the bare ones are records of the list too, not something else. On a small page written
// here (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const lines: Array<[string, string, boolean]> = [
  ['250g', 'plain flour', true],
  ['25g', 'cocoa powder', false],
  ['175g', 'light muscovado sugar', true],
  ['85g', 'unsalted butter', true],
  ['3', 'large eggs', false],
  ['1 tsp', 'vanilla extract', true],
  ['200g', 'icing sugar', true],
];

const page = `<html><body><h1>Chocolate cupcakes</h1><section class="ingredients"><h2>Ingredients</h2><ul class="list">${lines
  .map(([q, n, linked]) => {
    const name = `<span class="item-name">${n}</span>`;
    return `<li class="list-item"><span class="item-qty">${q} </span>${linked ? `<a class="glossary" href="/glossary/${n.split(' ').pop()}">${name}</a>` : name}</li>`;
  })
  .join(
    '',
  )}</ul></section><section class="method"><h2>Method</h2><p>Heat the oven, mix, bake for twenty minutes and cool on a rack.</p></section></body></html>`;

describe('list items whose value is linked in some and bare in others', () => {
  it('are all records of the list', async () => {
    const { records } = await draftRecords(page, 'quantity and name of every ingredient');
    expect(records.map((r) => r.quantity)).toEqual(lines.map(([q]) => q));
    expect(records.map((r) => r.name)).toEqual(lines.map(([, n]) => n));
  });
});
