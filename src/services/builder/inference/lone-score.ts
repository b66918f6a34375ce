// A review's score shown alone under its headline ("6.2", "8/10", "4,5 / 5"): no label or class names it
// on many review pages, but its shape does, a number with a decimal or over a scale, no greater than the
// scale (ten when none is written). A whole number alone is as often a count, a rank or a year.
import type { CheerioAPI } from 'cheerio';
import { normalizeText } from './dom-text.js';
import { firstMatchSelector } from './page-record.js';
import { isElement, type Element } from './selectors.js';
import { mainHeading } from './subject.js';

const SCORE = /^(\d{1,2}(?:[.,]\d{1,2})?)(?:\s*\/\s*(5|10|20|100))?$/;

const CURRENCY = /[$€£¥₹]|\b(?:EUR|USD|GBP|CHF|JPY)\b/;

/** Whether a text is a score alone: "6.2", "8/10", "4,5 / 5". */
export function isLoneScore(text: string): boolean {
  const m = SCORE.exec(text);
  if (!m || (!/[.,]/.test(m[1]) && m[2] === undefined)) return false;
  return Number(m[1].replace(',', '.')) <= Number(m[2] ?? 10);
}

/** A selector for the first leaf after the page's main heading showing a score alone, outside navigation and side columns. */
export function scoreAfterHeading($: CheerioAPI): string | undefined {
  const heading = mainHeading($);
  if (!heading) return undefined;
  const all = $('body *').toArray();
  const start = all.indexOf(heading);
  const found = all.slice(start + 1).find(
    (el: Element) =>
      !el.children.some(isElement) &&
      isLoneScore(normalizeText($(el).text())) &&
      // A price written apart from its currency ("4.99" beside "€") is no score.
      !CURRENCY.test(normalizeText($(el.parent ?? el).text())) &&
      $(el).closest('nav, footer, aside').length === 0,
  );
  return (found && firstMatchSelector($, found)) ?? undefined;
}
