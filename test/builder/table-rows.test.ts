// Rows of a data table that are not records: the totals row closing a statistics table ("Total",
// "Gesamt", "Итого"), and heading rows of header cells only between groups of rows ("For the dough"),
// also when no value is in every row (an ingredient without an amount, one not linked to the shop).
// On small pages written here (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const players: Array<[string, number, number]> = [
  ['Ana Torres', 12, 4],
  ['Ben Keller', 9, 7],
  ['Chloé Martin', 7, 2],
  ['Dário Lopes', 5, 9],
  ['Emil Strand', 3, 1],
];

const stats = (totalsWord: string) =>
  `<html><body><h1>Season statistics</h1><table class="stats"><thead><tr><th>Player</th><th>Goals</th><th>Assists</th></tr></thead><tbody>${players
    .map(([name, goals, assists]) => `<tr><td>${name}</td><td>${goals}</td><td>${assists}</td></tr>`)
    .join('')}<tr><td>${totalsWord}</td><td>${players.reduce((n, p) => n + p[1], 0)}</td><td>${players.reduce(
    (n, p) => n + p[2],
    0,
  )}</td></tr></tbody></table></body></html>`;

const groups: Array<[string, Array<[string, string]>]> = [
  [
    'For the dough',
    [
      ['250 g', 'flour'],
      ['2', 'eggs'],
      ['125 ml', 'milk'],
    ],
  ],
  [
    'For the filling',
    [
      ['400 g', 'apples'],
      ['', 'sugar'],
      ['1 tsp', 'cinnamon'],
    ],
  ],
];

const grouped = `<html><body><h1>Apple pie</h1><h2>Ingredients</h2><table class="ingredients"><tbody>${groups
  .map(
    ([heading, rows]) =>
      `<tr><th colspan="2">${heading}</th></tr>${rows
        .map(([q, n]) => `<tr><td>${q}</td><td>${n === 'eggs' ? n : `<a href="/shop/${n}">${n}</a>`}</td></tr>`)
        .join('')}`,
  )
  .join('')}</tbody></table><p>Bake for forty minutes at 180 degrees until golden.</p></body></html>`;

describe('rows of a data table that are not records', () => {
  for (const word of ['Total', 'Gesamt', 'Итого']) {
    it(`leaves out the totals row ("${word}")`, async () => {
      const { records } = await draftRecords(stats(word), 'player, goals and assists of each player');
      expect(records.map((r) => Object.values(r)[0])).toEqual(players.map(([n]) => n));
      expect(records.map((r) => Number(r.goals))).toEqual(players.map(([, g]) => g));
    });
  }

  it('leaves out the heading rows between groups of ingredients', async () => {
    const { records } = await draftRecords(grouped, 'amount and name of every ingredient');
    const all = groups.flatMap(([, rows]) => rows);
    expect(records.map((r) => r.amount)).toEqual(all.map(([q]) => q));
    expect(records.map((r) => r.name)).toEqual(all.map(([, n]) => n));
  });
});
