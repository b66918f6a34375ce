// What an article's header says about it, read as pages show it: the section named above the headline,
// the headline rather than the metadata's title with the site's name, the byline after the headline and
// the name inside it, a date with its weekday, a machine date's shown text, a label in the value's own
// text, the sentence under the headline as its summary; and a prompt naming the one article it asks about
// read as that article, not as the list beside it.
import { describe, expect, it } from 'vitest';
import { aroundDate } from '../../src/services/builder/inference/date-shape.js';
import { tokenWords } from '../../src/services/builder/inference/naming.js';
import { namesOneOwner, namesOneThing } from '../../src/services/builder/inference/list-cue.js';
import { draftRecords } from '../helpers/draft-records.js';

const menu = `<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a>
  <a href="/tech">Tech</a> <a href="/travel">Travel</a> <a href="/money">Money</a> <a href="/about">About</a></nav>`;
const body = `<p>The council approved the plan on Monday after a long debate about its costs and its timing.</p>
  <p>Work on the new bridge starts in spring and should take two years, the city said in a statement.</p>`;

describe('the section named above the headline', () => {
  it('reads a short link right above the headline as the category, not a box classed for categories', async () => {
    const page = `<html><body>${menu}<div class="category-menu"><a href="/c/a">Accounting</a> <a href="/c/f">Finance</a>
      <a href="/c/m">Marketing</a> <a href="/c/s">Sales</a> <a href="/c/h">Human resources</a> <a href="/c/l">Legal</a></div>
      <main><a href="/news/city-life/">City Life</a><h1>A new bridge for the old town</h1>
      <p class="byline">By <a href="/author/ann">Ann Lee</a></p>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'title, author and category of the article');
    expect(records).toEqual([{ title: 'A new bridge for the old town', author: 'Ann Lee', category: 'City Life' }]);
  });

  it("keeps a series' own colon in its name", async () => {
    const page = `<html><body>${menu}<main><div class="labels"><a href="/series/seascape"><span>Seascape: the state of our oceans</span></a></div>
      <h1>Tribes fearful over whale strandings</h1>${body}<div class="submeta-section">Seascape: the state of our oceans and more</div></main></body></html>`;
    const { records } = await draftRecords(page, 'headline and section of the article');
    expect(records).toEqual([
      { headline: 'Tribes fearful over whale strandings', section: 'Seascape: the state of our oceans' },
    ]);
  });

  it('reads the last step of a breadcrumb trail as the section, and no item of the site menu', async () => {
    const trail = `<html><body>${menu}<nav class="trail"><a href="/">Accueil</a> › <a href="/justice"><span>Justice et faits divers</span></a></nav>
      <article><h1>Un juge se récuse</h1>${body}</article></body></html>`;
    const { records } = await draftRecords(trail, 'le titre et la rubrique de l’article');
    expect(records).toEqual([{ titre: 'Un juge se récuse', rubrique: 'Justice et faits divers' }]);
    const none = `<html><body>${menu}<article><h1>Un juge se récuse</h1>${body}</article></body></html>`;
    expect((await draftRecords(none, 'le titre et la rubrique de l’article')).records).toEqual([
      { titre: 'Un juge se récuse' },
    ]);
  });
});

describe('the headline, the byline and the date of an article', () => {
  it('takes the headline, not the metadata title that adds the site name', async () => {
    const page = `<html><head><meta property="og:title" content="A new bridge for the old town - Daily Planet">
      <meta property="og:type" content="article"></head><body>${menu}<main><h1>A new bridge for the old town</h1>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the headline of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town' }]);
  });

  it('takes the name inside a byline that also shows a date and a count of comments', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>
      <p class="byline"><span>by</span> <a class="who" href="/author/ann">Ann Lee</a><span class="when">22 Dec 2016</span><a href="#comments">651</a></p>
      ${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'headline and author of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', author: 'Ann Lee' }]);
  });

  it("takes the byline after the headline in the headline's own header, not a story's byline above it", async () => {
    const page = `<html><body><div class="top-story"><a href="/other">A story of yesterday</a>
      <div class="meta">By <a href="/author/joe">Joe Roe</a></div></div>
      <header class="story"><h1>A new bridge for the old town</h1><div>By <a href="/author/ann">Ann Lee</a> on <time>December 13, 2016</time></div></header>
      <main>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'headline and author of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', author: 'Ann Lee' }]);
  });

  it('reads a weekday before a date and a time after a colon as part of the date', () => {
    expect(aroundDate('Tuesday 15 October 2019 by Bradley M. Kuhn')?.date).toBe('Tuesday 15 October 2019');
    expect(aroundDate('February 1, 2016: 12:41 PM ET')?.date).toBe('February 1, 2016: 12:41 PM ET');
  });

  it('gives the date the page shows, not the machine form in its attribute', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>
      <time itemprop="datePublished" content="2016-11-18">November 18, 2016</time>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'title and date of the article');
    expect(records).toEqual([{ title: 'A new bridge for the old town', date: 'November 18, 2016' }]);
  });

  it('takes the date after the headline before a date classed so inside a link to another story', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1><div class="info">December 16, 2016, 4:19 PM</div>
      ${body}<aside><a href="/other"><span>Council votes on the budget</span><span class="pubDate">1 hour ago</span></a></aside>
      </main></body></html>`;
    const { records } = await draftRecords(page, 'title and date of the article');
    expect(records).toEqual([{ title: 'A new bridge for the old town', date: 'December 16, 2016, 4:19 PM' }]);
  });

  it('reads a label of several words before a colon in a paragraph as the field of those words', async () => {
    const page = `<html><body>${menu}<main><h1>2021-2022 Line Outline</h1><p>Ski: 2021-2022 Line Outline, 186 cm</p>
      <p>Stated Weight per Ski: 2030 grams</p><p>Stated Dimensions: 150-117-142 mm</p><p>Core: Paulownia/Maple</p>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'title, stated dimensions and core of the reviewed ski');
    expect(records).toEqual([
      { title: '2021-2022 Line Outline', stated_dimensions: '150-117-142 mm', core: 'Paulownia/Maple' },
    ]);
  });

  it('takes a value off the label written before it in the same text ("著者：", "Autor:")', async () => {
    const page = `<html><body>${menu}<main><h1>Die neue Brücke</h1><p><a href="/autor/max">Autor: Max Muster</a></p>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'Titel und Autor des Artikels');
    expect(records).toEqual([{ titel: 'Die neue Brücke', autor: 'Max Muster' }]);
  });
});

