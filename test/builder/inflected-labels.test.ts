// Words of the prompt and labels of the page in other inflections or split by the page's markup: a
// plural asked for and a singular label ("raciones" / "Ración para:", "categoría" / "Categorías:"), a
// label React writes in pieces ("Ración para<!-- -->:"), a rating word that is also a news noun
// ("nota"), title words of films and books in Chinese and Japanese, and "all" after the noun in
// Japanese asking for a list; and a definition term each record writes differently, which is a value.
import { describe, expect, it } from 'vitest';
import { asksForList } from '../../src/services/builder/inference/list-cue.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const asked = (prompt: string) => promptRequests(prompt).map((r) => `${r.word}:${r.concept ?? ''}`);

describe('a label in another inflection of the prompt word', () => {
  it('gives the value after a singular label for a plural word, the label split by comments', async () => {
    const page = `<html><head><script type="application/ld+json">{"@type":"Recipe","name":"Pan de espelta"}</script></head>
      <body><main><h1>Pan de espelta</h1>
      <div><p class="label">Tiempo de preparación<!-- -->:</p><p>No disponible</p></div>
      <div><p class="label">Ración para<!-- -->:</p><p>4 personas</p></div>
      <div><p class="title">Categorías<!-- -->:</p><p class="x">Masas, panes y repostería</p></div>
      <p>Un pan integral muy fácil de elaborar, con harina de espelta y de centeno.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'título, categoría y raciones de la receta');
    expect(records).toEqual([
      { titulo: 'Pan de espelta', categoria: 'Masas, panes y repostería', raciones: '4 personas' },
    ]);
  });

  it('takes no compound for an inflection', async () => {
    const page = `<html><body><main><h1>Ein Albtraum</h1><div><b>Titelbild:</b> <span>Foto: dpa</span></div>
      <p>Der Reporter hat das Magazin in eine schwere Krise gestürzt.</p></main></body></html>`;
    const { records } = await draftRecords(page, 'Titel des Artikels');
    expect(records).toEqual([{ titel: 'Ein Albtraum' }]);
  });
});

describe('prompt words in several languages', () => {
  it('reads "nota" as a rating beside other fields, as the page noun after "de la"', () => {
    expect(asked('título, nota e número de votos da receita')).toEqual([
      'titulo:title',
      'nota:rating',
      'votos_count:points',
    ]);
    expect(asked('el título de la nota y su bajada')).toEqual(['titulo:title', 'bajada:description']);
  });

  it('reads the title words of films and books in Chinese and Japanese', () => {
    expect(asked('每部电影的片名和评分')).toEqual(['片名:title', '评分:rating']);
    expect(asked('書名と著者')).toEqual(['書名:title', '著者:author']);
  });

  it('reads "all" after the noun in Japanese and Chinese as asking for a list', () => {
    expect(asksForList('材料の名前と分量を全部')).toBe(true);
    expect(asksForList('列出全部商品的名称和价格')).toBe(true);
    expect(asksForList('記事のタイトルと日付')).toBe(false);
  });
});

describe('a definition term each record writes differently', () => {
  it('is a value of its own when it opens with a number, and the <dd> after it is one field', async () => {
    const rows = [
      ['40 gr', 'ontbijtspek'],
      ['250 gr', 'runderriblappen'],
      ['1', 'ui'],
      ['1 teentje', 'knoflook'],
      ['100 ml', 'rode wijn'],
    ];
    const page = `<html><body><h1>Boeuf bourguignon</h1><h2>Ingrediënten</h2><dl>${rows
      .map(([q, n]) => `<div class="ingredient"><dt>${q}</dt><dd>${n}</dd></div>`)
      .join('')}</dl><p>Snijd het vlees in blokjes en bak het spek uit.</p></body></html>`;
    const { records } = await draftRecords(page, 'la cantidad y el nombre de cada ingrediente');
    expect(records.slice(0, 3)).toEqual([
      { cantidad: '40 gr', nombre: 'ontbijtspek' },
      { cantidad: '250 gr', nombre: 'runderriblappen' },
      { cantidad: '1', nombre: 'ui' },
    ]);
  });
});
