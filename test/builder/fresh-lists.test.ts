// Abilities found missing on list pages of sites the tuning set had never seen (scored before any change),
// each on a small page written here: a price written after an ISO currency code, a regular price beside
// a sale price, a badge opening some names, cards laid out two to a grid row whose classes carry each card's own id, a count of views inside a line of other values or
// after a label, and a floor area that is no price.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { chooseSelector } from '../../src/services/builder/inference/field-selectors.js';
import { conceptOfValues } from '../../src/services/builder/inference/naming.js';
import { draftRecords } from '../helpers/draft-records.js';

describe('a price written after an ISO currency code', () => {
  it('reads "CAD 247.94" and "Sale AUD 34.42" as prices', () => {
    expect(conceptOfValues(['CAD 247.94', 'CAD 51.66', 'CAD 19.99'])).toBe('price');
    expect(conceptOfValues(['Sale AUD 34.42', 'Sale AUD 12.00'])).toBe('price');
  });
});

describe('a regular price beside a sale price in some cards, one price in the others', () => {
  // "Reg. $51.66" then "Sale $34.42" in two boxes alike; "$247.94" alone in the others.
  const card = (name: string, prices: string[], i: number) => `<li class="thumb"><div class="desc">
    <a href="/p/${i}">${name}</a></div><div class="amounts">${prices
      .map((p, j) => `<span class="cw"><span class="fr${j > 0 ? ' onsale' : ''}">${p}</span><br></span>`)
      .join('')}<div class="badge">Free shipping at $34</div></div></li>`;
  const cards: Array<[string, string[]]> = [
    ['Fitbit Charge 2 Lavender', ['$247.94']],
    ['Charter Club Bracelet Watch 28mm', ['Reg. $51.66', 'Sale $34.42']],
    ['Charter Club Two-Tone Watch', ['Reg. $51.66', 'Sale $34.42']],
    ['Steel Mesh Watch 25mm', ['Reg. $118.00', 'Sale $77.49']],
    ['Fitbit Charge 2 Black', ['$247.94']],
  ];
  const page = `<html><body><ul class="grid">${cards.map(([n, p], i) => card(n, p, i)).join('')}</ul></body></html>`;

  it('reads a price opened by the word saying which one it is as a price', () => {
    expect(conceptOfValues(['Reg. $51.66', 'Reg. $118.00', 'Was £20'])).toBe('price');
    expect(conceptOfValues(['Sale $34.42', 'Sale $77.49', 'ab 9,99 €'])).toBe('price');
  });

  it('gives the sale price, not the regular one, where a card shows both', async () => {
    const { records } = await draftRecords(page, 'name and price of each watch');
    expect(records.filter((_, i) => cards[i][1].length > 1).map((r) => r.price)).toEqual([34.42, 34.42, 77.49]);
  });

  it('reaches the last of the boxes alike, which is the only one in the other cards', () => {
    const $ = load(page);
    const members = $('li.thumb').toArray();
    const targets = new Map(members.map((m) => [m, $(m).find('span.fr').last()[0]]));
    expect(chooseSelector($, members, targets, undefined)).toBe('span.cw:last-of-type span.fr');
  });
});

describe('a badge opening some names', () => {
  it('leaves the badge out of the name: "NEW!" in an element of its own inside the name\'s link', async () => {
    const names = [
      ['', 'Fitbit Charge 2 Lavender Strap Wristband'],
      ['NEW!', 'Charter Club Rose Gold-Tone Bracelet Watch'],
      ['', 'Charter Club Two-Tone Bracelet Watch'],
      ['NEW!', 'Charter Club Stainless Steel Bracelet Watch'],
    ];
    const cards = names
      .map(
        ([badge, name], i) =>
          `<li class="thumb"><div class="desc"><a href="/p/${i}">${
            badge ? `<span>${badge}</span> ` : ''
          }${name}</a></div><span class="amount">$${40 + i}.00</span></li>`,
      )
      .join('');
    const { records } = await draftRecords(
      `<html><body><ul class="grid">${cards}</ul></body></html>`,
      'name and price of each watch',
    );
    expect(records.map((r) => r.name)).toEqual(names.map(([, n]) => n));
  });
});

