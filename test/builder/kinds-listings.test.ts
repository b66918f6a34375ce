// Listings of kinds the corpus had few of (real estate cards, site search results, directories), each
// ability on a small page written here: cards whose inner layout shares the layout's class name.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

describe('cards inside a layout that reuses their class name', () => {
  // Grid rows ("div.row") around the content, around each card and inside each card: no thread of
  // replies, and the three cards are the records, not the six blog teasers below them.
  const card = (place: string, price: string, area: number, i: number) => `
    <div class="row row--listing"><div class="card"><div class="row row--listing">
      <div class="photo"><img src="/p${i}.jpg" alt="Flat in ${place}"></div>
      <section class="content"><a class="link" href="/offer/${i}"><div class="row">
        <h2 class="card-title">${place}</h2><p class="price">${price}</p></div></a>
        <ul class="params"><li><b>${area}</b> m²</li><li>floor ${i}</li></ul>
        <p class="text">A bright flat of ${area} square metres close to the park and the tram stop.</p></section>
    </div></div></div>`;
  const teaser = (i: number) => `<div class="teaser"><a href="/blog/${i}"><img src="/b${i}.jpg"></a>
    <p class="teaser-title">Advice for buyers, part ${i}</p><p class="teaser-text">What to check before signing a
    contract for a flat: the land register, the building's repair fund and the neighbours, part ${i}.</p></div>`;
  const page = `<html><body><div class="container"><div class="row"><section>
    ${card('Kraków, Podgórze', '394 000 zł', 74, 1)}${card('Kraków, Dębniki', '354 000 zł', 34, 2)}
    ${card('Bytom, Centrum', '162 000 zł', 65, 3)}</section></div>
    <div class="blog">${[1, 2, 3, 4, 5, 6].map(teaser).join('')}</div></div></body></html>`;

  it('reads the place from the heading when no name is asked for', async () => {
    const { records } = await draftRecords(page, 'location, price, area and link of each flat');
    expect(records.map((r) => r.location)).toEqual(['Kraków, Podgórze', 'Kraków, Dębniki', 'Bytom, Centrum']);
  });

  it('reads the three cards', async () => {
    const { records } = await draftRecords(page, 'price, area and link of each flat');
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({ price: 394000, link: 'https://example.com/offer/1' });
  });
});

