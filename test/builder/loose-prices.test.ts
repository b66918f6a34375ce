// Records whose price is written loose in their own text, after the product's link ("<a>…</a>£60.00"):
// choosing the records, such a price answers the prompt's price as a price in an element of its own does.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const products = [
  ['Scaffold Jeans', '£60.00'],
  ['Core Nick Jeans', '£75.00'],
  ['Jagger Jeans', '£77.50'],
  ['Duke Jeans', '£107.50'],
  ['Scanton Jeans', '£89.00'],
  ['Lab Jeans', '£65.00'],
];
// Beside the product table, a long text of the shop's own in boxes of one kind.
const about = Array.from(
  { length: 12 },
  (_, i) =>
    `<div><p>Part ${i + 1} of the story of our shop: how we started selling denim from a market stall and grew into the store you know today, with advice on fits, washes and care for every pair we sell.</p></div>`,
).join('');
const page = `<html><body><div>${about}</div><table class="t1"><tbody><tr>${products
  .map(([name, price], i) => `<td><a href="/p/${i}"><img src="/i/${i}.jpg" alt=""><p>${name}</p></a>${price}</td>`)
  .join('')}</tr></tbody></table></body></html>`;

describe('a price loose in the record text', () => {
  it('makes the products the records the prompt asks for', async () => {
    const { records } = await draftRecords(page, 'name, price and link of every product');
    expect(records.map((r) => r.price)).toEqual([60, 75, 77.5, 107.5, 89, 65]);
    expect(records[0]).toMatchObject({ link: 'https://example.com/p/0' });
  });
});
