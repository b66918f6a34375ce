// A count of things the prompt asks for ("number of ratings", "número de productos"): the field whose
// values are a number with at most a word or two ("(2 products)", "489 Ratings", "17"), the counted
// thing named by those words or by the field's class ("NumProducts"), in the prompt's language or in
// English. Read as a number.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import type { CandidateField } from './candidate.js';
import { ownText } from './dom-text.js';
import type { Element } from './selectors.js';
import { normalizeWord } from './word-tokens.js';
import { COUNT_SUFFIX } from './count-phrase.js';
import { CONCEPT_WORDS, conceptOfWord, singular, tokenWords, words } from './naming.js';
import { type PromptRequest } from './prompt-requests.js';
import { fieldWordVariants } from './field-words.js';
import { englishRecordNouns } from './record-nouns.js';

const MIN_COVERAGE = 0.5;
const SHAPE_SHARE = 0.8;
/** Letters two words for one thing share at least in the languages of the prompts ("productos", "products"). */
const SHARED_STEM = 5;

/** A number and at most two words, maybe in brackets: "(2 products)", "489 Ratings", "1.024". */
const COUNT = /^\s*\(?\s*\d[\d.,' ]*(?:\s*\p{L}[\p{L}.]*){0,2}\s*\)?\s*$/u;

/** A value shaped like a count: a number and at most two words ("(489)", "2 products"). */
export function countShaped(value: string): boolean {
  return COUNT.test(value);
}

/** Does the word name the counted thing (any of its words)? */
function namesThing(things: string[], word: string): boolean {
  const w = singular(word);
  return things.some(
    (t) =>
      t === w ||
      (t.length >= SHARED_STEM && w.length >= SHARED_STEM && t.slice(0, SHARED_STEM) === w.slice(0, SHARED_STEM)),
  );
}

export function isCountRequest(request: Pick<PromptRequest, 'word'>): boolean {
  return request.word.endsWith(COUNT_SUFFIX) && request.word.length > COUNT_SUFFIX.length;
}

/** The thing a count request counts ("rating" of "rating_count"). */
export function countedThing(request: Pick<PromptRequest, 'word'>): string {
  return request.word.slice(0, -COUNT_SUFFIX.length);
}

/** Class and id words saying an element holds a count ("rating-count", "NumProducts", "total-reviews"). */
const COUNTING = /(?:^|[^a-z])(?:count|counter|num|number|total|anzahl|aantal|antal)(?:[^a-z]|$)|Count|Num(?=[A-Z])/;

/** Selectors naming a count first, the others after them in their order. */
export function countersFirst(selectors: string[]): string[] {
  return [...selectors.filter((s) => COUNTING.test(s)), ...selectors.filter((s) => !COUNTING.test(s))];
}

/** The free field counting the request's things, read as a number. */
export function countField(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (!isCountRequest(request)) return undefined;
  const thing = countedThing(request);
  const things = [thing, ...englishRecordNouns(thing), ...fieldWordVariants(thing)].map(singular);
  const found = free.find((f) => {
    const sample = f.samples.filter((s) => s.trim() !== '');
    if (f.kind !== 'text' || f.coverage < MIN_COVERAGE || sample.length === 0) return false;
    if (sample.filter((s) => COUNT.test(s)).length < SHAPE_SHARE * sample.length) return false;
    const named = [...sample.flatMap((s) => words(s)), ...f.hints.flatMap(tokenWords)];
    return named.some((w) => namesThing(things, w));
  });
  if (!found) return countInTexts(request, free);
  // "(2 products)": the engine's number transform reads the first number; a decimal comma stays text.
  return found.samples.some((s) => /\d,\d{1,2}(?!\d)/.test(s)) ? found : { ...found, transform: 'number' };
}

/** A number and the word right after it in a text ("(33 Bewertungen)", "4.1/5 - (62 votes)", "4 personen"). */
const NUMBER_THEN_WORD = /(\d[\d.,]*)\s*(\p{L}+)/gu;

/** The words that may write a counted thing on a page: its own, its other languages' and its concept's. */
function countedWords(request: PromptRequest): Set<string> {
  const thing = countedThing(request);
  const written = normalizeWord(request.written ?? thing);
  const concept = conceptOfWord(written) ?? conceptOfWord(thing);
  // "número de visitas" counts visits, written "22 View" on an English page: the thing's other languages too.
  const all = [
    written,
    thing,
    ...fieldWordVariants(written),
    ...fieldWordVariants(thing),
    ...(concept ? CONCEPT_WORDS[concept] : []),
  ];
  return new Set(all.flatMap((w) => [w, singular(w)]));
}

/** The words as alternatives of a regex. */
function alternativesOf(words: string[]): string {
  return [...new Set(words)].map((w) => w.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|');
}

/** The regex step keeping the number written right before one of the words ("62 votes" -> "62"). */
function numberBefore(words: string[]): { regex: string; group: number; flags: string } {
  return { regex: `(\\d[\\d.,]*)\\s*(?:${alternativesOf(words)})`, group: 1, flags: 'i' };
}

/** A word, a colon and a number in a text ("Число просмотров: 216", "Views: 1,024", "Aufrufe: 87"). */
const WORD_COLON_NUMBER = /(\p{L}+)\s*[:：]\s*(\d[\d.,]*)/gu;

/** The regex step keeping the number written right after one of the words and a colon ("Views: 87" -> "87"). */
function numberAfter(words: string[]): { regex: string; group: number; flags: string } {
  return { regex: `(?:${alternativesOf(words)})\\s*[:：]\\s*(\\d[\\d.,]*)`, group: 1, flags: 'i' };
}

/**
 * The free field whose texts write the count inside them, a number right before the counted thing's word
 * ("4.1/5 - (62 votes)", "939937人评价" is shaped as a count already): read by a regex, then as a number.
 */
function countInTexts(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  const things = countedWords(request);
  for (const f of free) {
    const sample = f.samples.filter((s) => s.trim() !== '');
    if (f.kind !== 'text' || f.coverage < MIN_COVERAGE || sample.length === 0) continue;
    const written = sample.map(
      (s) => [...s.matchAll(NUMBER_THEN_WORD)].find((m) => things.has(normalizeWord(m[2])))?.[2],
    );
    if (written.filter(Boolean).length >= SHAPE_SHARE * sample.length)
      return { ...f, transform: [numberBefore(written.filter((w): w is string => !!w)), 'number'] };
    // Or the thing's word as a label before the number, after a colon ("Число просмотров: 216").
    const labels = sample.map(
      (s) => [...s.matchAll(WORD_COLON_NUMBER)].find((m) => things.has(normalizeWord(m[1])))?.[1],
    );
    if (labels.filter(Boolean).length >= SHAPE_SHARE * sample.length)
      return { ...f, transform: [numberAfter(labels.filter((w): w is string => !!w)), 'number'] };
  }
  return undefined;
}

/**
 * A count written inside a text of the page, as a number right before the counted thing's word ("(33
 * Bewertungen)", "4.1/5 - (62 votes)", "Ingrediënten 4 personen"): the first element whose own text says
 * so, and the steps reading the number out of its text (a regex keeping the number before that word,
 * then the number transform). For a page read as one record.
 */
export function countInText(
  $: CheerioAPI,
  request: PromptRequest,
): { el: Element; transform: NonNullable<AgentField['transform']> } | undefined {
  if (!isCountRequest(request)) return undefined;
  const things = countedWords(request);
  for (const el of $<Element, string>('body *').toArray()) {
    if (['script', 'style', 'noscript', 'template'].includes(el.name)) continue;
    const text = ownText(el);
    for (const m of text.matchAll(NUMBER_THEN_WORD)) {
      if (!things.has(normalizeWord(m[2]))) continue;
      return { el, transform: [numberBefore([m[2]]), 'number'] };
    }
  }
  return undefined;
}
