// Choosing the repeated structure a prompt asks for on pages of unseen sites: prompts written as a
// question or a request, records laid out as cards in the cells of a layout table, a table whose header
// row is written with plain cells, records whose own box no selector tells apart. Each on
// a small page written here (the draft is proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { normalizeWord } from '../../src/services/builder/inference/word-tokens.js';
import { draftRecords } from '../helpers/draft-records.js';

const recipe = `<html><body><nav><ul><li><a href="/">Home</a></li><li><a href="/recipes">Recipes</a></li>
  <li><a href="/about">About</a></li></ul></nav>
  <article><h1>Carrot salad</h1><p>A quick salad for the lunch box, ready in ten minutes and good for days.</p>
  <ul class="ingredients"><li class="ingredient">3 large carrots</li><li class="ingredient">1 Tbs. soy sauce</li>
  <li class="ingredient">1/4 tsp. salt</li><li class="ingredient">1 whole red chili pepper</li></ul>
  <p>Grate the carrots, mix everything and let it rest for an hour before serving.</p></article></body></html>`;

const lines = ['3 large carrots', '1 Tbs. soy sauce', '1/4 tsp. salt', '1 whole red chili pepper'];

describe('a prompt written as a question or a request', () => {
  it('leaves the words of the question aside, in Latin and CJK scripts', () => {
    expect(promptRequests('Welche Zutaten brauche ich?').map((r) => r.word)).toEqual(['zutaten']);
    expect(promptRequests('elenca gli ingredienti').map((r) => r.word)).toEqual(['ingredienti']);
    expect(promptRequests('このレシピの材料を全部教えてください').map((r) => r.word)).toEqual(['材料']);
    expect(promptRequests('这个食谱需要哪些材料？').map((r) => r.word)).toEqual(['材料']);
  });

  it('keeps the voicing marks of kana, so that the words of the lists match as written', () => {
    expect(normalizeWord('ください')).toBe('ください');
    expect(normalizeWord('Größe')).toBe('grosse');
  });

  it('asks for the records it names, each one whole', async () => {
    for (const prompt of [
      'Welche Zutaten brauche ich?',
      'このレシピの材料を全部教えてください',
      '这个食谱需要哪些材料？',
    ]) {
      const { records } = await draftRecords(recipe, prompt);
      expect(records.map((r) => Object.values(r)[0])).toEqual(lines);
      expect(Object.keys(records[0])[0]).toBe('ingredient');
    }
  });

  it('asks for the list even on a page that declares one recipe', async () => {
    const declared = recipe.replace(
      '<html>',
      '<html><head><script type="application/ld+json">{"@type":"Recipe","name":"Carrot salad"}</script></head>',
    );
    const { records } = await draftRecords(declared, 'les ingrédients de la recette');
    expect(records.map((r) => Object.values(r)[0])).toEqual(lines);
  });
});

describe('cards in the cells of a layout table', () => {
  const card = (name: string, n: number) => `<td class="Body"><table class="CategoryBox"><tbody>
    <tr><td colspan="2"><a class="CategoryName" href="/${name.replace(/ /g, '_')}/">${name}</a></td></tr>
    <tr><td><span class="Count">(${n} products)</span></td><td><a href="/${name.replace(/ /g, '_')}/">View</a></td></tr>
    </tbody></table></td>`;
  const names = ['Albumin', 'Annexin', 'Apolipoprotein', 'Calbindin', 'Cathepsin', 'Chemokines'];
  const page = `<html><body><table><tbody><tr><td class="Menu"><a href="/">Home</a> <a href="/about">About</a></td>
    <td><table><tbody>
    <tr>${card(names[0], 3)}${card(names[1], 15)}</tr>
    <tr>${card(names[2], 7)}${card(names[3], 2)}</tr>
    <tr>${card(names[4], 11)}${card(names[5], 40)}</tr>
    </tbody></table></td></tr></tbody></table></body></html>`;

  it('gives one record per card, not per row', async () => {
    const { records } = await draftRecords(page, 'name and link of each category');
    expect(records.map((r) => r.name)).toEqual(names);
  });
});

describe('a table whose header row is written with plain cells', () => {
  const rows = [
    ['1', 'AKERDHAL', 'Robert', 'A man felling a tree', '1911'],
    ['2', 'AKERDHAL', 'Sigrid', 'Hands on a harp', '1909'],
    ['3', 'BAUER', 'Hans', 'An owl on a book', '1920'],
    ['4', 'CARLSEN', 'Anna', 'A ship at sea', '1931'],
  ];
  const page = `<html><body><h1>Collection</h1><table><tbody>
    <tr><td></td><td>Eigner</td><td>Vorname</td><td>Motiv</td><td>Jahr</td></tr>
    ${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')}
    </tbody></table></body></html>`;

  it('names the columns by its words', async () => {
    const { records } = await draftRecords(page, 'Eigner, Vorname und Motiv jedes Exlibris');
    const data = records.filter((r) => r.motiv !== 'Motiv');
    expect(data.slice(0, 2)).toEqual([
      { eigner: 'AKERDHAL', vorname: 'Robert', motiv: 'A man felling a tree' },
      { eigner: 'AKERDHAL', vorname: 'Sigrid', motiv: 'Hands on a harp' },
    ]);
  });
});

