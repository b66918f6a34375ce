// Recipe and product pages of kinds seen on fresh sites: an ingredient line whose amount is an element and
// whose name is the line's own text; a product's barcode number (EAN) under a label of two words; its
// currency, the sign its price is shown with; a rate ("per serving", "每份") that asks for no list; a label
// over a form's controls; a heading opening the metadata's longer title; a price struck through as the
// former one; an element inside another classed for the field; on small pages written here (the draft is proposed without an LLM and
// run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const nav = `<nav><a href="/">Home</a> <a href="/recipes">Recipes</a> <a href="/login">Log in</a></nav>`;

describe('an ingredient line: the amount in bold, the name as the line’s own text', () => {
  const lines = [
    ['4 stk', 'egg'],
    ['2 ss', 'sukker'],
    ['1 l', 'lettmelk'],
    ['3.5 dl', 'hvetemel'],
    ['1 dl', 'havregryn'],
  ];
  const page = `<html><body>${nav}<h1>Grove pannekaker</h1><h2>Ingredienser</h2><ul class="ol">${lines
    .map(([amount, name]) => `<div><li><strong>${amount}</strong> <!-- -->${name}</li></div>`)
    .join('')}</ul><p>Pisk sammen egg og sukker.</p></body></html>`;

  it('reads the name beside the amount', async () => {
    const { records } = await draftRecords(page, 'list every ingredient with its amount');
    expect(records.map((r) => [r.amount, r.ingredient])).toEqual(lines);
  });
});

const product = (details: string, price: string) => `<html><head><title>Filzstift FIBRALO</title>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Filzstift FIBRALO MEDIUM"}</script>
  </head><body>${nav}<h1>Filzstift FIBRALO MEDIUM</h1><div class="buy"><span class="price">${price}</span>
  <span class="fee">Versand CHF 7.95</span></div><h2>Produkt Details</h2><ul>${details}</ul>
  <footer><a href="/help">Hilfe</a></footer></body></html>`;

describe("a product's barcode number under a label of two words", () => {
  const details = `<li><span class="k">Artikel-Nummer</span><span class="v">1049084</span></li>
    <li><span class="k">Gewicht</span><span class="v">0.29 kg</span></li>
    <li><span class="k">EAN-Nummer</span><span class="v">7610186303159</span></li>`;

  it('reads "code EAN" under "EAN-Nummer"', async () => {
    const { records } = await draftRecords(product(details, 'CHF 19.50'), 'nom, prix et code EAN');
    expect(records[0].code_ean).toBe('7610186303159');
  });

  it('reads "EAN-Code" under "Kod EAN:"', async () => {
    const polish = details.replace('EAN-Nummer', 'Kod EAN:');
    const { records } = await draftRecords(product(polish, 'CHF 19.50'), 'Name, Preis und EAN-Code');
    expect(records[0].ean_code).toBe('7610186303159');
  });
});

describe("a product's currency", () => {
  it('is the sign or code its price is shown with', async () => {
    const { records } = await draftRecords(product('<li>Farbe: rot</li>', 'CHF 19.50'), 'Name, Preis und Währung');
    expect(records[0].wahrung ?? records[0].währung).toBe('CHF');
  });

  it('is the element the markup names for it when that shows it', async () => {
    const price = `<span class="amount">259,00</span><meta itemprop="price" content="259.00"><span class="money" itemprop="priceCurrency" content="EUR">€</span>`;
    const { records } = await draftRecords(product('<li>Farbe: rot</li>', price), 'productnaam, prijs en valuta');
    expect(records[0].valuta).toBe('€');
  });
});

const recipe = (extra: string) => `<html><head><title>Whole Wheat Mantou</title>
  <meta property="og:title" content="The Perfect Whole Wheat Mantou Recipe Steamed Buns - The Woks of Life">
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Recipe","name":"Mantou"}</script>
  </head><body><header><h1>Search recipes and ingredients</h1></header>
  <h1 class="entry-title">The Perfect Whole Wheat Mantou Recipe</h1><p class="by">by <span class="author">Judy</span></p>
  <div class="card"><span class="rating-average">4.91</span> from 11 votes
  <span class="nutrition-label">Calories:</span> <span class="nutrition-value">175</span> kcal</div>
  ${extra}
  <aside><h3>Our picks</h3>${['Beef and Broccoli', 'Asian Milk Bread', 'Chicken Adobo', 'Mapo Tofu']
    .map(
      (t) =>
        `<div class="entry"><a class="entry-title-link" href="/${t.length}">${t}</a><p class="pick">pick</p></div>`,
    )
    .join('')}</aside></body></html>`;

describe('a rate in the prompt', () => {
  it('asks for the page as one record: "每份热量" is calories per serving', async () => {
    const { proposal, records } = await draftRecords(recipe(''), '菜名、作者和每份热量');
    expect(proposal.definition.list.selector).toBe('html');
    expect(records[0].title).toBe('The Perfect Whole Wheat Mantou Recipe');
  });
});

describe('"how many" in the prompt', () => {
  it('counts a thing, it asks for no list of them: "how many servings"', async () => {
    const { proposal } = await draftRecords(recipe(''), 'recipe title, author and how many servings');
    expect(proposal.definition.list.selector).toBe('html');
  });
});

describe('a total time asked for in Japanese', () => {
  it('is one duration, not a total and a time of day', () => {
    expect(promptRequests('料理名、合計時間')).toEqual([
      { word: '料理名', concept: 'title' },
      { word: '合計時間', concept: 'duration' },
    ]);
  });
});

describe("a label over a form's controls", () => {
  it('labels no value', async () => {
    const form = `<form><label for="r">Rate this recipe:</label> <span class="stars"><fieldset><legend>Rate this recipe:</legend>
      <input type="radio" name="r" value="1"><input type="radio" name="r" value="5"></fieldset></span></form>`;
    const { records } = await draftRecords(recipe(form), 'title, author and rating');
    expect(records[0].rating).not.toMatch(/Rate this/);
  });
});

describe("a heading opening the metadata's longer title", () => {
  it('is the title, though the page has two main headings', async () => {
    const { records } = await draftRecords(recipe(''), 'recipe title and author');
    expect(records[0].recipe).toBe('The Perfect Whole Wheat Mantou Recipe');
  });
});

const keyboard = `<html><head><title>KORG SV-2 73</title>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"KORG SV-2 73","offers":{"@type":"Offer","price":"1599.00","priceCurrency":"EUR"}}</script>
  </head><body>${nav}<h1>KORG SV-2 73</h1><table><tr><td class="pageHeading"><div><s>€ 1.899,00</s></div>
  <div class="discountPrice"><span class="prodPrice">€ 1.599,00</span> <span class="discount-badge">-15%</span></div>
  <div class="discountDifference">Risparmi € 300,00</div></td></tr></table>
  <div>Codice articolo: <b>103066</b></div></body></html>`;

describe('a product page with a reduced price', () => {
  it('reads the former price struck through and the discount in its own element', async () => {
    const { records } = await draftRecords(keyboard, 'name, price, original price and discount');
    expect(records[0].original_price).toBe('€ 1.899,00');
    expect(records[0].discount).toBe('-15%');
  });
});