describe('the summary and the author an article gives in its own ways', () => {
  it('takes the sentence under the headline as the summary, not a wrapper holding the headline or a caption', async () => {
    const page = `<html><body>${menu}<main><div class="article-text"><h1>A new bridge for the old town</h1>
      <p class="standfirst-x">The council approved a plan that has divided the town for ten years.</p>
      <figure><img src="/b.jpg"><div class="image-text">The old bridge over the river, seen from the north bank at dusk.</div></figure>
      <p class="para">The council approved the plan on Monday after a long debate about its costs, its timing and the many
      objections of the people who live beside the river and fear the noise of the works.</p></div></main></body></html>`;
    const { records } = await draftRecords(page, 'headline and summary of the article');
    expect(records).toEqual([
      {
        headline: 'A new bridge for the old town',
        summary: 'The council approved a plan that has divided the town for ten years.',
      },
    ]);
  });

  it("leaves the web address after an author's name in a meta tag out", async () => {
    const page = `<html><head><meta name="author" content="Bradley M. Kuhn (http://ebb.org/bkuhn/)"></head><body>${menu}
      <main><h1>On recent events</h1><p>Tuesday 15 October 2019 by Bradley M. Kuhn</p>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'title, author and date of the blog post');
    expect(records).toEqual([
      { title: 'On recent events', author: 'Bradley M. Kuhn', date: 'Tuesday 15 October 2019' },
    ]);
  });
});

describe('a prompt naming the one article it asks about', () => {
  it('reads "... of the news article" as one thing', () => {
    expect(namesOneThing('title, author, date and category of the news article')).toBe(true);
    expect(namesOneThing('title and date of the news articles')).toBe(false);
    expect(namesOneThing('title and date of every article')).toBe(false);
    // A place the records are in is not the thing that owns the fields.
    expect(namesOneOwner('le titre et la rubrique de l’article')).toBe(true);
    expect(namesOneOwner('product name and price of everything in the shop')).toBe(false);
  });

  it('reads the page as the article when the list beside it answers no more of the fields', async () => {
    const related = (t: string, d: string) =>
      `<li><a class="rel" href="/r/${d}"><span class="cat">Security</span><h3>${t}</h3><span class="when">${d} hours ago</span></a></li>`;
    const page = `<html><body>${menu}<nav class="trail"><a href="/">Home</a> <a href="/security">Security</a></nav>
      <main><article><h1>Archiver flaw lets attackers run code</h1><time>2019/02/22 17:23</time>
      <p><a href="/writer/goto">Author: Daichi Goto</a></p>${body}</article>
      <ul class="related">${related('Attacks on game sites double', '11')}${related('Packages steal credentials', '12')}
      ${related('Patch day brings fixes', '13')}${related('Routers open to takeover', '14')}</ul></main></body></html>`;
    const { records } = await draftRecords(page, 'title, author, date and category of the news article');
    expect(records).toEqual([
      {
        title: 'Archiver flaw lets attackers run code',
        author: 'Daichi Goto',
        date: '2019/02/22 17:23',
        category: 'Security',
      },
    ]);
  });
});

describe("the date in the headline's own header", () => {
  it('is the permalink beside the headline, not a relative date in a footer further down', async () => {
    const comments = Array.from(
      { length: 3 },
      (_, i) =>
        `<div class="comment"><p>Comment ${i} on the episode, long enough.</p><div class="footer"><span class="footer__date">3 years ago</span></div></div>`,
    ).join('');
    const html = `<html><body><div class="post-page"><header class="post-page__header"><div class="meta">
      <a href="/podcasts" class="eyebrow">The Podcast</a>
      <a href="/podcast/032-segment" class="active post-page__date">October 11, 2017</a></div>
      <h1 class="post-page__title">Before and After Product-Market Fit</h1></header>
      <div class="body"><p>${'A conversation about finding product-market fit. '.repeat(8)}</p></div>
      <div class="thread">${comments}</div></div></body></html>`;
    const { records } = await draftRecords(html, 'title and date of this podcast episode');
    expect(records).toEqual([{ title: 'Before and After Product-Market Fit', date: 'October 11, 2017' }]);
  });
});

describe('the subheadline', () => {
  it("is the element under the headline showing the page's own description, before a caption classed as a subtitle", async () => {
    const html = `<html><head><meta name="og:description" value="We have answers."></head><body><article>
      <h1 class="max-w-5xl">What is the metaverse, and should you care?</h1><div class="leading-normal">We have answers.</div>
      <figure><img src="/a.jpg"><span class="subtitle-2">Credit: lili sams/mashable</span></figure>
      <p>${'The metaverse is a word that has been everywhere this year. '.repeat(6)}</p></article></body></html>`;
    const { records } = await draftRecords(html, 'headline and subheadline of the article');
    expect(records).toEqual([
      { headline: 'What is the metaverse, and should you care?', subheadline: 'We have answers.' },
    ]);
  });
});

describe('class names joining a concept word to a generic head', () => {
  it('read "sourcename" as the source, and keep "username" whole as the author', async () => {
    const html = `<html><body><article><h1>Nintendo's first iPhone game will launch in December</h1>
      <div class="authorinfo"><div class="sourcename-txt"><a href="https://techinsider.example">Tech Insider</a></div>
      <div class="sharebar"><a class="stb-btn" href="/share">SHARE</a></div></div>
      <p>${'The game costs ten dollars and comes out before the holidays. '.repeat(6)}</p></article></body></html>`;
    const { records } = await draftRecords(html, 'the headline and the source of the news story');
    expect(records[0]).toMatchObject({ source: 'Tech Insider' });
    expect(tokenWords('sourcename-txt')).toEqual(['source', 'name', 'txt']);
    expect(tokenWords('username')).toEqual(['username']);
  });
});
