// Records named by the text around them rather than by class names, on small pages written here with
// class names that say nothing (as generated class names or a site's own vocabulary say nothing): a list in
// groups under headings of their own, the heading of the section holding a group's heading, and a header
// block (a heading beside a control) naming the list after it.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { findCandidates } from '../../src/services/builder/inference/structure.js';
import { draftRecords } from '../helpers/draft-records.js';

const item = (text: string) =>
  `<li class="qx81ab"><span>${text.split(' ')[0]}</span><span> ${text.split(' ').slice(1).join(' ')}</span></li>`;
const teasers = Array.from(
  { length: 6 },
  (_, i) =>
    `<div class="kr7f2a"><a href="/r/${i}"><img src="/r/${i}.jpg"><h3>Another dish number ${i}</h3></a><p>A dish for the whole family, ready in ${20 + i} minutes.</p></div>`,
).join('');

const recipe = `<html><body><main><h1>Butter chicken</h1>
  <div id="zz1"><div class="hd9x"><h2>Ingredients</h2><div class="pp0"><button>-</button><input value="4"><span>servings</span></div></div>
  <ul class="l0x">
    <li><ul>${['1 chicken', '4 cloves garlic', '2 tbsp lemon juice'].map(item).join('')}</ul></li>
    <li><h3>Marinade:</h3><ul>${['1 dl yoghurt', '1 tbsp chili', '1 tbsp oil'].map(item).join('')}</ul></li>
    <li><h3>Sauce:</h3><ul>${['100 g cashews', '8 tomatoes', '50 g butter', '1 dl cream'].map(item).join('')}</ul></li>
  </ul></div>
  <h2>Method</h2><ol>${['Cut the chicken.', 'Marinate it overnight.', 'Cook the sauce.'].map((s) => `<li><p>${s} Take your time over it, it pays.</p></li>`).join('')}</ol>
  <h2>You may also like</h2><div class="g5k">${teasers}</div>
  </main></body></html>`;

describe('a list in groups under headings of their own', () => {
  it('reads every group as one list, named by the section heading above the groups', async () => {
    const { records } = await draftRecords(recipe, 'all the ingredients of the recipe');
    expect(records).toHaveLength(10);
    expect(Object.values(records[0]).join(' ')).toContain('chicken');
    expect(Object.values(records[9]).join(' ')).toContain('cream');
  });

  it('gives the section heading as the reason', () => {
    const [top] = findCandidates(load(recipe), [], ['ingredient'], 'all the ingredients of the recipe');
    expect(top.count).toBe(10);
    expect(top.why).toContain(`named like the prompt's "ingredients"`);
  });
});

describe('a header block', () => {
  it('is no heading when it holds links or images (a carousel under its title)', async () => {
    // The teasers' box opens with a heading and holds no text of its own beside it, but links and images:
    // it names nothing after it.
    const pictures = Array.from({ length: 6 }, (_, i) => `<a href="/p/${i}"><img src="/p/${i}.jpg"></a>`).join('');
    const page = `<html><body><div class="a1"><h3>Related ingredients</h3><div class="c9">${pictures}</div></div>
      <div class="b2"><ul>${['1 chicken', '4 cloves garlic', '2 tbsp lemon juice', '1 dl yoghurt'].map(item).join('')}</ul></div></body></html>`;
    const candidates = findCandidates(load(page), [], ['ingredient'], 'every ingredient');
    const list = candidates.find((c) => c.count === 4);
    expect(list?.why ?? '').not.toContain('named like');
  });
});

describe('a link to a person’s page', () => {
  // Posts whose classes say nothing: the author is the link to a member's page, beside a link to the
  // post itself and a link to the thread.
  const post = (i: number, name: string, address: string) =>
    `<article class="q7${i % 2 ? 'a' : 'b'} zz"><div class="m1"><a class="k2" href="${address}">${name}</a></div>
      <div class="m2"><a class="k3" href="/threads/cats.7/post-${i}">#${i + 1}</a> <span class="k4">Sep ${i + 10}, 2020</span></div>
      <div class="m3"><p>Our cat sleeps all day long and wakes up for dinner only, as cats do, number ${i}.</p></div></article>`;
  const page = `<html><body><main>${[
    post(0, 'Tiberius', '/members/tiberius.123/'),
    post(1, 'Ada L.', '/member.php?u=42'),
    post(2, 'pepemaus', '/user_details?userid=abc'),
    post(3, 'Grace', '/profile/grace'),
  ].join('')}</main></body></html>`;

  it('answers the author, whatever the address calls the page', async () => {
    const { records } = await draftRecords(page, 'author and date of every post');
    expect(records.map((r) => r.author)).toEqual(['Tiberius', 'Ada L.', 'pepemaus', 'Grace']);
  });
});

describe('a rating nothing names', () => {
  // Reviews whose classes say nothing: the rating is the one value written as a score of ten, read as a number.
  const review = (title: string, score: string, date: string) =>
    `<div class="r8x"><div class="h2y"><h3 class="t5z">${title}</h3><span class="s9a">${score}</span></div>
      <p class="p1b">We went there with friends and ${title.toLowerCase()} was what we all said afterwards.</p>
      <span class="d3c">${date}</span></div>`;
  const page = `<html><body><main>${[
    review('Lovely evening', '8.5', '11-08-2014'),
    review('Slow service', '6,0', '02-09-2014'),
    review('Best fish in town', '9.1', '15-09-2014'),
    review('Fine', '7', '01-10-2014'),
  ].join('')}</main></body></html>`;

  it('is read from the values written as scores', async () => {
    const { records } = await draftRecords(page, 'title, rating and date of every review');
    expect(records.map((r) => r.rating)).toEqual([8.5, 6, 9.1, 7]);
  });
});
