// A field's own word standing alone in an element is its label, not its value ("votes" beside "13",
// `<h3>Light</h3><div>Icy blue</div>`): the value is in the label's short parent, without the label; and a
// wiki's footnote marks after a value ("Icy blue[1]") are references, not part of it.
import type { CheerioAPI } from 'cheerio';
import { fieldWordVariants } from './field-words.js';
import { normalizeText } from './dom-text.js';
import { CONCEPT_WORDS, singular, type Concept } from './naming.js';
import { firstMatchSelector } from './page-record.js';
import { isElement, type Element } from './selectors.js';
import { normalizeWord } from './word-tokens.js';

/** A label's parent this long at most is the label with its value, not a section holding it. */
const LABELLED_MAX_LENGTH = 40;

/**
 * A footnote's mark after a value ("68,042,591[3]", "Paris[a]"), as wikis and reference tables write
 * them: a pattern of RE2 and JavaScript alike, for the `replace` steps of drafts.
 */
export const FOOTNOTE_MARK = '\\s*\\[(?:\\d{1,3}|[a-z])\\]';

/** Footnote marks closing a value ("Icy blue[1]", "Conjures water[2][3]"). */
export const FOOTNOTES = new RegExp(`(?:${FOOTNOTE_MARK})+\\s*$`);

/** Words of a change to a page ("Updated", "aktualisiert", "更新"): they label the date it changed. */
const UPDATE = /updat|modifi|aktuali|actuali|atuali|aggiorn|bijgewerkt|geändert|更新|обновл/i;

/**
 * The words that may name a request's field: its own, its field word's variants and its concept's. A date's
 * word of a change ("Updated") labels the date the page changed, not the one it was published: it names
 * the field only when the request speaks of a change ("data aktualizacji", "更新时间").
 */
export const requestWords = (request: { word: string; concept: Concept | undefined }) =>
  new Set([
    ...fieldWordVariants(request.word),
    request.word,
    ...(request.concept ? CONCEPT_WORDS[request.concept] : []).filter(
      (w) => request.concept !== 'date' || !UPDATE.test(w) || UPDATE.test(request.word),
    ),
  ]);

/** Whether a text is one of the words (or a plural of one). */
export const isOwnWord = (words: Set<string>, text: string) =>
  words.has(normalizeWord(text)) || words.has(singular(normalizeWord(text)));

/** A selector for a label's parent when that holds a short text with more than the label ("13 votes"). */
export function labelledParent($: CheerioAPI, label: Element): string | null {
  const parent = label.parent;
  // A table's cell labels the cells of its column or row, not the row holding it (a header row).
  if (!isElement(parent) || label.name === 'th' || label.name === 'td') return null;
  const text = normalizeText($(label).text());
  const parentText = normalizeText($(parent).text());
  return parentText.length > text.length && parentText.length <= LABELLED_MAX_LENGTH
    ? firstMatchSelector($, parent)
    : null;
}

/** The label a box opens with when its first element holds the field's own word alone: the value is the rest. */
export function ownWordLabel($: CheerioAPI, selector: string, words: Set<string>): string | undefined {
  const box = $(selector).first();
  const first = box.children().first();
  const label = normalizeText(first.text());
  const text = normalizeText(box.text());
  return first.length > 0 && isOwnWord(words, label) && text.startsWith(label) && text.length > label.length
    ? label
    : undefined;
}

/** "Autor: Max Muster", "著者：後藤大地": a short label before a colon, then the value. */
const INLINE_LABEL = /^([^:：]{1,24}?)\s*[:：]\s*(?=\S)/;

/**
 * The label a text opens with when it is the field's own word before a colon, in the same text as the
 * value ("著者：後藤大地"): the label with its colon, to be taken off the value.
 */
export function inlineLabel(text: string, words: Set<string>): string | undefined {
  const m = INLINE_LABEL.exec(text);
  // A label of several words names a field of several ("Stated Dimensions" for "stated_dimension").
  return m && (isOwnWord(words, m[1]) || isOwnWord(words, m[1].trim().replace(/\s+/g, '_'))) ? m[0].trim() : undefined;
}
