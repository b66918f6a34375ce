// A live ticker's comments: the minute of each, written as a match's minute ("95'", "45+2'"), answers a
// prompt's word for a minute in any of its languages, and "the text" of each is its one long text even
// when no heading names the comment. On a small page written here (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const comments: Array<[string, string]> = [
  ["90+3'", 'Full time here! The home side held on after a long spell of pressure in the second half.'],
  ["88'", 'Yellow card for the goalkeeper, who took far too long over a free kick in his own half.'],
  ["75'", 'A double change for the visitors, who bring on two fresh forwards to chase the equaliser.'],
  ["45+2'", 'Half time. A goal each after a lively first half with chances at both ends of the pitch.'],
];

const ticker = `<html><body><h1>Live: Rovers v United</h1><div class="comments">${comments
  .map(
    ([minute, text]) =>
      `<div class="comment"><div class="comment-time"><span>${minute}</span></div><div class="comment-body"><div class="comment-icons"><span></span></div>${text}</div></div>`,
  )
  .join('')}</div></body></html>`;

describe('a live ticker', () => {
  it('gives the minute and the text of each comment', async () => {
    const { records } = await draftRecords(ticker, 'el minuto y el texto de cada comentario del partido');
    expect(records.map((r) => r.minuto)).toEqual(comments.map(([m]) => m));
    expect(records.map((r) => r.texto)).toEqual(comments.map(([, t]) => t));
  });
});
