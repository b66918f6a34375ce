// More abilities the Agent Builder needs on sites it was never tuned on, each on a small page written
// here (the draft is proposed without an LLM and run by the engine's list extraction): listings whose
// classes vary with each listing's kind or state, addresses and floor areas nothing labels, and a
// detail page whose subject is its heading and whose date no class names.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { draftRecords, PAGE_URL } from '../helpers/draft-records.js';
import { proposeDraft } from '../../src/services/builder/inference/draft.js';

const homes = [
  ['house for-sale', 'Birkenweg 12', 'Lindau', '450 000 kr', '120 kvm'],
  ['plot coming', 'Hauptgasse 3B', 'Borg', '95 000 kr', '800 kvm'],
  ['cottage for-sale', 'Kvarnbacken 41', 'Böda', '1 850 000 kr', '30 kvm'],
  ['house coming', 'Strandvägen 7', 'Kalmar', '2 995 000 kr', '69 kvm'],
  ['cottage for-sale', 'Löttorpsvägen 19D', 'Löttorp', '450 000 kr', '51.5 kvm'],
  ['farm for-sale', 'Ölandsgatan 120', 'Mörbylånga', '3 100 000 kr', '210 kvm'],
];

const listingsPage = `<html><body><nav><a href="/">Start</a><a href="/sell">Sell</a></nav>
  <div id="listings">${homes
    .map(
      ([kind, address, place, price, area], i) =>
        `<a class="listing mix ${kind}" href="/home/${i}"><div class="listing-body">
          <img src="/i/${i}.jpg" alt="${address}">
          <h2 class="listing-place">${place}</h2><span class="listing-price">${price}</span>
          <h3 class="listing-title">${address}</h3>
          <div class="facts"><div class="fact">${area}</div><div class="fact">3 rooms</div></div>
        </div></a>`,
    )
    .join('')}</div></body></html>`;

describe('listings whose classes vary with their kind or state', () => {
  it('reads every listing as one list, not the listings of one kind and state', async () => {
    const { records } = await draftRecords(listingsPage, 'price of every home');
    expect(records.map((r) => r.price)).toEqual([450000, 95000, 1850000, 2995000, 450000, 3100000]);
  });

  it('finds an address by its street name and house number, and a floor area by its unit', async () => {
    const { records } = await draftRecords(listingsPage, 'Adresse, Preis und Wohnfläche jedes Objekts');
    expect(records.map((r) => r.adresse)).toEqual(homes.map((h) => h[1]));
    expect(records.map((r) => r.wohnflache)).toEqual(homes.map((h) => h[4]));
  });
});

describe('a detail page', () => {
  const review = `<html><body><header class="site"><span class="stamp">June 1, 2019</span><a href="/">Home</a></header>
    <main><article><header>
      <h1>Lust for Youth</h1>
      <p>By <a href="/staff/larry">Larry Fitzmaurice</a></p>
      <ul><li><p class="key-x1">Genre:</p><p class="val-x2">Electronic</p></li>
        <li><p class="key-x1">Label:</p><p class="val-x2">Sacred Bones</p></li>
        <li><p class="key-x1">Reviewed:</p><p class="val-x2">June 7, 2019</p></li></ul>
    </header><p>The review's long text, about the album and its songs, in many words.</p></article>
    <aside><div class="ItemTag"><em>Compassion</em></div><div class="ItemTag"><em>International</em></div></aside>
    </main></body></html>`;

  it("reads the first thing asked for by a word naming no field from the page's heading", async () => {
    const { records } = await draftRecords(review, "l'album, le genre et le label");
    expect(records).toEqual([{ album: 'Lust for Youth', genre: 'Electronic', label: 'Sacred Bones' }]);
  });

  it("takes the first date of the page's content when no class names it, not a class ending in Tag", async () => {
    const { records } = await draftRecords(review, "l'album, le genre et la date");
    expect(records).toEqual([{ album: 'Lust for Youth', genre: 'Electronic', date: 'June 7, 2019' }]);
  });
});

