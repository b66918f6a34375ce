// Details of article pages and tables as sites of every kind write them, each rule met on a page the
// Builder had never seen: a date labelled "Updated" is not the publication date, a date in an element of
// its own inside a labelled box, a site's "Sign In" box is no author, a Japanese byline's "文●", a table's
// header row holding "Top 5", tags as links deep inside their box, and categories asked for in the plural
// read from the links filing the page rather than its one section or the sidebar's list of all of them, a
// header menu titled "Categories" is no category, "the name of the author" asks for the author, and a
// blog's commenter written as an hCard's `<cite class="fn">` is the comment's author.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import type { Element } from '../../src/services/builder/inference/selectors.js';
import { hintsOf } from '../../src/services/builder/inference/values.js';
import { draftRecords } from '../helpers/draft-records.js';

const menu = `<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a>
  <a href="/tech">Tech</a> <a href="/travel">Travel</a> <a href="/money">Money</a> <a href="/about">About</a></nav>`;
const body = `<p>The council approved the plan on Monday after a long debate about its costs and its timing.</p>
  <p>Work on the new bridge starts in spring and should take two years, the city said in a statement.</p>`;

describe('the date of an article', () => {
  it('reads the date published, not the one labelled "Updated" after it', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>
      <div class="meta"><span class="when"><span class="stamp"><time>May 24, 2016, 11:44am PDT</time></span>
      <span class="stamp"><strong>Updated</strong> <time>May 24, 2016, 11:52am PDT</time></span></span></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'kop en publicatiedatum van het artikel');
    expect(records).toEqual([{ kop: 'A new bridge for the old town', publicatiedatum: 'May 24, 2016, 11:44am PDT' }]);
  });

  it('reads a date standing in an element of its own after a label in the same box', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>
      <div class="info"><span class="stamp"><b>Posted</b> <time>March 3, 2021</time></span></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'headline and date of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', date: 'March 3, 2021' }]);
  });
});

describe('the author of an article', () => {
  it("does not take the site's account box classed for the user as the author", async () => {
    const page = `<html><body><div class="top"><div class="user_area"><span class="user-notloggedin">Sign In</span></div></div>
      ${menu}<main><h1>A new bridge for the old town</h1>
      <div class="byline"><a href="/reporter/ann-lee">Ann Lee</a> / Agency / <span>Updated: Oct 9, 2019, 11:05 IST</span></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'tytuł artykułu i autor');
    expect(records).toEqual([{ tytul: 'A new bridge for the old town', autor: 'Ann Lee' }]);
  });

  it('takes the name after a Japanese byline\'s "文●"', async () => {
    const page = `<html><body>${menu}<main><h1>新しい橋の工事が始まる</h1><div class="artdata"><p class="date">2019年04月21日 12時00分更新</p>
      <p class="author"><a>文● オカモト／ASCII編集部</a></p></div>
      <p>市は月曜日、古い町の新しい橋の計画を承認した。工事は春に始まり、二年かかる見込みだという。</p></main></body></html>`;
    const { records } = await draftRecords(page, '文章的标题和作者');
    expect(records).toEqual([{ title: '新しい橋の工事が始まる', author: 'オカモト／ASCII編集部' }]);
  });
});

describe('a table whose header row is written with plain cells', () => {
  it('names the columns by a header row holding a heading with a digit ("Top 5")', async () => {
    const drivers = [
      ['Kyle Busch', 5040, 5, 1, 17],
      ['Martin Truex Jr.', 5035, 7, 0, 15],
      ['Kevin Harvick', 5033, 4, 6, 15],
      ['Denny Hamlin', 5027, 6, 3, 19],
      ['Joey Logano', 2380, 2, 3, 12],
    ] as const;
    const page = `<html><body>${menu}<main><h1>Classificação</h1><table class="tablehead"><tbody>
      <tr class="colhead"><td><strong>Pos.</strong></td><td><strong>Piloto</strong></td><td><strong>Pontos</strong></td>
      <td><strong>Vitórias</strong></td><td><strong>Poles</strong></td><td><strong>Top 5</strong></td></tr>
      ${drivers.map((d, i) => `<tr><td>${i + 1}</td><td>${d.join('</td><td>')}</td></tr>`).join('')}</tbody></table></main></body></html>`;
    const { records } = await draftRecords(page, 'piloto, pontos e vitórias de cada piloto');
    expect(records.slice(0, 2).map((r) => [r.piloto, Number(r.pontos), Number(r.vitorias ?? r['vitórias'])])).toEqual([
      ['Kyle Busch', 5040, 5],
      ['Martin Truex Jr.', 5035, 7],
    ]);
  });
});

describe('tags and categories filing an article', () => {
  it('reads every tag when the links stand deep inside the box classed for tags', async () => {
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>${body}
      <div class="af-tags-list"><div class="tags-list open"><div class="tags"><a class="tag-item" href="/t/city">#City</a><a class="tag-item" href="/t/bridges">#Bridges</a></div>
      <div class="expand-tags"></div></div></div></main></body></html>`;
    const { records } = await draftRecords(page, 'título y etiquetas del artículo');
    expect(records).toEqual([{ titulo: 'A new bridge for the old town', etiquetas: ['#City', '#Bridges'] }]);
  });

  it('reads categories asked for in the plural from the links in the byline, not the one section nor the sidebar list', async () => {
    const page = `<html><head><script type="application/ld+json">{"@type":"BlogPosting","headline":"A new bridge for the old town","articleSection":"City"}</script></head>
      <body>${menu}<div id="breadcrumbs"><a href="/">Home</a> › <a href="/c/city"><span>City</span></a></div>
      <main><article><h1>A new bridge for the old town</h1>
      <div class="entry-byline"><span class="entry-author">Ann Lee</span>
      <span class="entry-terms" itemprop="articleSection"><a href="/c/city" rel="tag">City</a>, <a href="/c/building" rel="tag">Building</a>, <a href="/c/money" rel="tag">Money</a></span></div>
      ${body}</article></main>
      <aside class="sidebar"><section class="widget widget_categories"><h3>Categories</h3><ul><li><a href="/c/arts">Arts</a></li>
      <li><a href="/c/building">Building</a></li><li><a href="/c/city">City</a></li><li><a href="/c/money">Money</a></li><li><a href="/c/sport">Sport</a></li></ul></section></aside></body></html>`;
    const { records } = await draftRecords(page, 'title and categories of the post');
    expect(records).toEqual([{ title: 'A new bridge for the old town', categories: ['City', 'Building', 'Money'] }]);
  });
});

