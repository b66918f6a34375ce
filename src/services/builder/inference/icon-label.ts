// An icon labelling the value beside it: an image or an empty element whose text alternative is the field's
// word (`<li><img src="author.svg" alt="author"> 小暮ひさのり</li>`). Screen readers read it as the label,
// and the value is the rest of the element holding both.
import type { CheerioAPI } from 'cheerio';
import { normalizeText } from './dom-text.js';
import { isOwnWord } from './own-word-label.js';
import { firstMatchSelector } from './page-record.js';
import { isElement, type Element } from './selectors.js';

/** The element holding an icon and its value is a line: longer text is a section that merely holds an icon. */
const LINE_MAX_LENGTH = 80;

/** A selector for the first element of the page's content holding an icon that names the field and a value beside it. */
export function iconLabelled($: CheerioAPI, words: Set<string>): string | undefined {
  for (const icon of $('body img[alt], body [aria-label], body [title]').toArray()) {
    const alt = normalizeText(icon.attribs.alt ?? icon.attribs['aria-label'] ?? icon.attribs.title ?? '');
    // An icon has no text of its own; a link or a box titled for the field is named, not labelled.
    if (alt === '' || normalizeText($(icon).text()) !== '' || !isOwnWord(words, alt)) continue;
    if ($(icon).closest('nav, footer, aside').length > 0) continue;
    let box: Element | null = isElement(icon.parent) ? icon.parent : null;
    while (box && box.name !== 'body' && normalizeText($(box).text()) === '')
      box = isElement(box.parent) ? box.parent : null;
    if (!box || box.name === 'body') continue;
    const text = normalizeText($(box).text());
    if (text.length > LINE_MAX_LENGTH) continue;
    const selector = firstMatchSelector($, box);
    if (selector) return selector;
  }
  return undefined;
}
