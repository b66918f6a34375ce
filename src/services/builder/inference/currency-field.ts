// "the currency" of a product's page: the sign or code its price is shown with ("€", "CHF", "zł"). An
// element the markup names for it (`itemprop="priceCurrency"`) that shows it is read as it is; else the
// sign or code beside the amount in the price's own text, or in the text around it (the price's element
// may hold the amount alone, the sign in the next span); last, the code the page's metadata gives
// ("EUR" of `<meta itemprop="priceCurrency">`, `product:price:currency`).
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { AMOUNT, CURRENCY_AFTER, CURRENCY_BEFORE } from './currency.js';
import { normalizeText } from './dom-text.js';
import { isElement, type Element } from './selectors.js';

/** The sign or code before an amount, and after one. */
const BEFORE = `(${CURRENCY_BEFORE})\\s*\\d`;
const AFTER = `\\d[\\d.,]*\\s*(${CURRENCY_AFTER})(?:[^\\p{L}]|$)`;

/** Elements whose text holds the amount and its currency: the price's element and up to two around it. */
const LEVELS = 3;

/** Elements the markup names for a price, when no field found the price before the currency was asked. */
const PRICE_ELEMENTS =
  'body [itemprop="price"], body [class*="price" i], body [id*="price" i], body [data-testid*="price" i]';
const MAX_PRICES = 20;

export function currencyField(
  $: CheerioAPI,
  name: string,
  priceEl: Element | undefined,
  selectorOf: (el: Element) => string | null,
): AgentField | undefined {
  const shown = $('body [itemprop="priceCurrency"]')
    .toArray()
    .find((el) => normalizeText($(el).text()) !== '');
  const shownAt = shown && selectorOf(shown);
  if (shownAt) return { name, selector: shownAt, transform: 'trim' };
  // The price's element, else the first elements the markup names for a price.
  const prices = priceEl ? [priceEl] : $<Element, string>(PRICE_ELEMENTS).toArray().slice(0, MAX_PRICES);
  for (const price of prices) {
    for (let el = price, level = 0; el && isElement(el) && level < LEVELS; el = el.parent as Element, level++) {
      const text = normalizeText($(el).text());
      if (text.length > 80 || !new RegExp(AMOUNT).test(text)) continue;
      for (const pattern of [BEFORE, AFTER]) {
        if (!new RegExp(pattern, 'iu').test(text)) continue;
        const selector = selectorOf(el);
        if (selector) return { name, selector, transform: [{ regex: pattern, group: 1, flags: 'i' }] };
      }
    }
  }
  const meta = $(
    '[itemprop="priceCurrency"][content], meta[property="product:price:currency"], meta[property="og:price:currency"]',
  ).first();
  const code = meta.attr('content')?.trim();
  if (meta.length > 0 && code) {
    const selector = meta.is('[itemprop]') ? '[itemprop="priceCurrency"]' : `meta[property="${meta.attr('property')}"]`;
    return { name, selector, attribute: 'content', transform: 'trim' };
  }
  return undefined;
}
