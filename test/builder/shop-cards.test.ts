// Shop cards on small pages written here (no LLM, run by the engine): whether an item is in stock, read
// from the shop's own phrase whatever the prompt's language, even when every card says the same; and of a
// former price and the current one (struck through, or in a box classed "old"), the current one is "the
// price", and the one classed "old" is "the old price".
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const lamps: Array<[string, string, string]> = [
  ['Stehleuchte Arco', '149,00 €', 'Auf Lager'],
  ['Tischleuchte Nova', '59,90 €', 'Auf Lager'],
  ['Pendelleuchte Vela', '89,00 €', 'Auf Lager'],
  ['Wandleuchte Lumo', '39,50 €', 'Auf Lager'],
];

const sameStock = `<html><body><h1>Leuchten</h1><div class="grid">${lamps
  .map(
    ([name, price, stock]) =>
      `<div class="card"><a class="card-link" href="/p/${name.split(' ')[1].toLowerCase()}">${name}</a><div class="card-info"><span class="amount">${price}</span><div class="notice"><strong>${stock}</strong><br><span class="more">Details</span></div></div></div>`,
  )
  .join('')}</div></body></html>`;

const kettles: Array<[string, string, string]> = [
  ['Kettle Alto', '$39.00', 'In stock'],
  ['Kettle Basso', '$45.00', 'Out of stock'],
  ['Kettle Tenore', '$52.00', 'In stock'],
  ['Kettle Soprano', '$61.00', 'Only 2 left'],
];

const mixedStock = `<html><body><h1>Kettles</h1><ul class="items">${kettles
  .map(
    ([name, price, stock]) =>
      `<li class="item"><h3><a href="/k/${name.split(' ')[1].toLowerCase()}">${name}</a></h3><p class="cost">${price}</p><p class="note">${stock}</p></li>`,
  )
  .join('')}</ul></body></html>`;

describe('availability on shop cards', () => {
  it('is the stock phrase every card repeats, asked for in another language', async () => {
    const { records } = await draftRecords(sameStock, 'name, price and availability of each product');
    expect(records.map((r) => r.availability)).toEqual(lamps.map(([, , s]) => s));
    expect(records.map((r) => r.name)).toEqual(lamps.map(([n]) => n));
  });

  it('is the stock phrase that varies from card to card', async () => {
    const { records } = await draftRecords(mixedStock, 'nombre, precio y disponibilidad de cada producto');
    expect(records.map((r) => Object.values(r).find((v) => kettles.some(([, , s]) => s === v)))).toEqual(
      kettles.map(([, , s]) => s),
    );
  });
});

const chairs: Array<[string, string, string]> = [
  ['Chair Oslo', '€ 120,00', '€ 89,00'],
  ['Chair Bergen', '€ 150,00', '€ 119,00'],
  ['Chair Tromsø', '€ 99,00', '€ 79,00'],
  ['Chair Narvik', '€ 210,00', '€ 169,00'],
];

const struck = `<html><body><h1>Sale</h1><ul class="products">${chairs
  .map(
    ([name, was, now]) =>
      `<li class="product"><a class="product-link" href="/c/${name.split(' ')[1].toLowerCase()}"><h2 class="product-title">${name}</h2></a><span class="price"><del><span class="amount">${was}</span></del> <ins><span class="amount">${now}</span></ins></span></li>`,
  )
  .join('')}</ul></body></html>`;

const clocks: Array<[string, string, string]> = [
  ['Clock Atlas', '1700', '1560'],
  ['Clock Boreas', '1850', '1650'],
  ['Clock Castor', '1800', '1700'],
  ['Clock Deimos', '2400', '2150'],
];

// The amounts bare, in boxes classed as the old and the new price (no currency, no <del>).
const classed = `<html><body><h1>Clocks</h1>${clocks
  .map(
    ([name, was, now]) =>
      `<div class="tile"><div class="title"><a href="/clock/${name.split(' ')[1].toLowerCase()}">${name}</a></div><div class="cost"><span class="cost-old"><span class="num">${was}</span> <span>rub.</span></span> <span class="cost-new"><span class="num">${now}</span> <span>rub.</span></span></div></div>`,
  )
  .join('')}</body></html>`;

describe('a former price beside the current one', () => {
  it('is not the price asked for when it is struck through', async () => {
    const { records } = await draftRecords(struck, 'name and price of each chair');
    expect(records.map((r) => r.price)).toEqual([89, 119, 79, 169]);
  });

  it('is told by the class of the box around a bare amount', async () => {
    const price = await draftRecords(classed, 'name and price of each clock');
    expect(price.records.map((r) => String(r.price))).toEqual(clocks.map(([, , now]) => now));
    const both = await draftRecords(classed, 'name, old price and new price of each clock');
    expect(both.records.map((r) => [String(r.old_price), String(r.new_price)])).toEqual(
      clocks.map(([, was, now]) => [was, now]),
    );
  });
});
