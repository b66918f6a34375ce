// Values the page names with a label beside them, read through the label rather than by position, so
// that a record lacking one of the labelled values still gives the right one for each field. Each on a
// small page written here (the draft is proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

/** A listing whose facts are written value first, the term under it (`<dd>389 m²</dd><dt>Living area</dt>`). */
function valueFirstListing(): string {
  const home = (title: string, facts: Array<[string, string]>) =>
    `<article class="home"><h2>${title}</h2>${facts.map(([dt, dd]) => `<dl class="fact"><dd>${dd}</dd><dt>${dt}</dt></dl>`).join('')}</article>`;
  return `<html><body><h1>Houses for sale</h1><main>
    ${home('Farmhouse by the river', [
      ['Price', '420.000 €'],
      ['Living area', '180 m²'],
      ['Plot', '2.300 m²'],
    ])}
    ${home('Old mill', [
      ['Living area', '240 m²'],
      ['Plot', '5.100 m²'],
    ])}
    ${home('Town house', [
      ['Price', '310.000 €'],
      ['Living area', '120 m²'],
      ['Plot', '300 m²'],
    ])}
    ${home('Villa on the hill', [
      ['Price', '890.000 €'],
      ['Living area', '320 m²'],
      ['Plot', '1.800 m²'],
    ])}
    </main></body></html>`;
}

describe('values named by a label', () => {
  it('reads a definition list written value first through the term after each value', async () => {
    const { proposal, records } = await draftRecords(valueFirstListing(), 'title, price and living area of each house');
    const area = proposal.definition.list.fields.find((f) => f.name.startsWith('living'));
    expect(area?.selector).toContain('Living area');
    expect(records.map((r) => r[area!.name])).toEqual(['180 m²', '240 m²', '120 m²', '320 m²']);
  });

  it('reads a value named by the icon opening its text, and a place answers a prompt asking for an address', async () => {
    const shop = (name: string, place: string, price: string) =>
      `<div class="offer"><h3><a href="/o/${name.length}">${name}</a></h3><button class="map-link"><span class="icon-location"></span>${place}</button><b class="cost">${price}</b></div>`;
    const html = `<html><body><h1>Offers</h1><main>${[
      shop('Blue bicycle', 'Springfield, North District', '120 €'),
      shop('Old piano', 'Shelbyville', '900 €'),
      shop('Garden chairs', 'Ogdenville, Lakeside', '45 €'),
      shop('Camera', 'North Haverbrook', '230 €'),
    ].join('')}</main></body></html>`;
    const { proposal, records } = await draftRecords(html, 'title, address and price of each offer');
    expect(proposal.definition.list.fields.find((f) => f.name === 'address')?.selector).toBe('button.map-link');
    expect(records.map((r) => r.address)).toEqual([
      'Springfield, North District',
      'Shelbyville',
      'Ogdenville, Lakeside',
      'North Haverbrook',
    ]);
  });

  it('reads "total time" through its own label, not the first label naming a time', async () => {
    const details = [
      ['Prep Time:', '10 mins'],
      ['Cook Time:', '15 mins'],
      ['Total Time:', '40 mins'],
      ['Servings:', '8'],
    ]
      .map(([l, v]) => `<div class="item"><div class="label">${l}</div><div class="value">${v}</div></div>`)
      .join('');
    const html = `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Recipe","name":"Cheese pizza"}</script></head>
      <body><h1>Cheese pizza</h1><div class="details">${details}</div><p>Heat the oven and bake the pizza until golden.</p></body></html>`;
    const { proposal, records } = await draftRecords(html, 'name and total time of the recipe');
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['name', 'total_time']);
    expect(records[0]?.total_time).toBe('40 mins');
  });
});

describe('values after labels inside one paragraph', () => {
  it('reads each of several labelled lines of one paragraph as its own value', async () => {
    const html = `<html><body><h1>Sitzung vom 3. Mai</h1><div class="text"><p><strong>Zeit und Ort:</strong> 15.00 – 16.45 bei revamp-it<br>
      <strong>Teilnehmende:</strong> Daniel Sieber, Hans Leuenberger<br><strong>Protokoll:</strong> Anna Rudin<br></p>
      <p>Die Sitzung beginnt pünktlich.</p></div></body></html>`;
    const { records } = await draftRecords(html, 'Titel, Teilnehmende und Protokoll der Sitzung');
    expect(records).toEqual([
      { titel: 'Sitzung vom 3. Mai', teilnehmende: 'Daniel Sieber, Hans Leuenberger', protokoll: 'Anna Rudin' },
    ]);
  });

  it('reads the rest of a paragraph a label opens, past the link that starts the value', async () => {
    const html = `<html><body><h1>Treffen im Mai</h1><div class="entry">
      <p><strong>Gastgeber</strong>: <a href="https://xing.example">Xing AG</a>, Dammtorstraße 29-32, <span>20354 Hamburg</span></p>
      <p><strong>Moderator</strong>: Hass Chapman</p><p>Agenda: zwei Vorträge und eine Diskussion.</p></div></body></html>`;
    const { records } = await draftRecords(html, 'Name des Treffens, Gastgeber und Moderator');
    expect(records[0]).toMatchObject({
      gastgeber: 'Xing AG, Dammtorstraße 29-32, 20354 Hamburg',
      moderator: 'Hass Chapman',
    });
  });
});
