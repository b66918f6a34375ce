// A strip of headlines above a news page's main list ("breaking-news", a ticker), named with the prompt's
// noun for the records: a teaser of other stories, not the list asked for. On a small page written here
// (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const flashes = Array.from({ length: 12 }, (_, i) => `Council meets on road works in district ${i + 1}`);

const stories: Array<[string, string]> = [
  [
    'Harbour bridge reopens after two years of repairs',
    'The bridge carried its first cars this morning after a long and costly renovation of its deck.',
  ],
  [
    'New library opens its doors in the old market hall',
    'Readers queued from early on to see the reading rooms built into the hall of the former market.',
  ],
  [
    'Flooding closes three schools on the east side',
    'Heavy rain overnight left classrooms under water and pupils were sent home before the first lesson.',
  ],
  [
    'Local team wins the regional cup final on penalties',
    'A tense evening at the stadium ended with the goalkeeper saving two penalties in the shoot-out.',
  ],
  [
    'Bus fares stay the same for another year',
    'The transport board decided to keep prices as they are while new electric buses are brought in.',
  ],
  [
    'Summer festival announces its programme',
    'Fifty bands and a dozen theatre groups will play on four stages in the park during the first week of July.',
  ],
];

const page = `<html><body><header><div class="breaking-news"><span>Latest</span><ul>${flashes
  .map((t, i) => `<li><a href="/flash/${i}">${t}</a></li>`)
  .join('')}</ul></div></header><main><div class="posts">${stories
  .map(
    ([title, text], i) =>
      `<article class="item-list"><h2><a href="/story/${i}">${title}</a></h2><p class="post-meta"><span>${i + 2} hours ago</span></p><div class="entry"><p>${text}</p></div></article>`,
  )
  .join('')}</div></main></body></html>`;

describe('a headline ticker above the news', () => {
  it('gives way to the main list of news', async () => {
    const { records } = await draftRecords(page, 'title and link of every news item');
    expect(records.map((r) => r.title)).toEqual(stories.map(([t]) => t));
  });
});
