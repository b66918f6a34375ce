// Shop cards on small pages written here (no LLM, run by the engine): whether an item is in stock, read
// from the shop's own phrase whatever the prompt's language, even when every card says the same.
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
