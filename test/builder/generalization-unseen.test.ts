// Abilities the Agent Builder needs on sites it was never tuned on, found on pages of sites new to the
// tuning set, each on a small page written here (the draft is proposed without an LLM and run by the
// engine's list extraction).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

describe('a byline opening with a verb before its "by"', () => {
  const post = `<html><body><header><a href="/">Blog</a></header><main>
    <h2 class="date-header"><span>Friday, December 23, 2016</span></h2>
    <div class="post"><h3 class="post-title">Release 3.6.0 is now available</h3>
      <div class="post-body"><p>The newest major release, with many new features and optimizations.</p></div>
      <div class="post-footer"><span class="post-author vcard">Posted by <span class="fn">Ada Lovelace</span></span>
      at <abbr class="published">5:11 AM</abbr></div></div></main></body></html>`;

  it('gives the author without "Posted by"', async () => {
    const { records } = await draftRecords(post, 'title, author and date of the post');
    expect(records).toEqual([
      { title: 'Release 3.6.0 is now available', author: 'Ada Lovelace', date: 'Friday, December 23, 2016' },
    ]);
  });
});

describe('records of one line whose name is carried by a part of the line', () => {
  const recipe = `<html><body><h1>Crêpes</h1><div class="ingredients"><ul>
    <li class="group">For the batter</li>
    <li><span class="ingredient">Milk : </span><span class="qty">25 cl</span></li>
    <li><span class="ingredient">Butter : </span><span class="qty">60 g</span></li>
    <li><span class="ingredient">Egg(s) : </span><span class="qty">1 piece(s)</span></li>
    <li><span class="ingredient">Wheat flour : </span><span class="qty">70 g</span></li>
    </ul></div><div class="steps"><p>Mix everything and let the batter rest for an hour.</p></div></body></html>`;

  it('gives each whole line when the prompt asks for the records alone', async () => {
    const { records } = await draftRecords(recipe, 'the ingredients of the recipe');
    expect(records.map((r) => String(Object.values(r)[0]).replace(/\s+/g, ' '))).toEqual([
      'Milk : 25 cl',
      'Butter : 60 g',
      'Egg(s) : 1 piece(s)',
      'Wheat flour : 70 g',
    ]);
  });
});

describe('a date opening with its weekday and giving its time after an "@"', () => {
  const article = `<html><body><nav><a href="/">Home</a></nav><div class="card">
    <h1 class="card-title">A small computer that costs only $35</h1>
    <div class="article-author"><i class="icon-user"></i> <span><a href="/latest?author=jw"><span>Jo Wee</span></a></span>
      <i class="icon-clock"></i> <span>Monday, February 29, 2016 @ 11:10 PM UTC</span></div>
    <div class="text"><p>The foundation started by a handful of volunteers has shipped eight million units.</p></div>
    </div></body></html>`;

  it('is read as the date, and the author box holding it gives the name alone', async () => {
    const { records } = await draftRecords(article, 'the title, author and date of the article');
    expect(records).toEqual([
      {
        title: 'A small computer that costs only $35',
        author: 'Jo Wee',
        date: 'Monday, February 29, 2016 @ 11:10 PM UTC',
      },
    ]);
  });
});

describe('a compound word of the prompt and a date after a label', () => {
  const preprint = `<html><body><nav><a href="/">Home</a></nav><main>
    <h1 id="page-title">Organization of fragments in free DNA</h1>
    <p class="authors">Ann Lee, Bo Chan</p>
    <div class="pane"><div class="pane-content">Posted&nbsp;July 11, 2019.</div></div>
    <div class="abstract"><p>Free DNA is a promising analyte for diagnostics, and its fragments show it.</p></div>
    </main></body></html>`;

  it('reads "Erscheinungsdatum" as a date, and the date without "Posted" and its full stop', async () => {
    const { records } = await draftRecords(preprint, 'Titel und Erscheinungsdatum des Preprints');
    expect(records).toEqual([{ titel: 'Organization of fragments in free DNA', erscheinungsdatum: 'July 11, 2019' }]);
  });
});

describe("a song's page: a label saying who did something, and a link classed for what it holds", () => {
  const song = `<html><body><nav><a href="/">Home</a></nav><main><div class="header">
    <h1 class="header-title">Purple Rain</h1>
    <h2><a href="/artists/prince" class="header-primary_artist">Prince and the Revolution</a></h2>
    <h3><div class="unit"><span class="unit-label">Produced by</span><span class="unit-info"><a href="/artists/p">Prince</a></span></div></h3>
    <h3><div class="unit"><span class="unit-label">Album</span><span class="unit-info"><a href="/albums/pr">Purple Rain</a></span></div></h3>
    </div><div class="lyrics"><p>I never meant to cause you any sorrow, I never meant to cause you any pain.</p></div></main></body></html>`;

  it('reads "Produced by" as the producer and the artist from its link, in the prompt\'s language too', async () => {
    const { records } = await draftRecords(song, 'el título, el artista, el productor y el álbum de la canción');
    expect(records).toEqual([
      { titulo: 'Purple Rain', artista: 'Prince and the Revolution', productor: 'Prince', album: 'Purple Rain' },
    ]);
  });
});

