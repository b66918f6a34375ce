// A recipe's ingredients in a tab panel: the tab's label ("Zutaten", a <label> of the tab's radio button,
// or the tab an ARIA panel names) heads the panel as a heading would, and names the table in it as the
// ingredients a prompt asks for in any language, ahead of a larger box of teasers. On small pages written
// here (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const ingredients: Array<[string, string]> = [
  ['200 g', 'Weizenmehl'],
  ['3', 'Eier'],
  ['250 ml', 'Milch'],
  ['1 EL', 'Zucker'],
  ['1 Prise', 'Salz'],
];

const teasers = [
  'Apfelstrudel mit Vanillesauce nach Omas Rezept',
  'Schneller Zwetschgenkuchen vom Blech für Gäste',
  'Kaiserschmarrn mit Rosinen und Puderzucker',
  'Rhabarber-Crumble mit Haferflocken und Zimt',
  'Quarkkeulchen aus der Pfanne mit Apfelmus',
  'Grießbrei mit heißen Kirschen und Mandeln',
];

const table = `<table class="recipe-table"><tbody>${ingredients
  .map(([q, n]) => `<tr><td>${q}</td><td>${n}</td></tr>`)
  .join('')}</tbody></table>`;

const steps = `<div class="step"><p>Mehl, Eier und Milch zu einem glatten Teig verrühren und zehn Minuten ruhen lassen.</p></div><div class="step"><p>Den Teig portionsweise in einer heißen Pfanne goldbraun backen und warm servieren.</p></div>`;

const more = `<section class="more"><h2>Mehr Rezepte</h2>${teasers
  .map(
    (t, i) =>
      `<div class="teaser"><a href="/rezept/${i}"><img src="/img/${i}.jpg" alt=""><h3>${t}</h3></a><p class="teaser-text">Ein einfaches Rezept für jeden Tag, fertig in ${20 + i * 5} Minuten, mit Zutaten aus dem Vorrat.</p><span class="time">${20 + i * 5} Min</span></div>`,
  )
  .join('')}</section>`;

const radioTabs = `<html><body><h1>Pfannkuchen</h1><div class="tabs"><div class="tab-wrap"><input name="tab" type="radio" id="t-one" checked><label class="tab-name" for="t-one">Zutaten</label><div class="tab-content">${table}</div></div><div class="tab-wrap"><input name="tab" type="radio" id="t-two"><label class="tab-name" for="t-two">Zubereitung</label><div class="tab-content">${steps}</div></div></div>${more}</body></html>`;

const ariaTabs = `<html><body><h1>Pfannkuchen</h1><div role="tablist"><button role="tab" id="tab-a" aria-controls="panel-a">Zutaten</button><button role="tab" id="tab-b" aria-controls="panel-b">Zubereitung</button></div><div class="panel" role="tabpanel" id="panel-a" aria-labelledby="tab-a">${table}</div><div class="panel" role="tabpanel" id="panel-b" aria-labelledby="tab-b">${steps}</div>${more}</body></html>`;

describe('ingredients in a tab panel', () => {
  for (const [kind, page] of [
    ['a radio button tab', radioTabs],
    ['an ARIA tab panel', ariaTabs],
  ] as const) {
    it(`are the table under ${kind} labelled "Zutaten"`, async () => {
      const { records } = await draftRecords(page, 'nombre y cantidad de cada ingrediente');
      expect(records.map((r) => r.cantidad)).toEqual(ingredients.map(([q]) => q));
      expect(records.map((r) => r.nombre)).toEqual(ingredients.map(([, n]) => n));
    });
  }
});
