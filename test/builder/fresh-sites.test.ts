// Abilities found missing on pages of sites the tuning set had never seen (scored before any change), each
// on a small page written here: a prompt asking by question words, a colour asked for in one language and
// labelled in another, a district the same on every record of a search, an area with a short qualifier.
import { describe, expect, it } from 'vitest';
import { conceptOfValues } from '../../src/services/builder/inference/naming.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { aroundDate } from '../../src/services/builder/inference/date-shape.js';
import { namesTheSubject } from '../../src/services/builder/inference/missing.js';
import { draftRecords } from '../helpers/draft-records.js';

describe('a prompt asking by question words', () => {
  it('reads "who wrote", "when" and "where" in several languages as the author, the date and the place', () => {
    const asked = (prompt: string) => promptRequests(prompt).map((r) => `${r.word}:${r.concept ?? ''}`);
    expect(asked('¿Quién escribió el artículo, cuándo y con qué título?')).toEqual([
      'author:author',
      'date:date',
      'titulo:title',
    ]);
    expect(asked('Wann und wo?')).toEqual(['date:date', 'location:location']);
    expect(asked('quando e onde')).toEqual(['date:date', 'location:location']);
    expect(asked('who wrote each testimonial')[0]).toBe('author:author');
  });

  it('gives the author and the date of an article asked for by a question', async () => {
    const page = `<html><body><nav><a href="/">Inicio</a> <a href="/economia">Economía</a></nav><main>
      <h1>El puerto amplía su terminal de contenedores</h1>
      <p class="byline">Por <span class="author-name">Lucía Martín</span></p>
      <p class="published"><time datetime="2022-04-27">27 de abril de 2022</time></p>
      <p>La autoridad portuaria aprobó ayer la ampliación, que duplicará la capacidad de la terminal.</p>
      <p>Las obras empezarán en otoño y durarán dos años, según el plan presentado.</p>
      </main></body></html>`;
    const { records } = await draftRecords(page, '¿Quién escribió el artículo y cuándo?');
    expect(records).toEqual([{ author: 'Lucía Martín', date: '27 de abril de 2022' }]);
  });
});

describe('a colour asked for in one language and labelled in another', () => {
  const product = `<html><body><nav><a href="/">Shop</a></nav><main>
    <h1>Kleintierstall Natura</h1><span class="price">97,47 €</span>
    <dl class="specs"><dt>Marke</dt><dd>Trixie</dd><dt>Farbe</dt><dd>braun</dd><dt>Material</dt><dd>Holz</dd></dl>
    <p>Ein Stall mit Freigehege aus Kiefernholz, zweistöckig und leicht zu reinigen.</p></main></body></html>`;

  it('reads "colore" as the "Farbe" label', async () => {
    const { records } = await draftRecords(product, 'nome e colore del prodotto');
    expect(records).toEqual([{ nome: 'Kleintierstall Natura', colore: 'braun' }]);
  });
});

describe('a search for one district, whose records all repeat it', () => {
  const card = (street: string, price: string, area: string) => `<div class="card">
      <div class="price">${price}</div><div class="address">${street}</div>
      <h2 class="posting-location-text">Trindade, Florianópolis</h2>
      <div class="features"><span>${area}</span><span>2 quartos</span><span>1 vaga</span></div>
      <a href="/imovel/${street.replace(/\s/g, '-')}">Ver anúncio</a></div>`;
  const page = `<html><body><h1>Apartamentos à venda em Trindade</h1><div class="results">
    ${card('Lauro Linhares 1815', 'R$ 947.959', '100 m² tot.')}
    ${card('Rua Gama Rosa 269', 'R$ 850.000', '136 m² tot.')}
    ${card('Augusto Pires 38', 'R$ 920.000', '137 m² tot.')}
    ${card('Rua Lauro 77', 'R$ 550.000', '95 m² tot.')}
    </div></body></html>`;

  it('keeps the district classed as a location, and reads an area followed by a qualifier', async () => {
    const { records } = await draftRecords(page, 'endereço, bairro e área de cada apartamento');
    expect(records.slice(0, 2)).toEqual([
      { endereco: 'Lauro Linhares 1815', bairro: 'Trindade, Florianópolis', area: '100 m² tot.' },
      { endereco: 'Rua Gama Rosa 269', bairro: 'Trindade, Florianópolis', area: '136 m² tot.' },
    ]);
  });

  it('reads a number and its unit with a short qualifier after it as an area', () => {
    expect(conceptOfValues(['100 m² tot.', '136 m² tot.'])).toBe('area');
    expect(conceptOfValues(['85 m² útil', '120 m² útil'])).toBe('area');
    expect(conceptOfValues(['120 m² Wohnung mit Balkon', '80 m² Altbau mit Garten'])).toBeUndefined();
  });
});

