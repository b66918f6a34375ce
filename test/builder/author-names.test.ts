// The author of a comment or review that nothing on the page names as one (no class, label or byline
// word): the value written as a person's name, one to three capitalised words, different in different
// records, found after every other way has failed.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const comments = [
  ['Jasmin', '10 February 2019', 'I would have bought it anyway, money comes back.'],
  ['Franziska Elea', '10 February 2019', 'Thank you, that is a kind thing to say about it.'],
  ['Flory', '11 February 2019', 'It depends on how much you need the bag, I think.'],
  ['Olga B.', '12 February 2019', 'Happened to me too, and I still think of it today.'],
];
const page = `<html><body><main><h1>A mishap</h1><ol class="k1">${comments
  .map(
    ([who, when, text]) => `<li class="k2"><div class="k3"><img src="/a.png" alt=""><b class="k4">${who}</b></div>
      <div class="k5"><a href="#c">${when}</a></div><p>${text}</p></li>`,
  )
  .join('')}</ol></main></body></html>`;

describe('an author nothing names', () => {
  it('is the value written as a person name', async () => {
    const { records, proposal } = await draftRecords(page, 'the author and the date of every comment');
    expect(records.map((r) => r.author)).toEqual(comments.map(([who]) => who));
    expect(records[0]).toMatchObject({ date: '10 February 2019' });
    expect(proposal.notes.join('\n')).not.toMatch(/"author" not found/);
  });
});
