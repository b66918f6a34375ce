// A count of things asked for in any of the prompts' languages ("number of votes", "Anzahl der
// Bewertungen", "aantal personen", "nombre de parts", "评价人数") is one field, named by the counted noun,
// and its value is found where the page writes the number before that noun, inside a longer text
// ("(33 Bewertungen)", "4.1/5 - (62 votes)", "939937人评价").
import { describe, expect, it } from 'vitest';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const asked = (prompt: string) => promptRequests(prompt).map((r) => `${r.word}:${r.concept ?? ''}`);

describe('a count asked for in several languages', () => {
  it('is one request of the counted thing, whatever the count word and with or without a preposition', () => {
    expect(asked('Titel und Anzahl der Bewertungen')).toEqual(['titel:title', 'bewertungen_count:reviews']);
    expect(asked('titel en aantal personen')).toEqual(['titel:title', 'personen_count:']);
    expect(asked('le titre et le nombre de parts')).toEqual(['titre:title', 'part_count:']);
    expect(asked('título e número de votos')).toEqual(['titulo:title', 'votos_count:points']);
    expect(asked('每部电影的片名和评价人数')).toEqual(['片名:title', '评价_count:reviews']);
  });

  it('is named by the counted noun, or by its phrase when the noun is asked for too or names records', () => {
    const named = (prompt: string) => promptRequests(prompt).map((r) => r.written ?? r.word);
    expect(named('title and number of votes')).toEqual(['title', 'votes']);
    expect(named('rating and number of ratings')).toEqual(['rating', 'number_of_ratings']);
    expect(named('name and number of products')).toEqual(['name', 'number_of_products']);
  });

  it('keeps a number or a name of one thing apart from a count', () => {
    expect(asked('nombre y número de teléfono').map((r) => r.split(':')[0])).not.toContain('telefono_count');
    // Spanish "nombre de" is a name: the records' noun after it stays a request of their text.
    expect(asked('el nombre de cada ingrediente')).toEqual(['nombre:title', 'ingrediente:']);
  });
});

describe('a count written inside a text', () => {
  it('reads the number before the counted word on a page read as one record', async () => {
    const page = `<html><head><script type="application/ld+json">{"@type":"Recipe","name":"Estrogonofe de carne"}</script></head>
      <body><main><h1>Estrogonofe de carne</h1>
      <div class="box"><span>Classificação geral:</span><div class="legend">4.1/5 - (62 votes)</div></div>
      <h5>Ingrediënten 4 personen</h5>
      <p>Corte a carne em tirinhas e refogue na manteiga com a cebola.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'título e número de votos da receita');
    expect(records).toEqual([{ titulo: 'Estrogonofe de carne', votos: 62 }]);
    const nl = await draftRecords(page, 'titel en aantal personen van het recept');
    expect(nl.records).toEqual([{ titel: 'Estrogonofe de carne', personen: 4 }]);
  });

  it('reads a count written after its number in Chinese in every record of a list', async () => {
    const films = [
      ['触不可及', '9.3', '939937'],
      ['末代皇帝', '9.3', '755288'],
      ['寻梦环游记', '9.1', '1453085'],
      ['活着', '9.3', '732766'],
    ];
    const page = `<html><body><ol class="grid">${films
      .map(
        ([t, r, n], i) => `<li><div class="item"><em>${i + 1}</em><div class="hd"><a href="/subject/${i}/">
        <span class="title">${t}</span></a></div><div class="star"><span class="rating_num">${r}</span>
        <span>${n}人评价</span></div></div></li>`,
      )
      .join('')}</ol></body></html>`;
    const { records } = await draftRecords(page, '每部电影的片名、评分和评价人数');
    expect(records.slice(0, 2)).toEqual([
      { title: '触不可及', rating: 9.3, reviews: 939937 },
      { title: '末代皇帝', rating: 9.3, reviews: 755288 },
    ]);
  });

  it('reads a count written after a rating in one text in every record of a list', async () => {
    const recipes = [
      ['Estrogonofe de carne', '4.1', 62],
      ['Bolo de cenoura', '4.6', 1240],
      ['Feijoada', '3.9', 8],
      ['Pão de queijo', '4.8', 377],
    ];
    const page = `<html><body><h1>Receitas</h1><div class="grid">${recipes
      .map(
        ([t, r, n], i) => `<div class="card"><a class="name" href="/r/${i}">${t}</a>
        <div class="legend">${r}/5 - (${n} ${n === 1 ? 'vote' : 'votes'})</div></div>`,
      )
      .join('')}</div></body></html>`;
    const { records } = await draftRecords(page, 'nome e número de votos de cada receita');
    expect(records.map((r) => r.votos)).toEqual([62, 1240, 8, 377]);
  });
});