describe("a date written with its month's name in French, Spanish, Portuguese, Italian or Dutch", () => {
  it('is read as a date', () => {
    for (const v of [
      '19 février 2020',
      '1er mars 2020',
      '27 de Abr de 2022',
      '3 de maio de 2022',
      '3 maggio 2020',
      '12 mei 2021',
    ])
      expect(conceptOfValues([v]), v).toBe('date');
    expect(conceptOfValues(['5 out of 2020'])).toBeUndefined();
  });
});

describe('a prompt whose fields all belong to "this" thing named in two words', () => {
  const turn = (who: string, at: string, said: string) =>
    `<div class="turn"><span class="speaker">${who}</span> <span class="at">${at}</span><p>${said}</p></div>`;
  const page = `<html><body><nav><a href="/">Home</a> <a href="/podcasts">Podcasts</a></nav><main>
    <h1>Growing a product after launch</h1><p class="meta"><time datetime="2017-10-11">October 11, 2017</time></p>
    <h3>Transcript</h3><div class="transcript">
    ${turn('Ada Lovelace', '7s', 'Welcome to the show, today we talk about what happens after a launch.')}
    ${turn('Alan Turing', '1m 2s', 'Thanks for having me, it is good to be here.')}
    ${turn('Ada Lovelace', '1m 9s', 'Can you tell us how the first customers found you?')}
    ${turn('Alan Turing', '1m 30s', 'Mostly by word of mouth, and a post that was shared a lot.')}
    </div></main></body></html>`;

  it('takes the kind word before the noun for part of the thing, not for a field', () => {
    expect(namesTheSubject('title and date of this podcast episode', 'podcast')).toBe(true);
    expect(namesTheSubject('title and date of this podcast episode', 'title')).toBe(false);
    expect(namesTheSubject('Titel und Datum dieser Podcast Folge', 'podcast')).toBe(true);
  });

  it('reads the page as that one thing, not its transcript as records', async () => {
    const { records } = await draftRecords(page, 'title and date of this podcast episode');
    expect(records).toEqual([{ title: 'Growing a product after launch', date: 'October 11, 2017' }]);
  });
});

describe('a time of day written before the date, or after it with the word for "at" of another language', () => {
  it('is part of the date', () => {
    expect(aroundDate('14:40, Feb 17 2021')?.date).toBe('14:40, Feb 17 2021');
    expect(aroundDate('Thursday, October 9, 2025 в 16:43')?.date).toBe('Thursday, October 9, 2025 в 16:43');
    expect(aroundDate('Score 3:2, May 5 2020')?.date).toBe('May 5 2020');
  });

  it('is kept in the date of an article', async () => {
    const page = `<html><body><nav><a href="/">News</a></nav><article>
      <h1>Newcomer leads the by-election count</h1>
      <p class="byline"><span class="author">Jo Wee</span> <span class="date">14:40, Feb 17 2021</span></p>
      <p>The first results put the newcomer ahead of the established candidates by a wide margin.</p>
      </article></body></html>`;
    const { records } = await draftRecords(page, 'title, author and date of the article');
    expect(records).toEqual([
      { title: 'Newcomer leads the by-election count', author: 'Jo Wee', date: '14:40, Feb 17 2021' },
    ]);
  });
});

describe("the site's name marked up as a headline in the page's header", () => {
  const page = `<html><body><header><p class="site-title" itemprop="headline"><a href="https://example.com/" rel="home">Exchange Club</a></p>
    <nav><a href="/news">News</a> <a href="/club">Club</a></nav></header>
    <main><article><h1 class="entry-title" itemprop="headline">Minutes of the board meeting of 10 October 2019</h1>
    <p>Present: three members of the board. The minutes of the last meeting were accepted.</p></article></main>
    </body></html>`;

  it("is not the page's title: the article's headline is", async () => {
    const { records } = await draftRecords(page, 'the title of the page');
    expect(records).toEqual([{ title: 'Minutes of the board meeting of 10 October 2019' }]);
  });
});

