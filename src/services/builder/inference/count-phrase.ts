// A count of things in a prompt ("number of ratings", "número de productos", "Anzahl der Bewertungen",
// "评价人数"): one field of its own, even of a thing asked for already or of the records' own noun.
// count-field.ts finds its value on the page.
import type { Concept } from './concept-words.js';
import { isCjk, normalizeWord } from './word-tokens.js';

/** Ends the word of a request for a count of things ("product_count"). */
export const COUNT_SUFFIX = '_count';

/** Words that only ever say "the number of" before what is counted ("Anzahl der Bewertungen", "aantal personen"). */
const COUNT_ONLY_WORDS = new Set(['anzahl', 'aantal', 'antal', 'liczba']);
/**
 * Words that say "the number of" before a plural only: before a singular they name a number or a name
 * ("número de teléfono", "nombre de usuario"); "nombre" counts in French, where no article follows its
 * "de" ("nombre de parts"; Spanish "nombre de los productos" is their name).
 */
const COUNT_BEFORE_PLURAL_WORDS = new Set(['number', 'numero', 'nombre']);
const COUNT_OF = new Set(['of', 'de', 'd', 'di', 'der', 'des', 'van', 'av', 'pa']);
/** Chinese and Japanese write the count after what is counted ("评价人数", "レビュー件数", "回答数"). */
const CJK_COUNT_SUFFIXES = new Set(['数', '人数', '件数', '个数', '個数', '次数', '回数', '总数', '總數']);

/** The request, the counted noun as written ("Bewertungen", "评价") and the last token the phrase takes. */
type CountRequest = {
  request: { word: string; concept: Concept | undefined; written: string };
  noun: string;
  last: number;
};
type Words = { singular(word: string): string; conceptOfWord(word: string): Concept | undefined };

/** Concepts whose values are counts already: a count of their things is of their concept ("número de votos"). */
const COUNTED_CONCEPTS = new Set<Concept>(['reviews', 'comments', 'points']);

/** The count request of a counted thing: of the concept of counts of reviews when ratings or reviews are counted. */
function countRequest(thing: string, noun: string, written: string, last: number, words: Words): CountRequest {
  const counted = words.conceptOfWord(thing);
  const concept = counted === 'rating' ? 'reviews' : counted && COUNTED_CONCEPTS.has(counted) ? counted : undefined;
  return { request: { word: `${thing}${COUNT_SUFFIX}`, concept, written }, noun, last };
}

/**
 * A count of things at token i ("number of ratings", "Anzahl der Bewertungen", "aantal personen", "nombre
 * de parts", "评价人数"): a field of its own, named with the words of the phrase, the thing's word kept in
 * its word ("rating_count"). The count word says what is asked; the words after it are the counted thing.
 */
export function countOf(all: string[], i: number, words: Words): CountRequest | undefined {
  const first = normalizeWord(all[i]);
  if (isCjk(all[i])) {
    const suffix = all[i + 1] ?? '';
    if (!CJK_COUNT_SUFFIXES.has(suffix) || CJK_COUNT_SUFFIXES.has(all[i])) return undefined;
    return countRequest(all[i], all[i], `${all[i]}${suffix}`, i + 1, words);
  }
  const only = COUNT_ONLY_WORDS.has(first);
  if (!only && !COUNT_BEFORE_PLURAL_WORDS.has(first)) return undefined;
  // "Anzahl der Bewertungen", "aantal personen": the preposition may be left out after a word that only counts.
  const of = COUNT_OF.has(normalizeWord(all[i + 1] ?? ''));
  if (!of && !only) return undefined;
  const at = of ? i + 2 : i + 1;
  const noun = all[at] ?? '';
  const thing = words.singular(noun);
  if (!/^\p{L}{3,}$/u.test(noun) || isCjk(noun)) return undefined;
  if (!only && !/[sx]$/.test(noun)) return undefined;
  const written = all.slice(i, at + 1).join('_');
  return countRequest(thing, noun, written, at, words);
}
