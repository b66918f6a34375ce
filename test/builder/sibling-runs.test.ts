// Records that are runs of sibling elements with no wrapper of their own: a heading (or the parent's
// first element, repeated) starts each record, and the elements after it up to the next one are its
// values. Each on a small page written here (the draft is proposed without an LLM and run by the
// engine's list extraction).
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { extractListPage } from '../../src/engine/page-extract.js';
import { runFields, runPartXPath, siblingRunsOf } from '../../src/services/builder/inference/sibling-run.js';
import { draftRecords, PAGE_URL } from '../helpers/draft-records.js';

const news = `<html><body><header><a href="/">Home</a> <a href="/about">About</a></header>
  <main><h1>Club news</h1><div class="news">
  <h3>New season starts in May</h3><p>2024-04-02</p><p>The first training of the season is on the first Monday of May, at the lake.</p>
  <h3>Boat house repaired</h3><p>2024-03-15</p><p>The roof of the boat house was repaired by members over two long weekends.</p>
  <h3>Annual meeting held</h3><p>2024-02-20</p><p>Forty members came to the annual meeting and chose a new board for two years.</p>
  <h3>Winter party photos</h3><p>2024-01-11</p><p>The photos of the winter party are now in the members' area of the site.</p>
  </div></main><footer>Rowing club</footer></body></html>`;

const titles = ['New season starts in May', 'Boat house repaired', 'Annual meeting held', 'Winter party photos'];

describe('records made of a heading and the siblings after it', () => {
  it('reads each heading with the date that follows it', async () => {
    const { proposal, records } = await draftRecords(news, 'news title and date');
    expect(proposal.definition.list.selector).toBe('div.news > h3');
    expect(records.map((r) => r.title)).toEqual(titles);
    expect(records.map((r) => r.date)).toEqual(['2024-04-02', '2024-03-15', '2024-02-20', '2024-01-11']);
  });

  it('reads no part of the next record when a record lacks one', () => {
    const short = news.replace('<p>The roof of the boat house was repaired by members over two long weekends.</p>', '');
    const read = extractListPage(
      { finalUrl: PAGE_URL, body: Buffer.from(short), contentType: 'text/html' },
      { list: { selector: 'div.news > h3', fields: [{ name: 'text', xpath: runPartXPath('h3', 2) }] } },
    );
    const texts = read.items.map((i) => i.record.text);
    expect(texts[1]).toBeNull();
    expect(String(texts[2])).toMatch(/^Forty members/);
  });

  it('leaves headings followed by nothing to the list they are', () => {
    const $ = load('<div><h3>One</h3><h3>Two</h3><h3>Three</h3><h3>Four</h3></div>');
    expect(siblingRunsOf($('h3').toArray())).toBeNull();
  });
});

describe('records started by the first element of their parent, repeated', () => {
  const people = `<html><body><h1>Our team</h1><div class="team">
    <b>Anna Berg</b><span>Chair</span><br><i>Joined the board in 2019 and leads the finance group.</i><br>
    <b>Carl Dahl</b><span>Treasurer</span><br><i>Keeps the books and the members' register up to date.</i><br>
    <b>Eva Fors</b><span>Secretary</span><br><i>Writes the minutes of every meeting and the newsletter.</i><br>
    <b>Gustav Holm</b><span>Coach</span><br><i>Trains the juniors three evenings a week all summer long.</i>
    </div></body></html>`;

  it('offers the parts after each starter as fields, line breaks left out', () => {
    const $ = load(people);
    const runs = siblingRunsOf($('div.team > b').toArray());
    expect(runs?.runs.map((r) => r.length)).toEqual([2, 2, 2, 2]);
    const fields = runFields($, runs!, 0);
    expect(fields.map((f) => f.samples[2])).toEqual([
      'Secretary',
      'Writes the minutes of every meeting and the newsletter.',
    ]);
  });

  it('chooses the runs as the records', async () => {
    const { proposal, records } = await draftRecords(people, 'name of each team member');
    expect(proposal.definition.list.selector).toBe('div.team > b');
    expect(records.map((r) => Object.values(r)[0])).toEqual(['Anna Berg', 'Carl Dahl', 'Eva Fors', 'Gustav Holm']);
  });

  it('takes no bare figures for the starters of records', () => {
    const $ = load(
      '<div><p>250</p><div>g dried fruit</div><p>6</p><div>sheets of pastry</div><p>2</p><div>eggs</div></div>',
    );
    expect(siblingRunsOf($('p').toArray())).toBeNull();
  });

  it('needs the starter to open the parent when it is no heading', () => {
    const $ = load('<div><i>intro</i><b>A</b><span>1</span><b>B</b><span>2</span><b>C</b><span>3</span></div>');
    expect(siblingRunsOf($('b').toArray())).toBeNull();
  });
});
