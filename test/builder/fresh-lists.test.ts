// Abilities found missing on list pages of sites the tuning set had never seen (scored before any change),
// each on a small page written here: a price written after an ISO currency code, cards laid out two to a
// grid row whose classes carry each card's own id, a count of views inside a line of other values or
// after a label, and a floor area that is no price.
import { describe, expect, it } from 'vitest';
import { conceptOfValues } from '../../src/services/builder/inference/naming.js';
import { draftRecords } from '../helpers/draft-records.js';

describe('a price written after an ISO currency code', () => {
  it('reads "CAD 247.94" and "Sale AUD 34.42" as prices', () => {
    expect(conceptOfValues(['CAD 247.94', 'CAD 51.66', 'CAD 19.99'])).toBe('price');
    expect(conceptOfValues(['Sale AUD 34.42', 'Sale AUD 12.00'])).toBe('price');
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
