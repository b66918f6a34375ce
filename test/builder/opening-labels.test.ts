// Records whose paragraphs open with their own label, some of which only a few records have, on a small
// page written here: "Estado: …" is found by its label in every record, whatever the optional
// "Expediente: …" before it, and the closing description is the last paragraph, not a position. A value
// whose element opens with its field's word ("<i>Venue: Hall B</i>") is read after that label even when no
// sibling opens with a label of its own.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const result = (ref: string, body: string, file: string | undefined, state: string, text: string) =>
  `<li class="result"><h3>LOTE ${ref}</h3><h4>${body}</h4>
   ${file ? `<p>Expediente: ${file}</p>` : ''}<p>Estado: ${state}</p><p>${text}</p>
   <a href="/lote/${ref}">Más...</a></li>`;

const page = `<html><body><header><a href="/">Inicio</a> <a href="/buscar">Buscar</a></header>
  <main><h1>Resultados</h1><ul class="results">
    ${result('A-101', 'Juzgado de Primera Instancia nº 2 - VALENCIA', undefined, 'Abierta - cierre 12/05/2026', 'Piso en la calle Colón, 80 m²')}
    ${result('A-102', 'Agencia Tributaria - MADRID', '0441/21', 'Abierta - cierre 14/05/2026', 'Local comercial en planta baja')}
    ${result('A-103', 'Juzgado de lo Mercantil nº 1 - SEVILLA', '0093/19', 'Suspendida', 'Plaza de garaje y trastero')}
    ${result('A-104', 'Notaría de Ana Ruiz - BILBAO', undefined, 'Abierta - cierre 20/05/2026', 'Vivienda unifamiliar con jardín')}
  </ul></main><footer>Aviso legal</footer></body></html>`;

describe('paragraphs opening with their own label', () => {
  it('reads the status by its label and the description as the last paragraph', async () => {
    const { records } = await draftRecords(page, 'título, estado y descripción de cada subasta');
    expect(records.map((r) => [r.estado, r.descripcion])).toEqual([
      ['Abierta - cierre 12/05/2026', 'Piso en la calle Colón, 80 m²'],
      ['Abierta - cierre 14/05/2026', 'Local comercial en planta baja'],
      ['Suspendida', 'Plaza de garaje y trastero'],
      ['Abierta - cierre 20/05/2026', 'Vivienda unifamiliar con jardín'],
    ]);
  });
});

const event = (name: string, when: string, venue: string) =>
  `<li><b>${name}</b> <span>${when}</span> <i>Venue: ${venue}</i></li>`;
const events = `<html><body><nav><a href="/">Home</a> <a href="/events">Events</a></nav><main><h1>Upcoming events</h1><ul>
  ${event('Money Basics Workshop', 'Dec 12, 2026', 'Central Library, Hall B')}
  ${event('Budgeting Night', 'Dec 19, 2026', 'Riverside Community Center')}
  ${event('Tax Season Q&amp;A', 'Jan 9, 2027', 'Online')}
  </ul></main></body></html>`;

describe('a field word opening the value of its own element', () => {
  it('gives the value after "Venue:" for the venue a prompt asks for', async () => {
    const { records } = await draftRecords(events, 'name, date and venue of each event');
    expect(records).toEqual([
      { name: 'Money Basics Workshop', date: 'Dec 12, 2026', venue: 'Central Library, Hall B' },
      { name: 'Budgeting Night', date: 'Dec 19, 2026', venue: 'Riverside Community Center' },
      { name: 'Tax Season Q&A', date: 'Jan 9, 2027', venue: 'Online' },
    ]);
  });
});

describe('a price after its label', () => {
  const termin = (name: string, place: string, price: string) =>
    `<div class="q2"><h2><a href="/e/${name.length}">${name}</a></h2><p>Ort: ${place}</p><p>Eintritt: ${price}</p></div>`;
  const kalender = `<html><body><header><a href="/">Start</a></header><main><h1>Kulturkalender</h1><div>
    ${termin('Weihnachtsoratorium', 'Thomaskirche', '25,00 €')}${termin('Jazz im Keller', 'Moritzbastei', '12,50 €')}
    ${termin('Lesung: Winterreise', 'Stadtbibliothek', '8,00 €')}</div></main></body></html>`;

  it('is a number once the label is taken off, as a price without one is', async () => {
    const { records } = await draftRecords(
      kalender,
      'Veranstaltungsname, Veranstaltungsort und Eintrittspreis jeder Veranstaltung',
    );
    expect(records.map((r) => [r.veranstaltungsort, r.eintrittspreis])).toEqual([
      ['Thomaskirche', 25],
      ['Moritzbastei', 12.5],
      ['Stadtbibliothek', 8],
    ]);
  });

  it('answers a price asked in English when the page labels it as the admission ("Eintritt")', async () => {
    const { records } = await draftRecords(kalender, 'name, venue and price of each event');
    expect(records.map((r) => r.price)).toEqual([25, 12.5, 8]);
  });
});
