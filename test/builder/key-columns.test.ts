// Rows whose first cell is written as a label but names each row ("Maandag:", "Dinsdag:"): a key column
// of values, not a label; days of the week are dates in any language; and the one value left in records
// holding just what the prompt asks for answers the word nothing else names.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';
import { findGroups } from '../../src/services/builder/inference/grouping.js';
import { isWeekdayName } from '../../src/services/builder/inference/weekdays.js';

const DAYS = ['Maandag', 'Dinsdag', 'Woensdag', 'Donderdag', 'Vrijdag', 'Zaterdag', 'Zondag'];
const HOURS = [
  '13.15 - 17.30u',
  '09.00 - 17.30u',
  '09.00 - 17.30u',
  '09.00 - 20.00u',
  '09.00 - 17.30u',
  '10.00 - 16.00u',
  'gesloten',
];

const hoursPage = (extra = '') => `<html><body><div id="container"><div id="menu"><div><a href="/">Home</a></div>
  <div><a href="/contact">Contact</a></div></div><div class="content"><h1>Openingstijden</h1>
  <table><tbody>${DAYS.map((d, i) => `<tr><td><strong>${d}:</strong></td><td>${HOURS[i]}</td><td>&nbsp;</td></tr>`).join('')}</tbody></table>
  ${extra}</div></div></body></html>`;

describe('key columns written as labels', () => {
  it('reads the day written as a label in each row, and the hours beside it', async () => {
    const { proposal, records } = await draftRecords(hoursPage(), 'día y horario de apertura de cada día');
    expect(proposal.definition.list.selector).toBe('tbody > tr');
    expect(records).toEqual(DAYS.map((d, i) => ({ dia: d, horario_de_apertura: HOURS[i] })));
  });

  it('keeps a label every row writes alike out of the fields', async () => {
    const items = ['Kettle', 'Lamp', 'Chair', 'Mug']
      .map((n, i) => `<li><a href="/p/${i}">${n}</a><span>Price:</span><span>€${i + 5}.00</span></li>`)
      .join('');
    const { proposal, records } = await draftRecords(
      `<html><body><ul class="products">${items}</ul></body></html>`,
      'name and price of each product',
    );
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['name', 'price']);
    expect(records[0]).toEqual({ name: 'Kettle', price: 5 });
  });
});

describe('boxes nested in boxes', () => {
  it('count their text once: no group holds more than the whole page', () => {
    const text = 'Wij zijn open op de volgende dagen en tijden, behalve op feestdagen. '.repeat(3);
    const $ = load(`<html><body><div id="container"><div id="inner"><div id="header"><a href="/">Home</a></div>
      <div id="main"><div id="menu"><a href="/c">Contact</a></div><div id="content"><p>${text}</p></div></div>
      <div id="footer"><div id="social"><a href="/t">Twitter</a></div><div id="footer-text"><p>${text}</p></div></div>
      </div></div></body></html>`);
    const groups = findGroups($);
    expect(groups.some((g) => g.members.length >= 4)).toBe(true);
    for (const g of groups) expect(g.share).toBeLessThanOrEqual(1);
  });
});

describe('day names', () => {
  it('knows the days of the week in the languages of pages, long and short, with a colon or a dot', () => {
    for (const day of ['Maandag:', 'Mon.', 'sábado', 'lunedì', 'Montag', 'mardi', '月曜日', '星期一', 'poniedziałek'])
      expect(isWeekdayName(day), day).toBe(true);
    for (const word of ['May', 'Tag', 'Openingstijden', '']) expect(isWeekdayName(word), word).toBe(false);
  });
});
