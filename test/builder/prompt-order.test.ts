// Fields a prompt names by words the page gives no hook for (no label, class or shape says which value
// they are): prompts name fields in the order the records show them, so such a word is the plain value
// between the values found for its neighbours. On small pages written here (no LLM).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const RESTAURANTS = [
  ['New Castle', 'Argyll & Industrial', '8170 50 St NW, Edmonton, AB T6B1E6'],
  ['Padmanadi', 'Downtown Core', '10740 101 St NW, Edmonton, AB T5H2S6'],
  ['Tres Carnales', 'Rice Howard Way', '10119 100A St NW, Edmonton, AB T5J0R9'],
  ['Ampersand', 'Oliver Village', '10612 82 Ave NW, Edmonton, AB T6E2A7'],
];

const results = (card: (r: string[], i: number) => string) =>
  `<html><body><h1>Restaurants</h1><div class="results">${RESTAURANTS.map(card).join('')}</div></body></html>`;

describe('a word naming no value the page tells', () => {
  it('is the plain value between the values of the words around it', async () => {
    const html = results(
      ([name, area, address], i) =>
        `<div class="result"><a class="bold" href="/r/${i}">${name}</a><em>New</em><b>${area}</b><div class="address">${address}</div><span class="votes">${i + 3} votes</span></div>`,
    );
    const { records } = await draftRecords(html, 'nom, quartier et adresse de chaque restaurant');
    expect(records).toEqual(RESTAURANTS.map(([nom, quartier, adresse]) => ({ nom, quartier, adresse })));
  });

  it('as the last word asked, is the first plain value after the one before it, inside its box', async () => {
    const html = results(
      ([name], i) =>
        `<div class="project"><span class="title"><a href="/p/${i}">${name}</a></span><span class="author">by <a href="/u/${i}">cook${i}</a></span><span class="channel">in <a href="/c/${i}">${['Food', 'Travel', 'Garden', 'Tech'][i]}</a></span><span class="views">${i}K</span></div>`,
    );
    const { records } = await draftRecords(html, 'titolo, autore e categoria di ogni progetto');
    expect(records[1]).toEqual({ titolo: 'Padmanadi', autore: 'cook1', categoria: 'Travel' });
  });

  it('is left out, and reported, when two plain values lie between its neighbours', async () => {
    const html = results(
      ([name, area, address], i) =>
        `<div class="result"><a class="bold" href="/r/${i}">${name}</a><b>${area}</b><i>Open until ${i + 8} pm</i><div class="address">${address}</div></div>`,
    );
    const { proposal } = await draftRecords(html, 'nom, quartier et adresse de chaque restaurant');
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['nom', 'adresse']);
    expect(proposal.notes.join('\n')).toMatch(/Field "quartier" not found/);
  });

  it('is never a count or a measure ("3 rok"): names are asked this way', async () => {
    const html = results(
      ([name, , address], i) =>
        `<div class="result"><a class="bold" href="/r/${i}">${name}</a><span>${i + 2} rok</span><div class="address">${address}</div></div>`,
    );
    const { proposal } = await draftRecords(html, 'nom, quartier et adresse de chaque restaurant');
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['nom', 'adresse']);
  });
});