describe('records whose own box no selector tells from the layout kit around them', () => {
  const entry = (street: string, price: string, area: string, extra = '') => `<li class="result-list__listing">
    <article class="result-list-entry result-list-entry--m${extra}"><div class="grid grid-flex">
    <div class="grid-item"><a href="/expose/${price.replace(/\D/g, '')}"><h5>Family house</h5></a>
    <div class="result-list-entry__address">${street}</div></div>
    <div class="grid grid-flex"><dl class="grid-item"><dd>${price}</dd><dt>Kaufpreis</dt></dl>
    <dl class="grid-item"><dd>${area}</dd><dt>Wohnfläche</dt></dl></div></div></article></li>`;
  const page = `<html><body><div class="grid grid-flex"><div class="grid-item"><a href="/">Home</a></div>
    <div class="grid-item"><a href="/search">Search</a></div></div>
    <ul id="resultListItems">${entry('Hauptstraße 1, Siegen', '59.000 €', '389 m²')}
    ${entry('Windeck, Rhein-Sieg-Kreis', '499.000 €', '230 m²')}${entry('Reichshof, Oberberg', '265.000 €', '175 m²')}
    ${entry('Hilchenbach, Siegen', '319.000 €', '200 m²', ' result-list-entry--xl')}</ul>
    <div class="grid grid-flex"><div class="grid-item"><p>Imprint and privacy: all rights reserved by the site.</p></div></div>
    </body></html>`;

  it('gives one record per listing', async () => {
    const { records } = await draftRecords(page, 'Adresse und Kaufpreis jedes Hauses');
    expect(records.map((r) => r.kaufpreis)).toEqual([59000, 499000, 265000, 319000]);
  });
});

describe('cards wrapped whole in their link', () => {
  const car = (id: number, title: string, price: string) => `<a class="result-item" href="/details.html?id=${id}">
    <div class="g-row"><div class="g-col-3"><img src="/img/${id}.jpg" alt=""></div><div class="g-col-9">
    <span class="headline">${title}</span><span class="price">${price}</span><div>EZ 06/2011, 84.271 km</div></div></div></a>`;
  const page = `<html><body><nav><a href="/">Home</a> <a href="/sell">Sell</a></nav><div class="results">
    ${car(1, 'Volkswagen Caddy Life', '19.990 €')}${car(2, 'Volkswagen Caddy Maxi', '17.780 €')}
    ${car(3, 'Volkswagen Caddy Trendline', '19.697 €')}${car(4, 'Volkswagen Caddy Kombi', '12.500 €')}</div></body></html>`;

  it('keeps the link as the record\u2019s address', async () => {
    const { records } = await draftRecords(page, 'titolo, prezzo e link di ogni auto');
    expect(records.map((r) => r.link)).toEqual([1, 2, 3, 4].map((i) => `https://example.com/details.html?id=${i}`));
    expect(records.map((r) => r.titolo)).toEqual([
      'Volkswagen Caddy Life',
      'Volkswagen Caddy Maxi',
      'Volkswagen Caddy Trendline',
      'Volkswagen Caddy Kombi',
    ]);
  });
});

describe('dates written with their time after a comma, or counted back in the page language', () => {
  const post = (who: string, when: string, text: string) => `<li class="postbit"><div class="userinfo">
    <a class="username" href="/members/${who}">${who}</a><dl class="userstats"><dd>${when}</dd></dl></div>
    <div class="postbody"><blockquote>${text}</blockquote></div></li>`;
  const page = (dates: string[]) => `<html><body><nav><a href="/">Forum</a></nav><ol class="posts">
    ${post('Predator', dates[0], 'The update is rolling out in waves, be patient.')}
    ${post('Chatfix', dates[1], 'Mine arrived this morning, no problems so far.')}
    ${post('sunset', dates[2], 'Still nothing here, but the servers seem busy today.')}</ol></body></html>`;

  it('reads them as the date asked for', async () => {
    for (const dates of [
      ['03.03.2011, 14:17', '03.03.2011, 14:27', '03.03.2011, 14:37'],
      ['1 Monat her', 'vor 3 Tagen', '2 Jahre her'],
      ['il y a 2 jours', 'il y a 5 jours', 'il y a 1 mois'],
    ]) {
      const { records } = await draftRecords(page(dates), "l'auteur et la date de chaque message");
      expect(records.map((r) => r.date)).toEqual(dates);
    }
  });
});

describe("the article's own bare list among the page's other bare lists, under a label paragraph", () => {
  const page = (label: string) => `<html><body><div class="menu"><ul><li><a href="/a">Cakes</a></li>
    <li><a href="/b">Breads</a></li><li><a href="/c">Drinks</a></li><li><a href="/d">Soups</a></li></ul></div>
    <div class="post-content"><p>古早味迷你烤鸡蛋糕，小孩的最爱。用简单的材料做出浓郁蛋香味的小蛋糕。</p>
    <p>分量：30 个</p>${label}<ul><li>4 个 蛋 (A级)</li><li>125 克 细砂糖</li><li>⅛ 茶匙 细盐</li><li>115 克 普通面粉</li></ul>
    <p>做法：把蛋和糖打发，加入面粉拌匀，倒入模具，烤二十分钟。</p><p>烤好后放凉，再从模具中取出。</p>
    <p>可以在密封盒里保存三天。</p></div>
    <div class="widget"><ul><li><a href="/x">Popular one</a></li><li><a href="/y">Popular two</a></li>
    <li><a href="/z">Popular three</a></li></ul></div></body></html>`;

  it('is found and read when the prompt asks for what the label names', async () => {
    for (const label of ['<p>材料：</p>', '<p><strong>材料</strong></p>']) {
      const { records } = await draftRecords(page(label), '这个食谱需要哪些材料？');
      expect(records).toEqual(
        ['4 个 蛋 (A级)', '125 克 细砂糖', '⅛ 茶匙 细盐', '115 克 普通面粉'].map((ingredient) => ({ ingredient })),
      );
    }
  });
});
