// The words of a byline in the prompts' languages: the verb it may open with ("Posted", "Verfasst",
// "publié") and the word before the author's name ("by", "von", "par", "por", "door"). One source for
// the rules that read an author out of a byline (value-form.ts, detail.ts) or name an element the author
// because a byline's words stand right before it (values.ts).
import type { CheerioAPI } from 'cheerio';
import { normalizeText } from './dom-text.js';
import { isElement, type Element } from './selectors.js';

/** "Posted", "geschrieben", "publié"...: the verb a byline may open with, before its "by". */
export const BYLINE_VERB =
  '(?:posted|written|published|reported|geschrieben|verfasst|veröffentlicht|publié|écrit|rédigé|publicado|escrito|pubblicato|scritto|geplaatst|geschreven)';

/** The word before an author's name that says little else ("de", "van" are also names' particles). */
export const BYLINE_BY = '(?:by|von|par|por|door|di|da|af|av)';

/** A text ending in a byline's words, so that the element after it is the author ("Verfasst von <a>…"). */
const ENDS_IN_BYLINE = new RegExp(`(?:^|[\\s(])(?:${BYLINE_VERB}\\s+)?${BYLINE_BY}\\s*:?\\s*$`, 'i');

/** Whether the text right before an element (its previous sibling's text) ends in a byline's words. */
export function endsInByline(textBefore: string): boolean {
  return ENDS_IN_BYLINE.test(textBefore.replace(/\s+/g, ' '));
}

/** A byline's opening word alone ("By", "Von", "Posted by"). */
export const BYLINE_WORD = new RegExp(`^(?:${BYLINE_VERB}\\s+)?${BYLINE_BY}\\s*:?$`, 'i');

/**
 * The element holding the author's name in a byline whose opening word stands in an element of its own:
 * the element right after the word (`<span>by</span> <a>Lucas Nolan</a>`, `<span>Por</span><strong>…`),
 * else the element around both (`<a><span>By</span>Travis Haney</a>`); a byline holding its name itself is
 * the name's element.
 */
export function bylineName($: CheerioAPI, byline: Element): Element {
  const word = normalizeText($(byline).text());
  if (!BYLINE_WORD.test(word)) return byline;
  // Only blanks between the word and the next element: that element follows the word directly.
  let next = byline.next;
  while (next && next.type === 'text' && normalizeText((next as unknown as { data: string }).data) === '')
    next = next.next;
  if (next && isElement(next) && normalizeText($(next).text()) !== '') return next;
  const parent = byline.parent;
  const around = isElement(parent) ? normalizeText($(parent).text()) : '';
  return isElement(parent) && around.startsWith(word) && around.length > word.length ? parent : byline;
}
