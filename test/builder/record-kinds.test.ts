// Records whose class names carry a word of their own (a post's id or slug), a state some records have
// and others lack, or a class per depth of a thread, written here in made-up words (as a site's own
// vocabulary or another language would say them): the records are still one list.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { findGroups } from '../../src/services/builder/inference/grouping.js';

/** The sizes of the page's groups whose members are `tag` elements all holding `marker`. */
function groupOf(html: string, marker: string, tag?: string): number[] {
  const $ = load(html);
  return findGroups($)
    .filter((g) => g.members.every((m) => $(m).text().includes(marker) && (!tag || m.name === tag)))
    .map((g) => g.members.length);
}

const card = (i: number, classes: string, inner = 'kuto') =>
  `<article class="${classes}"><h2><a href="/p/${i}">Story number ${i}</a></h2><div class="${inner}">` +
  `<span class="dabe">May ${i + 1}</span><p>Entry ${i}: a summary of the story told in some words.</p></div></article>`;

describe('classes naming one record', () => {
  it('groups records each carrying a class no other element has, each in a box of its own', () => {
    const posts = [0, 1, 2, 3, 4].map((i) => `<div class="sefa">${card(i, `rovi lopa${'abcde'[i]}mu`)}</div>`).join('');
    const html = `<html><body><main><div class="gatu">${posts}</div></main></body></html>`;
    expect(groupOf(html, 'Entry', 'article')).toContain(5);
  });

  it('keeps two boxes told apart by a class of their own and built differently apart', () => {
    const html = `<html><body><main>
      <div class="wuka biro"><a href="#top">Back to the top of the page</a></div>
      <div class="wuka"><h3>News and events</h3><ul><li><a href="/n/1">First news</a></li><li><a href="/n/2">Second news</a></li></ul><p>More to come soon.</p></div>
      </main></body></html>`;
    const $ = load(html);
    const boxes = findGroups($).filter((g) =>
      g.members.every((m) => m.name === 'div' && m.attribs.class.includes('wuka')),
    );
    expect(boxes).toHaveLength(0);
  });
});

describe('classes marking a state', () => {
  it('groups pinned records in one box with the others in the next, their wrappers classed for the state', () => {
    const thread = (i: number, state: string) =>
      `<div class="kifi ${state}"><div class="rimo"><h3><a href="/t/${i}">Thread ${i}</a></h3>` +
      `<span class="dabe">by someone, May ${i + 1}</span><p>Entry ${i}: the first words of the thread.</p></div></div>`;
    const pinned = [0, 1].map((i) => `<li class="tabe ${i ? 'hovu gemi' : 'hovu'}">${thread(i, 'mazo')}</li>`).join('');
    const rest = [2, 3, 4, 5]
      .map((i) => `<li class="tabe${i === 4 ? ' gemi' : ''}">${thread(i, 'konu')}</li>`)
      .join('');
    const html = `<html><body><main><ol class="pira">${pinned}</ol><ol class="zuma">${rest}</ol></main></body></html>`;
    expect(groupOf(html, 'Entry')).toContain(6);
  });
});

describe('classes per depth of a thread', () => {
  it('groups comments and their replies, each depth classed by a word of its own', () => {
    const comment = (i: number, depth: string, replies = '') =>
      `<li class="gozi ${depth}"><div class="bafo"><b class="neka">Person ${i}</b> <time>June ${i + 1}</time>` +
      `<p>Comment ${i}: what this person thinks of it all.</p></div>${replies}</li>`;
    const thread =
      comment(0, 'lemo', `<ol class="kupi">${comment(1, 'rafu', `<ol class="kupi">${comment(2, 'sine')}</ol>`)}</ol>`) +
      comment(3, 'lemo') +
      comment(4, 'lemo', `<ol class="kupi">${comment(5, 'rafu')}${comment(6, 'rafu')}</ol>`) +
      comment(7, 'lemo');
    const html = `<html><body><main><ol class="tiso">${thread}</ol></main></body></html>`;
    expect(groupOf(html, 'Comment')).toContain(8);
  });
});
