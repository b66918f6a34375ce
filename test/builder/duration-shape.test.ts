// A time no label names on a page read as one record ("20-30 min." beside the title, "Fertig in
// 15 Minuten"): the first value shaped like a duration after the main heading, in the units of the
// prompts' languages; teasers of other recipes before the heading and clock times are passed.
import { describe, expect, it } from 'vitest';
import { DURATION } from '../../src/services/builder/inference/duration-shape.js';
import { draftRecords } from '../helpers/draft-records.js';

describe('a duration by its shape', () => {
  it('is numbers with units of time in several languages, not a clock time', () => {
    for (const v of ['15 Minuten', '20-30 min.', '1h15', '2 uur 30 min', '1 h 40 mn', '45 mins', '30分', '1 Std.'])
      expect(DURATION.test(v), v).toBe(true);
    for (const v of ['03:25', '4 personen', '20-Minuten-Rezepte', '15 Minuten Pause machen'])
      expect(DURATION.test(v), v).toBe(false);
  });

  it('gives the recipe its own time, after its title, not a teaser before it', async () => {
    const page = `<html><head><script type="application/ld+json">{"@type":"Recipe","name":"Ovenschotel met prei"}</script></head>
      <body><aside><a href="/r/1">Stamppot</a><span class="teaser-time">30-60 minuten</span></aside>
      <main><h1>Ovenschotel met prei</h1><ul><li>Nederlands, Ovenschotel</li><li>20-30 min.</li></ul>
      <p>Snijd de prei in ringen en bak de champignons in een beetje olie.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'titel en bereidingstijd van het recept');
    expect(records).toEqual([{ titel: 'Ovenschotel met prei', bereidingstijd: '20-30 min.' }]);
  });
});