describe("an article's date inside its byline, before other dates of the page", () => {
  const article = `<html><body><nav><a href="/">Home</a></nav><article><header class="top">
    <h1 class="headline">Why the big players bet on games</h1>
    <div class="byline">By <a href="/author/6956/">Ann Lee</a> - Jan 9, 2017 at 10:05AM</div></header>
    <aside><div class="quote"><span class="ticker">ACME</span><div class="small">Price as of August 10, 2022, 1:20 p.m. ET</div></div></aside>
    <p>Some of the biggest players see huge potential in the reach of games streamed to millions.</p></article>
    </body></html>`;

  it('is read from the byline, without the words around it', async () => {
    const { records } = await draftRecords(article, 'the title, author and date of the article');
    expect(records).toEqual([
      { title: 'Why the big players bet on games', author: 'Ann Lee', date: 'Jan 9, 2017 at 10:05AM' },
    ]);
  });
});

describe('a date followed by words on a page without a byline', () => {
  const review = `<html><body><header class="site"><h1 class="logo">Gadgets</h1></header><main><header>
    <h1 class="title">A console that keeps up with gaming PCs</h1>
    <div class="meta"><a class="meta" href="/editors/ann/">Ann Lee</a></div>
    <div class="meta"> 11.03.17 in <a href="/tags/gadgetry/" class="topic">Gadgetry</a></div></header>
    <p>The most powerful console ever, but it is not for everyone yet, and it costs as much as a PC.</p></main></body></html>`;

  it('gives the date alone, read after the first heading', async () => {
    const { records } = await draftRecords(review, "le titre et la date de l'article");
    expect(records).toEqual([{ titre: 'A console that keeps up with gaming PCs', date: '11.03.17' }]);
  });
});

describe("a byline's opening word in an element of its own", () => {
  const article = `<html><body><nav><a href="/">Home</a></nav><main>
    <h1>Houston hires a new head coach</h1>
    <div class="article-meta"><a href="/User/Ann/" class="article-author" title="author"><span>By</span>Ann Lee</a>
      <span class="article-time"><time>Dec 9, 2016</time></span></div>
    <p>Houston has promoted its offensive coordinator to head coach, the school said on Friday.</p></main></body></html>`;

  it('is left out of the author', async () => {
    const { records } = await draftRecords(article, 'título, autor e data da notícia');
    expect(records).toEqual([{ titulo: 'Houston hires a new head coach', autor: 'Ann Lee', data: 'Dec 9, 2016' }]);
  });
});

describe('testimonials signed after a dash, nothing naming the signature', () => {
  const quotes = [
    ['Good for gas', 'Will Fuson', 'Smithville, Tennessee'],
    ['Easy to install', 'Shaun Gilligan', 'Unknown'],
    ['Blue Lava works', 'Smith and Stevenson', 'Charlotte, NC'],
    ['Stops the leaks', 'Aubrey Brand', 'Brand Plumbing, LLC'],
  ];
  const page = `<html><body><nav><a href="/">Home</a><a href="/about">About</a></nav><ol class="testimonials">${quotes
    .map(
      ([t, who, where], i) =>
        `<li><p class="tease">${t}</p><p>-${who} - ${where}</p><p><a href="t/${i}">Read More...</a></p></li>`,
    )
    .join('')}</ol></body></html>`;

  it('reads the signature as the author', async () => {
    const { records } = await draftRecords(page, 'the title and the author of each testimonial');
    expect(records.map((r) => r.author)).toEqual(quotes.map(([, who, where]) => `-${who} - ${where}`));
  });
});

describe('the line under a headline', () => {
  const article = `<html><body><nav><a href="/">Home</a></nav><main><article>
    <h1>Why the big players bet on games</h1>
    <div class="byline">By <a href="/a/1">Ann Lee</a> - Jan 9, 2017</div>
    <h2>NASDAQ: ACME</h2>
    <h2>Some of the biggest players see huge potential in the reach of games streamed to millions.</h2>
    <p>Games streamed online already have fantastic engagement, and the audience keeps growing every year.</p>
    </article></main></body></html>`;

  it('is the first sentence after it, whatever the prompt calls it', async () => {
    const { records } = await draftRecords(article, 'il titolo e il sottotitolo');
    expect(records).toEqual([
      {
        titolo: 'Why the big players bet on games',
        sottotitolo: 'Some of the biggest players see huge potential in the reach of games streamed to millions.',
      },
    ]);
  });
});

describe('a layout box whose class names the author', () => {
  const article = `<html><body><main><div class="grid article-author-ruler">
    <header class="grid-header"><nav class="crumbs"><ul><li class="crumb"><a class="crumb-link" href="/">Home</a></li></ul></nav>
    <h1>Boeing is told to rename its plane</h1></header>
    <div class="meta"><div class="author-byline"><p class="small">By <a href="/author/lm/"><span>Lisa Moraes</span></a></p></div>
    <time class="stamp">April 15, 2019 6:18am</time></div>
    <div class="body"><p>The president shared his branding advice on Monday morning, and the answers came at once from everywhere.</p>
    <p>Many of them were jokes, some were serious, and the company did not answer any of them by the evening.</p></div>
    </div></main></body></html>`;

  it('holds the whole article, so the author is read from the byline', async () => {
    const { records } = await draftRecords(article, 'Überschrift, Autor und Datum des Artikels');
    expect(records).toEqual([
      { uberschrift: 'Boeing is told to rename its plane', autor: 'Lisa Moraes', datum: 'April 15, 2019 6:18am' },
    ]);
  });
});
