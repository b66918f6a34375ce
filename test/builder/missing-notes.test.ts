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
  it('name a field of two words with its words apart', async () => {
    const { proposal } = await draftRecords(games, 'the link and the stadium capacity of each game');
    const notes = proposal.notes.join('\n');
    expect(notes).toMatch(/Field "stadium capacity" not found on the page/);
    expect(notes).not.toMatch(/stadium_capacity/);
  });
});