describe('an article beside lists of other articles', () => {
  const others = (n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `<article class="card"><h3 class="card-title"><a href="/a/${i}">Another story number ${i} to read next</a></h3><time>2022.08.0${i + 1} 17:00</time></article>`,
    ).join('');
  const page = `<html><head><meta name="author" content="The Daily Site"><meta property="article:published_time" content="2019-04-19"></head><body>
    <header class="site"><ul class="menu"><li class="-tags"><a href="/tags">TAG</a></li></ul></header>
    <main><article class="post"><h1 class="post-title">スマートガシャポンが稼働開始</h1>
      <div class="wrote_by">By&nbsp;<a href="/people/kogure">Hisanori Kogure</a></div>
      <div class="when">2019.04.19 20:00</div>
      <div class="tags"><span class="label">TAG:</span><a href="/t/toy">おもちゃ</a>, <a href="/t/gadget">ガジェット</a></div>
      <p>The article's text, long enough to be the page's main content, about a capsule toy machine.</p>
    </article><div class="side">${others(5)}</div></main></body></html>`;

  it('reads the article as one record, its author and date as shown, and every tag', async () => {
    const { records } = await draftRecords(page, '文章的标题、作者、发布日期和标签');
    expect(records).toEqual([
      {
        title: 'スマートガシャポンが稼働開始',
        author: 'Hisanori Kogure',
        date: '2019.04.19 20:00',
        tags: ['おもちゃ', 'ガジェット'],
      },
    ]);
  });
});

describe('an employer nothing names', () => {
  it('is the value showing a legal form on many records', async () => {
    const jobs = [
      ['Senior JavaScript Developer', 'Pricefx s.r.o.', 'Praha'],
      ['Python developer', 'Alma Career Czechia', 'Brno'],
      ['Machine Learning Engineer', 'Melown Technologies SE', 'Praha'],
      ['Tester', 'Acme GmbH', 'Plzeň'],
    ];
    const html = `<html><body><div class="results">${jobs
      .map(
        ([t, c, l], i) =>
          `<article class="result"><h2><a href="/job/${i}">${t}</a></h2><ul class="foot"><li class="item"><span translate="no">${c}</span></li><li class="item" data-test="serp-locality">${l}</li></ul></article>`,
      )
      .join('')}</div></body></html>`;
    const { records } = await draftRecords(html, "le titre et l'entreprise de chaque offre");
    expect(records.map((r) => r.entreprise)).toEqual(jobs.map((j) => j[1]));
  });
});

describe('labels naming part of the words asked for', () => {
  it('matches "Preparazione" to "tempo di preparazione" and "Tempo totale" to "totale", a head noun asked again', async () => {
    const html = `<html><body><main><h1>Torta fredda al limone</h1>
      <dl><div class="time"><dt>Preparazione</dt><dd>40 minuti</dd></div>
      <div class="time"><dt>Cottura</dt><dd>5 minuti</dd></div>
      <div class="time"><dt>Tempo totale</dt><dd>45 minuti</dd></div></dl>
      <p>Una torta fredda, facile e veloce, da preparare il giorno prima e servire ben fredda.</p></main></body></html>`;
    const { records } = await draftRecords(
      html,
      'nome della ricetta, tempo di preparazione, tempo di cottura e tempo totale',
    );
    expect(records).toEqual([
      {
        nome: 'Torta fredda al limone',
        tempo_di_preparazione: '40 minuti',
        tempo_di_cottura: '5 minuti',
        totale: '45 minuti',
      },
    ]);
  });
});

describe('breadcrumbs', () => {
  it("are not the page's title: the headline opening the article is", async () => {
    const html = `<html><body><div id="main"><ol class="breadcrumbs" itemtype="https://schema.org/BreadcrumbList">
      <li><a href="/"><span itemprop="name">Startseite</span></a></li><li><h1 itemprop="name">Genetik: Rafflesien</h1></li></ol>
      <article class="content"><header><h2>Genetik: Das Geheimnis der Riesenblumen</h2>
      <div class="content__author">Christie Wilcox</div></header>
      <aside><ul><li class="content__meta__date">19.07.2022</li></ul></aside>
      <p>Der lange Text des Artikels über Pflanzen, die ohne Blätter und Wurzeln leben.</p></article>
      ${Array.from({ length: 4 }, (_, i) => `<div class="row teaser"><a href="/t/${i}">Ein anderer Artikel Nummer ${i}</a></div>`).join('')}
      </div></body></html>`;
    const { records } = await draftRecords(html, 'el título, el autor y la fecha del artículo');
    expect(records).toEqual([
      { titulo: 'Genetik: Das Geheimnis der Riesenblumen', autor: 'Christie Wilcox', fecha: '19.07.2022' },
    ]);
  });
});