describe("a site's menu titled like the field", () => {
  it('takes no header menu titled "Categories" as the category of the page, whatever the body is classed', async () => {
    const sections = [
      'Business',
      'Threat Research',
      'Industry Trends',
      'Partners',
      'Customer Stories',
      'PSIRT Blogs',
      'Cloud',
    ];
    const page = `<html><body class="site-navigation-standard"><header class="site-header"><div class="header-nav"><ul class="b2-navigation__list">
      <li><div class="nav-dropdown-title">Categories</div><ul class="navdropdown">${sections
        .map((c, i) => `<li><a href="/c/${i}">${c}</a></li>`)
        .join('')}</ul></li></ul></div></header>
      <main><section class="hero"><p class="hero__kicker">Threat Research</p><h1>Defeating an Android packer</h1></section>
      <p class="meta">By <a href="/author/dario">Dario Durando</a></p>${body}</main></body></html>`;
    const { records } = await draftRecords(page, "titolo, autore e categoria dell'articolo");
    expect(records).toEqual([{ titolo: 'Defeating an Android packer', autore: 'Dario Durando' }]);
  });
});

describe('the name of a person asked for', () => {
  it('reads "the name of the author" as the author, in the genitive of any language too', () => {
    const fields = (prompt: string) => promptRequests(prompt).map((r) => r.concept ?? r.word);
    expect(fields('имя автора и дата каждого комментария')).toEqual(['author', 'date', 'комментария']);
    expect(fields('name of the author and date of each comment')).toEqual(['author', 'date', 'comments']);
    expect(fields('nombre del autor y fecha')).toEqual(['author', 'date']);
    expect(fields('Name des Autors und Datum')).toEqual(['author', 'date']);
    // A name asked for beside the author is the record's own.
    expect(fields('name, author and date')).toEqual(['title', 'author', 'date']);
  });

  it('takes each commenter\'s name from the hCard\'s <cite class="fn">, linked or not', async () => {
    const names = ['Jasmin', 'Franziska', 'Flory', 'Mira'];
    const page = `<html><body>${menu}<main><h1>A new bridge for the old town</h1>${body}<ol class="commentlist">${names
      .map(
        (n, i) => `<li class="comment" id="comment-${i}"><div class="comment-body"><div class="comment-author vcard">
        <img class="avatar" src="/a/${i}.png" alt=""><cite class="fn">${i % 2 === 0 ? `<a href="https://blog${i}.example" class="url">${n}</a>` : n}</cite>
        <span class="says">sagt:</span></div><div class="comment-meta"><a href="#comment-${i}">${10 + i}. Februar 2019 um 18:0${i} Uhr</a></div>
        <p>Das ist ein Kommentar von ${n} zu diesem Artikel, mit ein paar Worten mehr.</p></div></li>`,
      )
      .join('')}</ol></main></body></html>`;
    const { records } = await draftRecords(page, 'имя автора и дата каждого комментария');
    expect(records.map((r) => r.author)).toEqual(names);
    // The <cite> names a person there, not a source quoted.
    const $ = load(page);
    const hints = hintsOf($('cite.fn')[1] as Element, $('li.comment')[1] as Element).all;
    expect(hints).toContain('author');
    expect(hints).not.toContain('source');
  });
});
