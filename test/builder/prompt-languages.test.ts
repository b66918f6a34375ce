// Prompts in nine languages: which fields they ask for, with which concept, under which field name, and
// which of their words name the records rather than a field. Pure rules, no page involved.
import { describe, expect, it } from 'vitest';
import { fieldName, promptRequests, words } from '../../src/services/builder/inference/naming.js';
import { namesTheRecords } from '../../src/services/builder/inference/missing.js';

/** The prompt's requests as "name:concept" (or "name" for a word naming no concept). */
function asked(prompt: string): string[] {
  return promptRequests(prompt)
    .filter((r) => !namesTheRecords(prompt, r.word))
    .map((r) => (r.concept ? `${fieldName(r.word)}:${r.concept}` : fieldName(r.word)));
}

describe('prompts in nine languages', () => {
  it.each([
    ['en', 'title, price, the APR and link of each offer', ['title:title', 'price:price', 'apr', 'link:link']],
    ['de', 'Titel, Preis, Größe und Link jeder Anzeige', ['titel:title', 'preis:price', 'grosse', 'link:link']],
    // A date "de publication" is one date; a noun and its complement are one field ("tempo de preparo").
    ['fr', "le titre, l'auteur et la date de publication", ['titre:title', 'auteur:author', 'date:date']],
    ['pt', 'nome da receita, autor e tempo de preparo', ['nome:title', 'autor:author', 'tempo_de_preparo:duration']],
    ['es', 'fecha, lugar y precio de cada concierto', ['fecha:date', 'lugar:location', 'precio:price']],
    [
      'pt',
      'nome da receita, autor, porções e tempo total',
      ['nome:title', 'autor:author', 'porcoes:quantity', 'tempo:duration'],
    ],
    ['it', "titolo, autore e data dell'articolo", ['titolo:title', 'autore:author', 'data:date']],
    [
      'nl',
      'naam, prijs, adres en telefoonnummer van elk bedrijf',
      ['naam:title', 'prijs:price', 'adres:address', 'telefoonnummer:phone'],
    ],
    ['ja', '各商品のメーカー、商品名、税込価格、在庫', ['brand:brand', 'title:title', 'price:price', 'stock:stock']],
    ['zh', '每条留言的作者、发布时间和内容', ['author:author', 'date:date', 'description:description']],
  ])('%s: %s', (_language, prompt, expected) => {
    expect(asked(prompt)).toEqual(expected);
  });

  it('keeps a word naming no concept as a field to seek, in every script', () => {
    expect(asked('the venue and the reputation gained this week')).toEqual([
      'venue',
      'reputation:reputation',
      'gained',
      'week',
    ]);
    expect(asked('Veranstaltungsort und Datum')).toEqual(['veranstaltungsort', 'datum:date']);
    // A Japanese word the lists lack is one word, named by its code points (field names are ASCII).
    expect(promptRequests('きょうの記念日と誕生花').map((r) => r.word)).toEqual(['記念日', '誕生花']);
    expect(fieldName('記念日')).toBe('f_8a18_5ff5_65e5');
  });

  it('skips the noun that owns the fields ("材料の名前", "留言的作者") and the page nouns', () => {
    expect(asked('このレシピの材料の名前と分量')).toEqual(['title:title', 'quantity:quantity']);
    expect(asked('每种用料的名称和用量')).toEqual(['title:title', 'quantity:quantity']);
    expect(asked('Überschrift, Autor und Datum des Artikels')).toEqual([
      'uberschrift:title',
      'autor:author',
      'datum:date',
    ]);
  });

  it('tells the records from the fields after each, jede, chaque, cada, ogni, elk, 每 and 各', () => {
    expect(namesTheRecords('Name und Datum jedes Kommentars', 'kommentar')).toBe(true);
    expect(namesTheRecords('nom et quantité de chaque ingrédient', 'ingredient')).toBe(true);
    expect(namesTheRecords('nombre y cantidad de cada ingrediente', 'ingrediente')).toBe(true);
    expect(namesTheRecords('nome e quantità di ogni ingrediente', 'ingrediente')).toBe(true);
    expect(namesTheRecords('naam en prijs van elk product', 'product')).toBe(true);
    expect(namesTheRecords('每条留言的作者', '留言')).toBe(true);
    expect(namesTheRecords('各商品のメーカー', '商品')).toBe(true);
    expect(namesTheRecords('the review title and the date', 'review')).toBe(false);
  });

  it('reads labels and class words without case or accents, and CJK labels as words', () => {
    expect(words('Größe')).toEqual(['grosse']);
    expect(words('Quantità')).toEqual(['quantita']);
    expect(words('税込価格')).toEqual(['税込価格']);
    expect(fieldName('Prix (€)')).toBe('prix');
    expect(fieldName('商品名')).toBe('title');
  });
});