describe('a page nested thousands of levels deep', () => {
  it('still gets a draft: the deepest content is read as its text, without recursion', async () => {
    const items = Array.from(
      { length: 4 },
      (_, i) => `<li class="item"><a href="/p/${i}">Product ${i}</a><span class="price">$${i}.99</span></li>`,
    ).join('');
    const depth = 5000;
    const html = `<html><body><ul class="list">${items}</ul>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}</body></html>`;
    const proposal = await proposeDraft({
      page: { $: load(html), url: PAGE_URL },
      prompt: 'name and price of each product',
      fetchPage: async () => null,
    });
    expect(proposal.definition.list.selector).toBe('li.item');
  });
});

describe("a job's own page beside lists of its duties", () => {
  it('is read as one record when elements of the page answer more fields than the lists do', async () => {
    const duties = (n: number) =>
      `<ul class="duties">${Array.from({ length: n }, (_, i) => `<li>Duty number ${i} of the role, described at length</li>`).join('')}</ul>`;
    const html = `<html><body><div class="job"><h1>Frontend Developer</h1>
      <div><span class="hidden">Company</span><p>Jobs Contact Personal, s.r.o.</p></div>
      <div><a data-test="jd-info-location" href="/map">Brno</a></div>
      ${duties(4)}${duties(4)}</div></body></html>`;
    const { records } = await draftRecords(html, 'la empresa y la ciudad de la oferta');
    expect(records).toEqual([{ empresa: 'Jobs Contact Personal, s.r.o.', ciudad: 'Brno' }]);
  });
});

describe('cards in grid rows', () => {
  it("reads every card of every row, though each row's first and last cards carry classes of their own", async () => {
    const people = [
      'Patrick Hiller',
      'Ken Snuggs',
      'Joe Corbett',
      'Steve White',
      'Tricia Dukes',
      'Tom Sellers',
      'Rob Wentz',
    ];
    const card = (name: string, cls: string) =>
      `<li class="${cls}"><a href="/team/${name.replace(' ', '-')}"><img src="/p/${name.replace(' ', '-')}.jpg"><span>${name}</span></a></li>`;
    const rows: string[] = [];
    for (let i = 0; i < people.length; i += 3) {
      const row = people.slice(i, i + 3);
      rows.push(
        `<ul class="clearfix">${row.map((n, j) => card(n, j === 0 ? 'columns three alpha' : j === 2 ? 'columns three omega' : 'columns three')).join('')}</ul>`,
      );
    }
    const menu = `<ul id="main-nav">${Array.from({ length: 30 }, (_, i) => `<li><a href="/s/${i}">Solution ${i}</a></li>`).join('')}</ul>`;
    const html = `<html><body>${menu}<section class="team"><h1>Executive Team</h1>${rows.join('')}</section></body></html>`;
    const { records } = await draftRecords(html, 'name and link of each executive');
    expect(records.map((r) => r.name)).toEqual(people);
  });
});

describe('addresses written number first', () => {
  it('finds the address of each listing by its house number, street words and street type', async () => {
    const homes = [
      ['377 W 11TH ST., #2F', '$3,250,000'],
      ['306 E 82ND ST., #1', '$2,550,000'],
      ['240 CENTRE ST., #5B', '$2,500,000'],
      ['308 W 72ND, #1GH', '$1,850,000'],
      ['12 Park Avenue', '$1,100,000'],
    ];
    const html = `<html><body><div class="listings">${homes
      .map(
        ([a, p], i) =>
          `<span class="listing"><div class="info"><div class="refL"><strong>${a}</strong><br><span>Upper East Side / Condo</span></div><div class="refR">${p}</div></div><img src="/i/${i}.jpg"></span>`,
      )
      .join('')}</div></body></html>`;
    const { records } = await draftRecords(html, 'la dirección y el precio de cada inmueble');
    expect(records.map((r) => r.direccion)).toEqual(homes.map((h) => h[0]));
  });
});