describe('cards laid out two to a grid row', () => {
  // A blog's grid: each row holds two posts, each post classed with its own id and its categories.
  const posts = [
    ['Money flow strategy', '2016-02-17', 'strategy'],
    ['The Tremor indicator', '2015-12-14', 'indicators'],
    ['Martingale in binary options', '2015-09-19', 'strategy'],
    ['Trading without indicators', '2015-09-11', 'basics'],
    ['Nonfarm payroll', '2015-09-09', 'news'],
    ['Five-minute options', '2015-09-07', 'strategy'],
  ];
  const post = ([title, date, category]: string[], i: number) =>
    `<article id="post-${1900 - i}" class="group post-${1900 - i} post category-${category}"><div class="post-inner">
      <h2 class="post-title"><a href="/strategy/${i}.html">${title}</a></h2><div class="date">${date}</div>
      <div class="entry"><p>${title} explained step by step, with the charts of a week of trading.</p></div></div></article>`;
  const rows = [0, 2, 4].map((i) => `<div class="post-row">${post(posts[i], i)}${post(posts[i + 1], i + 1)}</div>`);
  const page = `<html><body><div class="post-list">${rows.join('')}</div></body></html>`;

  it('gives each post as a record, not each row', async () => {
    const { records } = await draftRecords(page, 'title, link and date of every article');
    expect(records).toHaveLength(6);
    expect(records[1]).toMatchObject({ title: 'The Tremor indicator', date: '2015-12-14' });
  });
});

describe('a count of views', () => {
  it('reads it inside a line of other values, asked for in another language ("número de visitas")', async () => {
    const posts = [
      ['Download Broadsheet v1.1.4', 1, 'Mar 10, 2016'],
      ['Download LENS v2.3.0', 22, 'Mar 9, 2016'],
      ['Download KingSize v5.1.3', 18, 'Mar 9, 2016'],
    ]
      .map(
        (
          [title, views, date],
          i,
        ) => `<div class="list_post"><h2 class="entry-title"><a href="/t/${i}.html">${title}</a></h2>
        <p>A theme for magazines and blogs, with sliders and widgets.</p>
        <p class="panel"><span class="author">by <a href="/author/admin">admin</a></span>
        <a href="/t/${i}.html#respond">No Comments</a> / ${views} View / <span class="updated">${date}</span></p></div>`,
      )
      .join('');
    const { records } = await draftRecords(
      `<html><body><div class="posts">${posts}</div></body></html>`,
      'título, fecha y número de visitas de cada tema',
    );
    expect(records.map((r) => r.visitas)).toEqual([1, 22, 18]);
  });

  it('reads it after a label and a colon ("Число просмотров: 216"), asked for in Polish', async () => {
    const articles = [
      ['Сборник модификаций', 'Tomahawk', 216],
      ['Список интересных модов', 'Pencel', 555],
      ['Военные действия в игре', 'Tomahawk', 256],
    ]
      .map(
        ([title, author, views], i) => `<div class="article_preview"><h3><a href="/content/${i}">${title}</a></h3>
        <div class="cms_article_username"><a class="username" href="/members/${i}">${author}</a></div>
        <div class="meta">Опубликовано 02.03.2016 07:30 Число просмотров: ${views}</div>
        <p>Представляю вам собственный сборник модификаций для игры.</p></div>`,
      )
      .join('');
    const { records } = await draftRecords(
      `<html><body><div class="articles">${articles}</div></body></html>`,
      'tytuł, autor i liczba wyświetleń każdego artykułu',
    );
    expect(records.map((r) => r.wyswietlen)).toEqual([216, 555, 256]);
  });
});

describe('a floor area is no price', () => {
  it('leaves the price unanswered rather than taking the area, which answers the area', async () => {
    const homes = [
      ['Sagovägen 27', '60,5 kvm', 'Lägenhet'],
      ['Gästgivarvägen 62', '127 kvm', 'Villa'],
      ['Sjöbrings Väg 9', '62 kvm', 'Lägenhet'],
    ]
      .map(
        ([address, area, kind], i) => `<div class="card"><a href="/bostad/${i}"><figcaption>
        <div class="street">${address}</div><div class="facts"><span class="fact">${area}</span>
        <span>${kind}</span></div></figcaption></a></div>`,
      )
      .join('');
    const { records } = await draftRecords(
      `<html><body><div class="homes">${homes}</div></body></html>`,
      'adres, prijs en woonoppervlakte van elke woning',
    );
    expect(records[0].prijs).toBeUndefined();
    expect(records.map((r) => r.woonoppervlakte)).toEqual(['60,5 kvm', '127 kvm', '62 kvm']);
  });
});
