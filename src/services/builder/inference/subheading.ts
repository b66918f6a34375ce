// The line under an article's headline that sums it up (its standfirst, dek or "Untertitel"): prompts
// name it in many words and pages rarely class it so. It is the first heading or paragraph after the
// page's <h1> that reads as a sentence; shorter lines there are tickers, labels and bylines.
import type { CheerioAPI } from 'cheerio';
import { showsDate } from './date-shape.js';
import { normalizeText } from './dom-text.js';
import { fieldWordVariants } from './field-words.js';
import { firstMatchSelector } from './page-record.js';

/** A sentence this long at least; shorter lines under a headline are tickers, labels and bylines. */
const SENTENCE_MIN_LENGTH = 40;
/** A standfirst is no longer than this; longer paragraphs are the article's body. */
const SENTENCE_MAX_LENGTH = 300;
/** How many elements after the headline are read for it. */
const ELEMENTS_READ = 40;

/** Whether a prompt's word names the line under a headline ("subheadline", "Untertitel", "sottotitolo"). */
export function namesSubheading(word: string): boolean {
  return fieldWordVariants(word).includes('subheadline');
}

/** A selector for the first sentence-like <h2>-<h6> or <p> after the page's first <h1>, if any. */
export function subheadingAfterHeadline($: CheerioAPI): string | undefined {
  const all = $('body *').toArray();
  const headline = all.findIndex((el) => el.name === 'h1' && $(el).closest('nav, footer').length === 0);
  if (headline < 0) return undefined;
  const found = all.slice(headline + 1, headline + 1 + ELEMENTS_READ).find((el) => {
    if (!/^(?:h[2-6]|p)$/.test(el.name)) return false;
    const text = normalizeText($(el).text());
    return (
      text.length >= SENTENCE_MIN_LENGTH &&
      text.length <= SENTENCE_MAX_LENGTH &&
      /[.!?…]$/.test(text) &&
      !showsDate(text)
    );
  });
  return (found && firstMatchSelector($, found)) ?? undefined;
}
