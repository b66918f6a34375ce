// A field the prompt names that the draft does not hold is named in the draft's notes as the prompt says
// it, its words apart ("away team"), so that the user finds it. On a small page written here (no LLM).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const games = `<html><body><h1>Results</h1><ul class="games">
  <li class="game"><a href="/g/1">Lions</a> <span class="score">3</span></li>
  <li class="game"><a href="/g/2">Tigers</a> <span class="score">1</span></li>
  <li class="game"><a href="/g/3">Bears</a> <span class="score">2</span></li>
  <li class="game"><a href="/g/4">Wolves</a> <span class="score">0</span></li>
  </ul></body></html>`;

describe('notes on fields not found', () => {
  it("report no field for the records' own noun with its complement ('ogni risultato della ricerca')", async () => {
    const { proposal } = await draftRecords(games, 'titolo e link di ogni risultato della ricerca');
    expect(proposal.notes.join('\n')).not.toMatch(/risultato/);
  });

  it('name a field of two words with its words apart', async () => {
    const { proposal } = await draftRecords(games, 'the link and the stadium capacity of each game');
    const notes = proposal.notes.join('\n');
    expect(notes).toMatch(/Field "stadium capacity" not found on the page/);
    expect(notes).not.toMatch(/stadium_capacity/);
  });

  it("name every field asked for that nothing answers, even when the draft falls back to the records' own values", async () => {
    const news = `<html><body><h1>News</h1><div class="news">${[
      'The club opens its new boat house on the first Saturday of May, with music and food for all members.',
      'Our juniors won three medals at the regional regatta last weekend, two of them gold, in the fours.',
      'The annual meeting chose a new board for the next two years and agreed on the budget for the season.',
      'Winter training starts in November in the gym of the school; please bring indoor shoes and a towel.',
    ]
      .map((t) => `<p class="item">${t}</p>`)
      .join('')}</div></body></html>`;
    const { proposal } = await draftRecords(news, 'the price and the rating of each news item');
    const notes = proposal.notes.join('\n');
    expect(notes).toMatch(/Field "price" not found on the page/);
    expect(notes).toMatch(/Field "rating" not found on the page/);
  });
});