describe('a class naming dates that a list of related stories carries', () => {
  const related = (title: string, date: string) =>
    `<li><a href="/${title.length}">${title}</a><div class="date">${date}</div></li>`;
  const page = `<html><body><nav><a href="/">News</a></nav><div class="sidebar"><ul>
    ${related('The court hears the first witnesses', '16:43 October 9, 2025')}
    ${related('Budget vote moved to next week', '20:17 January 28, 2025')}
    ${related('Ports reopen after the storm', '14:57 December 30, 2024')}
    </ul></div><main><h1>The court hears the first witnesses</h1>
    <ul class="meta"><li>Thursday, October 9, 2025 at 16:43</li></ul>
    <p>The hearing opened with the statements of two officials who signed the decree.</p></main></body></html>`;

  it("gives way to the date after the page's heading", async () => {
    const { records } = await draftRecords(page, 'the headline and the date');
    expect(records).toEqual([
      { headline: 'The court hears the first witnesses', date: 'Thursday, October 9, 2025 at 16:43' },
    ]);
  });
});

describe("an element holding a field's own word alone", () => {
  it('is the label of an infobox value, and the footnote marks after the value are left out', async () => {
    const page = `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","name":"Water-Making Spell"}</script></head>
      <body><nav><a href="/">Wiki</a></nav><main><h1>Water-Making Spell</h1>
      <aside class="infobox"><div class="item"><h3 class="item-label">Light</h3><div class="item-value">Icy blue<sup><a href="#cite-1">[1]</a></sup></div></div>
      <div class="item"><h3 class="item-label">Effect</h3><div class="item-value">Conjures <a href="/water">water</a><sup><a href="#cite-2">[2]</a></sup></div></div></aside>
      <p>The spell conjures clean, drinkable water from the end of the wand.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'name, light and effect of the spell');
    expect(records).toEqual([{ name: 'Water-Making Spell', light: 'Icy blue', effect: 'Conjures water' }]);
  });

  it('is the label beside a count: the count is read with it', async () => {
    const page = `<html><head><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a></nav>
      <main><h1>Before and after product-market fit</h1>
      <div class="voter"><div class="voter-count">13</div>
        <div class="voter-label">votes</div></div>
      <p>A conversation about finding the first customers and what changed afterwards.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'title and votes of this episode');
    expect(records.map((r) => ({ ...r, votes: String(r.votes).replace(/\s+/g, ' ') }))).toEqual([
      { title: 'Before and after product-market fit', votes: '13 votes' },
    ]);
  });
});

describe('tags shown as chips, each wrapping one link', () => {
  const page = `<html><head><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a></nav><main>
    <h1>This bowl has been setting things on fire</h1><p>The mirrored bowl focused the sun on a bunch of grapes.</p>
    <div class="tags"><span class="tag"><a href="/t/threats">minor threats</a></span><span class="tag"><a href="/t/fire">fire</a></span><span class="tag"><a href="/t/news">news</a></span></div>
    </main></body></html>`;

  it('gives every tag', async () => {
    const { records } = await draftRecords(page, 'title and tags of the article');
    expect(records).toEqual([
      { title: 'This bowl has been setting things on fire', tags: ['minor threats', 'fire', 'news'] },
    ]);
  });
});

describe("an author's box that also shows the author's email address", () => {
  const page = `<html><body><nav><a href="/">Inicio</a></nav><main>
    <h1>El espacio físico determina la dinámica del trabajo</h1>
    <div class="author"><ul><li><span>Por</span> <strong class="author-name">María Reina</strong><a href="mailto:maria.reina@example.com"><span class="author-email">maria.reina@example.com</span></a></li></ul></div>
    <p>La oficina nunca será el reemplazo del hogar, pero existen principios que las empresas pueden considerar.</p>
    </main></body></html>`;

  it('gives the name alone', async () => {
    const { records } = await draftRecords(page, 'título y autor del artículo');
    expect(records).toEqual([{ titulo: 'El espacio físico determina la dinámica del trabajo', autor: 'María Reina' }]);
  });
});
