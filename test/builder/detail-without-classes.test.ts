// A page about one thing read without the help of its class names (made-up or generated ones): the author
// after a byline's "By" standing in an element of its own, and values in links whose address names the
// field ("/author/…", "/artists/…", "/tag/…").
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const menu = `<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a>
  <a href="/tech">Tech</a> <a href="/travel">Travel</a> <a href="/money">Money</a> <a href="/about">About</a></nav>`;
const body = `<p>The council approved the plan on Monday after a long debate about its costs and its timing.</p>
  <p>Work on the new bridge starts in spring and should take two years, the city said in a statement.</p>`;

describe("a byline's word in an element of its own", () => {
  it('reads the author in the element after the word, not the word', async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">A new bridge for the old town</h1>
      <div class="tamelo"><span class="pukamo">By</span> <span class="dazori"><a class="zefuna">Ann Lee</a></span></div>
      ${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the headline and author of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', author: 'Ann Lee' }]);
  });

  it('reads the author in the element around the word when the name follows it as text', async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">A new bridge for the old town</h1>
      <div class="tamelo"><a class="dazori"><span class="pukamo">Por</span> Ana López</a></div>
      ${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'el título y el autor del artículo');
    expect(records).toEqual([{ titulo: 'A new bridge for the old town', autor: 'Ana López' }]);
  });
});

describe('a link whose address names the field', () => {
  it("reads the author from a link to the author's page after the headline", async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">A new bridge for the old town</h1>
      <div class="tamelo"><span class="dazori"><a href="/news/author/ann-lee-1.33">Ann Lee</a></span> · City News</div>
      ${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the headline and author of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', author: 'Ann Lee' }]);
  });

  it("reads an artist from a link to the artist's page, named in the prompt's language", async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">Purple Rain</h1>
      <h2><a class="zefuna" href="https://example.com/artists/prince">Prince</a></h2>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'el título de la canción y el artista');
    expect(records).toEqual([{ titulo: 'Purple Rain', artista: 'Prince' }]);
  });

  it('reads all the tags from the run of links to tag pages', async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">A new bridge for the old town</h1>${body}
      <ul class="sepira"><li class="rumeta"><a href="/tag/city/">city</a></li>
      <li class="rumeta"><a href="/tag/bridges/">bridges</a></li><li class="rumeta"><a href="/tag/money/">money</a></li></ul>
      </main></body></html>`;
    const { records } = await draftRecords(page, 'the title and tags of the article');
    expect(records).toEqual([{ title: 'A new bridge for the old town', tags: ['city', 'bridges', 'money'] }]);
  });
});

describe("labels in the page's language and metadata shown in other words", () => {
  it("reads a value after a label in the page's language, not the prompt's", async () => {
    const page = `<html><body>${menu}<main><h1 class="kovira">Apfelkuchen vom Blech</h1>
      <div class="tamelo"><span class="pukamo">Bewertung:</span> <div class="dazori">4.5</div></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the name and the rating of the recipe');
    expect(records).toEqual([{ name: 'Apfelkuchen vom Blech', rating: 4.5 }]);
  });

  it("finds a count the page's JSON-LD gives where the page shows it in brackets", async () => {
    const ld = JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'Recipe',
      name: 'Four Cheese Pizza',
      aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.8', ratingCount: '489' },
    });
    const page = `<html><head><script type="application/ld+json">${ld}</script></head><body>${menu}<main>
      <h1 class="kovira">Four Cheese Pizza</h1><div class="tamelo"><div class="dazori">4.8</div><div class="pukamo">(489)</div>
      <div class="zefuna">2 photos</div></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the name and number of ratings of the recipe');
    expect(records).toEqual([{ name: 'Four Cheese Pizza', ratings: 489 }]);
  });
});

describe('the author beside the date and an icon naming the field', () => {
  it('reads the name standing right before the date under the headline as the author, not a link "AV"', async () => {
    const page = `<html><body>${menu}<main><div class="kovira"><h1 class="tamelo">セキュリティとAI進化の両立なるか</h1></div>
      <div class="zefuna"><span class="pukamo">松村太郎</span><span class="dazori"><a href="/archives/2019/04/13/">2019年04月13日 09時00分</a></span></div>
      ${body}<div class="gizave"><p class="remobo"><a href="/digital/pc/">PC</a></p><p class="remobo"><a href="/digital/av/">AV</a></p></div>
      </main></body></html>`;
    const { records } = await draftRecords(page, 'title, author and date of the article');
    expect(records).toEqual([
      { title: 'セキュリティとAI進化の両立なるか', author: '松村太郎', date: '2019年04月13日 09時00分' },
    ]);
  });

  it('reads the text beside an icon whose text alternative is the field word', async () => {
    const page = `<html><body>${menu}<main><h1 class="tamelo">A new bridge for the old town</h1>
      <ul class="zefuna"><li class="pukamo"><span class="dazori"><img src="/i/a.svg" alt="author"></span> Ann Lee </li></ul>
      ${body}</main></body></html>`;
    const { records } = await draftRecords(page, 'the headline and author of the article');
    expect(records).toEqual([{ headline: 'A new bridge for the old town', author: 'Ann Lee' }]);
  });
});

describe("a review's score shown alone", () => {
  it('reads the first number shaped as a score after the headline, not a price or a count', async () => {
    const page = `<html><body>${menu}<main><header><h1 class="tamelo">Lust for Youth</h1>
      <div class="zefuna"><p class="pukamo">2019</p><p class="dazori">6.2</p></div></header>
      <div class="kovira"><span>€</span><span class="lamito">4.99</span></div>${body}</main></body></html>`;
    const { records } = await draftRecords(page, "l'album et la note de la critique");
    expect(records).toEqual([{ album: 'Lust for Youth', note: '6.2' }]);
  });
});
