// The line under an article's headline that sums it up (its standfirst, dek or "Untertitel"): prompts
// name it in many words and pages rarely class it so. It is the element after the page's <h1> showing
// the page's own description (its metadata's), else the first heading or paragraph there that reads as a
// sentence; shorter lines there are tickers, labels and bylines.
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

/** The page's description as its metadata gives it (description, og:description, twitter:description). */
function describedAs($: CheerioAPI): Set<string> {
  const metas = $('head meta').toArray();
  const described = metas.filter((m) =>
    /^(?:og:|twitter:)?description$/i.test(m.attribs.name ?? m.attribs.property ?? ''),
  );
  // Some pages write the value in a `value` attribute rather than `content`.
  return new Set(
    described.map((m) => normalizeText(m.attribs.content ?? m.attribs.value ?? '')).filter((t) => t !== ''),
  );
}

/**
 * A selector for the element after the page's first <h1> whose whole text is the description the
 * page's metadata gives, whatever its tag or length ("We have answers." in a plain <div>), if any.
 */
export function describedUnderHeadline($: CheerioAPI): string | undefined {
  const descriptions = describedAs($);
  if (descriptions.size === 0) return undefined;
  const all = $('body *').toArray();
  const headline = all.findIndex((el) => el.name === 'h1' && $(el).closest('nav, footer').length === 0);
  if (headline < 0) return undefined;
  const found = all
    .slice(headline + 1, headline + 1 + ELEMENTS_READ)
    .find((el) => descriptions.has(normalizeText($(el).text())));
  return (found && firstMatchSelector($, found)) ?? undefined;
}
