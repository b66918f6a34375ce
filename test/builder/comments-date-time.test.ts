// Comments whose author follows a byline's words ("Verfasst von <a>koala100</a>") and whose date and
// time share one text ("30. Juli 2022 - 13:28."): asked for the author, the date and the time apart,
// the draft gives each its own field, the date without its time, through the extraction language's
// regex and replace steps.
import { describe, expect, it } from 'vitest';
import { conceptOfValues } from '../../src/services/builder/inference/naming.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const comments = [
  ['koala100', '30. Juli 2022 - 13:28.', 'Kann man den Salat auch schon einen Tag vorher machen?'],
  ['seidolinos', '30. Juli 2022 - 13:20.', 'Ja, kann man. Im Kühlschrank zieht er noch besser durch.'],
  ['SabrinaFlü', '25. Juni 2022 - 21:10.', 'Sehr lecker, hatte keinen Weißweinessig da und nahm Apfelessig.'],
  ['Moneypenny67', '9. Juni 2022 - 09:03.', 'Der Salat war tipi topi, extrem lecker zu Gegrilltem.'],
];
const page = `<html><body><h1>Italienischer Nudelsalat</h1><ul class="comments">${comments
  .map(
    ([who, when, text], i) => `<li class="comment"><div class="media-body">
      <h3 class="comment-subject">${text.slice(0, 30)}...</h3>
      Verfasst von <a href="/user/${i + 10}">${who}</a> am <small>${when}</small>
      <p>${text}</p></div></li>`,
  )
  .join('')}</ul></body></html>`;

describe('a date and a time of day in one text', () => {
  it('is a date by its shape, the time after it included', () => {
    expect(conceptOfValues(comments.map((c) => c[1]))).toBe('date');
    expect(conceptOfValues(['3 mai 2020 à 14h05', '12 mai 2020 à 9h30'])).toBe('date');
  });

  it('gives the date alone and the time alone when the prompt asks for both', async () => {
    expect(promptRequests('Autor, Datum und Uhrzeit jedes Kommentars')[2].word).toBe('uhrzeit');
    const { records } = await draftRecords(page, 'Autor, Datum und Uhrzeit jedes Kommentars');
    expect(records.slice(0, 2)).toEqual([
      { autor: 'koala100', datum: '30. Juli 2022', uhrzeit: '13:28' },
      { autor: 'seidolinos', datum: '30. Juli 2022', uhrzeit: '13:20' },
    ]);
  });

  it('keeps the date with its time when only the date is asked for', async () => {
    const { records } = await draftRecords(page, 'auteur et date de chaque commentaire');
    expect(records[0]).toEqual({ auteur: 'koala100', date: '30. Juli 2022 - 13:28.' });
  });
});
