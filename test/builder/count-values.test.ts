// A count of things the prompt asks for ("number of ratings", "número de productos"): a field of its own
// even beside the things themselves, read from the value that is a number with at most the thing's word
// ("(2 products)") or from the element classed as the count, as a number. On small pages written here.
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { inferDetailFields } from '../../src/services/builder/inference/detail.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const categories = `<html><body><h1>Catalogue</h1><div class="categories">${[
  ['Hand tools', 12],
  ['Garden', 7],
  ['Paint', 31],
  ['Lighting', 2],
]
  .map(
    ([name, n]) =>
      `<div class="category"><a class="name" href="/c/${name}">${name}</a><span class="hint">(${n} products)</span></div>`,
  )
  .join('')}</div></body></html>`;

describe('a count of things', () => {
  it('is a field of its own beside the things asked for, and not a phone number', () => {
    const asked = (p: string) => promptRequests(p).map((r) => [r.word, r.concept, r.written]);
    expect(asked('rating and number of ratings')).toEqual([
      ['rating', 'rating', undefined],
      ['rating_count', 'reviews', 'number_of_ratings'],
    ]);
    expect(asked('nombre y número de teléfono de cada tienda').map((r) => r[0])).not.toContain('telefono_count');
  });

  it('is read from a number written with the word of the things counted, as a number', async () => {
    const { proposal, records } = await draftRecords(categories, 'name, number of products and link of each category');
    const count = proposal.definition.list.fields.find((f) => f.name === 'number_of_products');
    expect(count?.transform).toBe('number');
    expect(records.map((r) => r.number_of_products)).toEqual([12, 7, 31, 2]);
  });

  it('on a page of one item, is read from the element classed as the count, not the rating beside it', () => {
    const $ = load(`<html><body><h1>Pizza</h1><div class="review-bar">
      <div class="review-bar__rating">4.8</div><div class="review-bar__rating-count">(489)</div>
      <div class="review-bar__comments">330 Reviews</div></div></body></html>`);
    const { fields } = inferDetailFields(
      [$],
      [{ name: 'number_of_ratings', concept: 'reviews', word: 'rating_count' }],
    );
    expect(fields).toEqual([
      { name: 'number_of_ratings', selector: 'div.review-bar__rating-count', transform: 'number' },
    ]);
  });
});