describe('site search results', () => {
  const games = [
    ['Casino Heist', '14 Oct, 2016', 468],
    ['Poker Night', '1 Jun, 2015', 32],
    ['Slots Paradise', '27 Dec, 2016', 1207],
    ['Blackjack Deluxe', '3 Mar, 2017', 75],
  ] as const;
  const page = `<html><body><h1>Search</h1><div id="results">${games
    .map(
      ([name, date, downloads], i) => `<a class="result-row" href="/app/${i}/"><img src="/c${i}.jpg">
      <div class="col name"><span class="title">${name}</span></div><div class="col released">${date}</div>
      <span class="downloads">${downloads}</span></a>`,
    )
    .join('')}</div></body></html>`;

  it('reads "every game found" as the records, not as a field', async () => {
    const { records, proposal } = await draftRecords(page, 'title and link of every game found');
    expect(proposal.notes.join(' ')).not.toMatch(/found" not found/);
    expect(records[0]).toMatchObject({ title: 'Casino Heist', link: 'https://example.com/app/0/' });
    const spanish = await draftRecords(page, 'nombre y enlace de cada juego encontrado');
    expect(spanish.proposal.notes.join(' ')).not.toMatch(/encontrado" not found/);
  });

  it('reads a date written day, month, comma, year', async () => {
    const { records } = await draftRecords(page, 'name and release date of each game');
    expect(records.map((r) => r.release_date)).toEqual(games.map((g) => g[1]));
  });

  it('reads a count of downloads asked for in another language through the class naming it', async () => {
    const { records } = await draftRecords(page, 'nombre y descargas de cada juego');
    expect(records[2]).toMatchObject({ nombre: 'Slots Paradise', descargas: '1207' });
  });
});

describe('records in two shapes taking turns', () => {
  // Entries with a photo wrap their text in a classed box beside it; entries without one use a bare box.
  const people = ['Anna Berg', 'Jonas Weil', 'Marta Ruiz', 'Paul Okafor', 'Ida Lund', 'Tom Hale', 'Eva Stern'];
  const withPhoto = [true, false, true, true, false, true, false];
  const entry = (name: string, i: number) => {
    const text = `<div class="obit-text">${name} passed away peacefully at home, surrounded by family.</div>
      <div class="links"><a class="guestbook" href="/gb/${i}">Sign the guest book</a></div>
      <div class="published">Published in The Daily Courier on March ${i + 1}, 2017</div>`;
    return `<div class="entry"><div class="top"><div class="obit-name"><a href="/obit/${i}">${name}</a></div></div>
      ${withPhoto[i] ? `<div class="obit-section"><div class="photo"><img src="/p${i}.jpg"></div>${text}</div>` : `<div>${text}</div>`}
      </div>`;
  };
  const page = `<html><body><h1>Obituaries</h1><div id="listings">${people.map(entry).join('')}</div></body></html>`;

  it('reads every entry, with or without a photo, and the value inside either wrapper', async () => {
    const { records } = await draftRecords(page, 'name, link and publication details of each obituary');
    expect(records).toHaveLength(7);
    expect(records.map((r) => r.publication)).toEqual(
      people.map((_, i) => `Published in The Daily Courier on March ${i + 1}, 2017`),
    );
  });
});

describe('values of search results', () => {
  const results = [
    ['Welcome to the civil society site', '01 Mar 2016', 'Consultations, documents and links for citizens.'],
    ['Europe 2020 and civil society', '18 Feb 2016', 'The strategy depends on the involvement of all.'],
    ['Forum on drugs policy', '31 Mar 2016', 'The forum brings organisations and experts together.'],
  ];
  const page = `<html><body><ul class="results">${results
    .map(
      ([title, date, text], i) => `<li><h3 class="res-title"><a href="/doc/${i}">${title}</a></h3>
      <div class="res-date">${date} - </div><div class="res-text">${text}
      <div class="extras"><a href="/doc/${i}#context">In Context</a> | <a href="/doc/${i}/full">Full Text</a></div></div></li>`,
    )
    .join('')}</ul></body></html>`;

  it('reads a date without the dash the layout leaves after it', async () => {
    const { records } = await draftRecords(page, 'title, link and date of each search result');
    expect(records.map((r) => r.date)).toEqual(results.map((r) => r[1]));
  });

  it('reads a text without the row of links ending its box', async () => {
    const { records } = await draftRecords(page, 'title and text of each search result');
    expect(records.map((r) => r.text)).toEqual(results.map((r) => r[2]));
  });
});

describe('a directory asked for both a place and an address', () => {
  const shops = [
    ['New Castle', 'Argyll', '8170 50 St NW, Edmonton, AB T6B1E6'],
    ['Tan Tan', 'Downtown', '10133 97 Street NW, Edmonton, AB T5H3V5'],
    ['Way Pizza', 'Northeast', '13128 66 St, Edmonton, AB'],
  ];
  const page = `<html><body><div class="results">${shops
    .map(
      ([name, zone, address], i) => `<div class="card"><a class="result-title" href="/r/${i}">${name}</a>
      <a class="subzone" href="/zone/${i}"><b>${zone}</b></a><div class="rating">3.${i}</div>
      <div class="search-result-address">${address}</div></div>`,
    )
    .join('')}</div></body></html>`;

  it('gives the address to the address, not to the place asked for first', async () => {
    const { records } = await draftRecords(page, 'name, neighbourhood and address of each restaurant');
    expect(records.map((r) => r.address)).toEqual(shops.map((s) => s[2]));
    expect(records.map((r) => r.neighbourhood)).not.toEqual(shops.map((s) => s[2]));
  });
});

describe('news found by a site search', () => {
  const stories = [
    ['Giants eye super club status', 'Adrian Warren', 'February 18, 2017'],
    ['Wolfsburg sign midfielder on free transfer', 'PA Sport', 'January 30, 2017'],
    ['Club appoints security officer', 'ESPN staff', 'January 18, 2017'],
  ];
  const page = `<html><body><ul class="results">${stories
    .map(
      ([title, by, date], i) => `<li class="result"><h3><a href="/story/${i}">${title}</a></h3><div>
      <cite>${by}</cite><p>The club said on Monday that the plans had been in the making for a year.</p>
      <span><a href="/story/${i}">Story</a> | <a href="/talk/${i}">Conversation</a> | ${date}</span></div></li>`,
    )
    .join('')}</ul></body></html>`;

  it('reads the date at the end of a line of links, and the credited source as the author', async () => {
    const { records } = await draftRecords(page, 'headline, author and date of each article');
    expect(records.map((r) => r.date)).toEqual(stories.map((s) => s[2]));
    expect(records.map((r) => r.author)).toEqual(stories.map((s) => s[1]));
  });
});

describe('cards with a hover box and names cut short', () => {
  const mods = ['Shouts in dragon tongue - French translation', 'Dragonborn Village', 'Conjure Dragon Priest Ghost'];
  const short = (n: string) => (n.length > 22 ? `${n.slice(0, 22)}...` : n);
  const page = `<html><body><ul class="mods">${mods
    .map(
      (name, i) => `<li class="popbox"><a class="image" href="/mods/${i}/gallery"><span class="likes">${i + 3}</span>
      <img src="/m${i}.jpg" alt="${name}"></a><div class="bubble" style="display:none"><div class="heading-wrap">${name}</div>
      <div>A mod that changes the game in a small way, number ${i}.</div></div>
      <a class="title" href="/mods/${i}" title="${name}">${short(name)}</a><br><span>by</span> <a class="user" href="/u/${i}">user${i}</a></li>`,
    )
    .join('')}</ul></body></html>`;

  it("gives the link around the shown title, not the image's nor none for the hidden full name", async () => {
    const { records } = await draftRecords(page, 'name and link of each mod');
    expect(records.map((r) => r.link)).toEqual(mods.map((_, i) => `https://example.com/mods/${i}`));
  });
});

describe('a value classed with a state class more in some records', () => {
  const papers = [
    ['Implicit beliefs of students', 'A. Flanigan, M. Peteranetz', true],
    ['Ontology methods for data skills', 'S. Chuprina, V. Alexandrov', false],
    ['Risk analysis of landfill leachate', 'T. Butt, A. Alam, H. Gouda', true],
    ['Effects of secondary education', 'Ahlam Lee', false],
  ] as const;
  const page = `<html><body><ol class="results">${papers
    .map(
      ([title, authors, open], i) => `<li class="detail"><ul class="article"><li class="title"><h2>
      <a class="art-title" href="/pii/${i}">${title}</a></h2></li><li class="source">Journal of Studies, Volume ${i + 3}</li>
      <li class="author-txt${open ? ' open-access' : ''}">${authors}</li></ul></li>`,
    )
    .join('')}</ol></body></html>`;

  it('reads the value of every record, whichever its state', async () => {
    const { records } = await draftRecords(page, 'title and authors of each paper');
    expect(records.map((r) => r.authors)).toEqual(papers.map((p) => p[1]));
  });
});
