// Details of article pages and tables as sites of every kind write them, each rule met on a page the
// Builder had never seen: a date labelled "Updated" is not the publication date, a date in an element of
// its own inside a labelled box, a site's "Sign In" box is no author, a Japanese byline's "文●", a table's
// header row holding "Top 5", tags as links deep inside their box, and categories asked for in the plural
// read from the links filing the page rather than its one section or the sidebar's list of all of them.
import { describe, expect, it } from 'vitest';
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
