// The page's own landmarks, read whatever its classes are called: the `<main>` element its author marked
// as the content, and ARIA's roles for a sidebar, a header and a footer. Lists beside them are set back.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const posts = ['Opening of the new track', 'Riding in the rain', 'Which tyres for winter', 'A year of this blog'];
const postsHtml = posts
  .map(
    (title, i) => `<div class="x1"><h2><a href="/posts/${i}">${title}</a></h2>
      <p>Filed under <a href="/category/news">News</a></p><p>Some words about ${title.toLowerCase()}: what we saw, what we learned and what we would do again next time we ride there with friends.</p></div>`,
  )
  .join('');
// Another site's headlines, many and long: more of the page's text than the posts.
const feed = Array.from(
  { length: 12 },
  (_, i) =>
    `<li><a href="https://other.example/${i}">Headline number ${i} of a feed from another motoring site</a></li>`,
).join('');

describe('landmarks whatever the classes say', () => {
  it('reads the posts inside <main>, not the link list beside it', async () => {
    const page = `<html><body><div class="a9"><main class="b3">${postsHtml}</main>
      <div class="c7"><ul>${feed}</ul></div></div></body></html>`;
    const { records } = await draftRecords(page, 'title, link and category of every post');
    expect(records.map((r) => r.title)).toEqual(posts);
  });

  it('sets back a list in a box whose role is complementary', async () => {
    const page = `<html><body><div class="a9"><div class="b3">${postsHtml}</div>
      <div class="c7" role="complementary"><ul>${feed}</ul></div></div></body></html>`;
    const { records } = await draftRecords(page, 'title, link and category of every post');
    expect(records.map((r) => r.title)).toEqual(posts);
  });
});