describe('a page laid out in tables, inside a box named like a menu', () => {
  it("reads the product cells of the products' table, not every cell or link of the page", async () => {
    const products = [
      'Scaffold Jeans',
      'Core Nick Lab Jeans',
      'Jagger Jeans',
      'Duke Jeans',
      'Scanton Jeans',
      'Jake Jeans',
    ];
    const cells = products
      .map((p, i) => `<td><a href="/p/${i}"><img src="/i/${i}.jpg" alt="${p}"><p>${p}</p></a>£${50 + i}.00</td>`)
      .join('');
    const links = Array.from({ length: 40 }, (_, i) => `<td><a href="/c/${i}">Category ${i}</a></td>`).join('');
    const text = 'A long description of the shop and its jeans, its brands and its history. '.repeat(8);
    const html = `<html><body><div id="nav-menu-top"><table><tr>${links}</tr></table>
      <table class="product"><tbody><tr>${cells}</tr></tbody></table><p>${text}</p></div></body></html>`;
    const { records } = await draftRecords(html, 'naam en link van elk product');
    expect(records.map((r) => r.naam)).toEqual(products);
  });
});

describe('a price written loose in the card', () => {
  it('is read from the record text by its currency when nothing holds it alone', async () => {
    const items = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="card"><a href="/p/${i}"><img src="/i/${i}.jpg"><p>Jeans model ${i}</p></a>£${50 + i}.50</div>`,
    ).join('');
    const html = `<html><body><div class="grid">${items}</div></body></html>`;
    const { records } = await draftRecords(html, 'name, price and link of each product');
    expect(records.map((r) => r.price)).toEqual([50.5, 51.5, 52.5, 53.5, 54.5, 55.5]);
  });
});

describe('a label only screen readers see', () => {
  it('is left out of the value of the box it opens', async () => {
    const html = `<html><body><div class="job"><h1>Frontend Developer</h1>
      <div class="JobSalaryBox"><svg></svg><span class="accessibility-hidden"> Salary </span><p>50 000 – 80 000 Kč</p></div>
      <p>About the role: a long description of the job and the team, in several sentences of text.</p></div></body></html>`;
    const { records } = await draftRecords(html, 'el salario de la oferta');
    expect(records).toEqual([{ salario: '50 000 – 80 000 Kč' }]);
  });
});

describe('records answering none of the fields asked for', () => {
  it('give way to smaller records that answer them, however much text they hold', async () => {
    const snippets = Array.from(
      { length: 30 },
      (_, i) =>
        `<div class="snippet">Article ${i}: ${'a long paragraph about jeans, their colour and their history. '.repeat(6)}</div>`,
    ).join('');
    const cards = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="card"><a href="/p/${i}"><img src="/i/${i}.jpg"><span class="name">Jeans model ${i}</span></a><span class="price">£${50 + i}.00</span></div>`,
    ).join('');
    const html = `<html><body><div class="grid">${cards}</div><div class="tabs">${snippets}</div></body></html>`;
    const { records } = await draftRecords(html, 'naam, prijs en link van elk product');
    expect(records.map((r) => r.naam)).toEqual(Array.from({ length: 6 }, (_, i) => `Jeans model ${i}`));
  });
});

describe("an author's box that also shows a date", () => {
  it('gives the name alone when an element inside holds it', async () => {
    const html = `<html><body><article><header><h1>Tarte à la rhubarbe</h1></header>
      <div class="recipe_author"><h3 class="recipe_author_name"><span class="link">Céline Mazur</span> 14/05/25</h3></div>
      <p>Une tarte fondante à la rhubarbe, avec ou sans meringue, facile à préparer.</p></article></body></html>`;
    const { records } = await draftRecords(html, "le nom et l'auteur de la recette");
    expect(records).toEqual([{ nom: 'Tarte à la rhubarbe', auteur: 'Céline Mazur' }]);
  });
});
