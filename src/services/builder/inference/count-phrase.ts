// A count of things in a prompt ("number of ratings", "número de productos"): one
// field of its own, even of a thing asked for already or of the records' own noun. count-field.ts finds
// its value on the page.
import type { Concept } from './concept-words.js';
import { isCjk, normalizeWord } from './word-tokens.js';

/** Ends the word of a request for a count of things ("product_count"). */
export const COUNT_SUFFIX = '_count';

/** Words saying "the number of" before what is counted. ("nombre" is also Spanish for a name.) */
const COUNT_WORDS = new Set(['number', 'numero', 'anzahl', 'aantal', 'antal', 'liczba']);
const COUNT_OF = new Set(['of', 'de', 'di', 'der', 'des', 'van', 'av', 'pa']);

/**
 * A count of things at token i ("number of ratings", "número de productos"), when `counted` says the
 * things need it: a field named with the three words, of the concept of counts of reviews when those
 * are counted, the thing's word kept in its word ("rating_count"). Only of a plural noun: "número de
 * teléfono" is a phone number.
 */
export function countOf(
  all: string[],
  i: number,
  words: { singular(word: string): string; conceptOfWord(word: string): Concept | undefined },
  counted: (noun: string) => boolean,
): { request: { word: string; concept: Concept | undefined; written: string }; last: number } | undefined {
  if (!COUNT_WORDS.has(normalizeWord(all[i])) || !COUNT_OF.has(normalizeWord(all[i + 1] ?? ''))) return undefined;
  const noun = all[i + 2] ?? '';
  const thing = words.singular(noun);
  if (!/^\p{L}{3,}$/u.test(noun) || isCjk(noun) || thing === noun || !counted(noun)) return undefined;
  const concept = words.conceptOfWord(thing);
  return {
    request: {
      word: `${thing}${COUNT_SUFFIX}`,
      concept: concept === 'rating' || concept === 'reviews' ? 'reviews' : undefined,
      written: `${all[i]}_${all[i + 1]}_${noun}`,
    },
    last: i + 2,
  };
}
