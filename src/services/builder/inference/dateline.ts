// The line under an article's headline: its date, and the name standing right before the date in it
// ("<span>松村太郎</span><span>2019年04月13日</span>", "<h3>Céline Mazur</h3> <time>14/05/25</time>"),
// which is who wrote it when nothing else names the author.
import type { CheerioAPI } from 'cheerio';
import { BYLINE_WORD } from './byline.js';
import { showsDate } from './date-shape.js';
import { normalizeText, ownText } from './dom-text.js';
import { isElement, type Element } from './selectors.js';

/** Own text this long at most is a byline or a dateline, not a paragraph mentioning a date. */
const DATELINE_MAX_LENGTH = 80;

/** A person's name is a few words: longer text is a sentence, a title or a list. */
const NAME_MAX_LENGTH = 40;

/** Whether an element's own text (its children's left out) shows a date and is short enough to be a dateline. */
export function datedOwnText(el: Element): boolean {
  const own = normalizeText(ownText(el));
  return own.length <= DATELINE_MAX_LENGTH && showsDate(own);
}

/**
 * The first element after the page's first <h1> whose own text shows a date, outside navigation and
 * footers. A header holding the <h1> is the article's own, whether or not an <article> wraps it.
 */
export function dateAfterHeading($: CheerioAPI): Element | undefined {
  const all = $('body *').toArray();
  const outside = (el: Element) => $(el).closest('nav, footer').length === 0;
  const heading = all.findIndex((el) => el.name === 'h1' && outside(el));
  if (heading < 0) return undefined;
  return all
    .slice(heading + 1)
    .find((el) => !['script', 'style', 'option'].includes(el.name) && outside(el) && datedOwnText(el));
}

/**
 * The element right before the date under the headline (past empty ones, as an avatar), when it holds a
 * name: a short text without digits, no byline word or label alone. The date's wrappers holding nothing
 * else are the date (`<span><a>2019年04月13日</a></span>`).
 */
export function nameBeforeDate($: CheerioAPI): Element | undefined {
  let date = dateAfterHeading($);
  if (!date) return undefined;
  const text = (el: Element) => normalizeText($(el).text());
  while (isElement(date.parent) && date.parent.name !== 'body' && text(date.parent) === text(date)) date = date.parent;
  let before = date.prev;
  while (before && (!isElement(before) || text(before) === '')) {
    // Words between the name and the date ("Ann Lee, 3 May") are no name of an element of its own.
    if (!isElement(before) && normalizeText((before as unknown as { data?: string }).data ?? '') !== '')
      return undefined;
    before = before.prev;
  }
  if (!before || !isElement(before)) return undefined;
  const name = text(before);
  return name.length <= NAME_MAX_LENGTH &&
    !/\d/.test(name) &&
    !/[:：]$/.test(name) &&
    !BYLINE_WORD.test(name) &&
    !/^h[12]$/.test(before.name) &&
    $(before).find('h1, h2').length === 0
    ? before
    : undefined;
}
