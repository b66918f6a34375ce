// Field concepts and names: what a field holds (title, price, rating...) guessed from its markup and
// content, which concepts a prompt asks for, and the name a field gets (the prompt's own word where
// one matches, otherwise a label, a class token or the concept).
import { DATED_VALUE, DATE_MAX_LENGTH } from './date-shape.js';
import { isWeekdayName } from './weekdays.js';
import {
  CONCEPT_WORDS_BY_LANGUAGE,
  QUESTION_WORDS_BY_CONCEPT,
  RECORD_MARKERS_BY_LANGUAGE,
  STOP_WORDS_BY_LANGUAGE,
  type Concept,
} from './concept-words.js';
import { AMOUNT, CURRENCY_AFTER, CURRENCY_BEFORE } from './currency.js';
import { englishFieldWord } from './field-words.js';
import { englishRecordNouns, RECORD_NOUN_WORDS } from './record-nouns.js';
import { isCjk, normalizeWord, tokens } from './word-tokens.js';
import { isStockText } from './stock-text.js';

export type { Concept } from './concept-words.js';

const ALL_CONCEPT_WORDS = Object.entries(CONCEPT_WORDS_BY_LANGUAGE) as Array<
  [Concept | 'time', Record<string, string[]>]
>;

/** Words (lower case, accents removed) that name each concept in every language; the first is the default field name. */
export const CONCEPT_WORDS = Object.fromEntries(
  ALL_CONCEPT_WORDS.filter(([c]) => c !== 'time').map(([c, byLanguage]) => [
    c,
    [...new Set(Object.values(byLanguage).flat().map(normalizeWord))],
  ]),
) as Record<Concept, string[]>;

const WORD_TO_CONCEPT = new Map<string, Concept>();
/** Words for a time of day: dates by their values, but a field of their own when a prompt names them. */
const TIME_WORDS = new Set<string>();
for (const [concept, byLanguage] of ALL_CONCEPT_WORDS) {
  for (const w of Object.values(byLanguage).flat().map(normalizeWord)) {
    if (concept === 'time') TIME_WORDS.add(w);
    if (!WORD_TO_CONCEPT.has(w)) WORD_TO_CONCEPT.set(w, concept === 'time' ? 'date' : concept);
  }
}

/** Question words and the concept each asks for ("wann" -> date); see QUESTION_WORDS_BY_CONCEPT. */
export const QUESTION_WORDS = new Map<string, Concept>();
for (const [concept, byLanguage] of Object.entries(QUESTION_WORDS_BY_CONCEPT) as Array<
  [Concept, Record<string, string[]>]
>) {
  for (const w of Object.values(byLanguage).flat().map(normalizeWord)) {
    QUESTION_WORDS.set(w, concept);
    if (!WORD_TO_CONCEPT.has(w)) WORD_TO_CONCEPT.set(w, concept);
  }
}

export const STOP_WORDS = new Set(
  Object.values(STOP_WORDS_BY_LANGUAGE).flatMap((l) => l.split(' ').map(normalizeWord)),
);
/** Words after which a word names the records themselves, in every language ("each", "jede", "每"). */
export const RECORD_MARKERS: ReadonlySet<string> = new Set(
  Object.values(RECORD_MARKERS_BY_LANGUAGE)
    .flat()
    // As written (a prompt read as it is) and normalised (its tokens: "každý" -> "kazdy").
    .flatMap((w) => [w, normalizeWord(w)]),
);

/**
 * CJK words known to the lists, for splitting text written without spaces. The nouns for records are
 * among them: "这个食谱需要哪些材料" holds "材料" (ingredients) between words of the question.
 */
const KNOWN_CJK = new Set(
  [...WORD_TO_CONCEPT.keys(), ...STOP_WORDS, ...RECORD_MARKERS, ...RECORD_NOUN_WORDS].filter(isCjk),
);
/** Particles and function words between which CJK pieces are joined into one word. */
const CJK_BREAKS = new Set([...STOP_WORDS, ...RECORD_MARKERS].filter(isCjk));
const LONGEST_CJK = Math.max(...[...KNOWN_CJK].map((w) => w.length));

/** Tokens of a text in any script: words lower case without accents, CJK split into words, punctuation apart. */
export function textTokens(text: string): string[] {
  return tokens(text, KNOWN_CJK, CJK_BREAKS, LONGEST_CJK);
}

/** Lower-case word tokens; plurals reduced the simple way ("prices" -> "price", "stories" -> "story"). */
export function words(text: string): string[] {
  return textTokens(text)
    .filter((t) => /^[\p{L}\p{N}]/u.test(t) && !/^\p{N}+$/u.test(t))
    .flatMap((t) => (isCjk(t) ? [t] : t.split('-').filter((w) => /^\p{L}/u.test(w))))
    .map(singular);
}

/**
 * Korean writes its particles onto the noun ("상품의" product's, "가격과" price and, "링크를" link as
 * object): a word of the lists followed by one is that word.
 */
const KOREAN_PARTICLE = /(?:으로|에서|에게|까지|부터|의|을|를|이|가|은|는|과|와|로|에|도|만)$/u;

function withoutKoreanParticle(word: string): string | undefined {
  if (!/\p{Script=Hangul}$/u.test(word)) return undefined;
  const stem = word.replace(KOREAN_PARTICLE, '');
  if (stem === word || stem === '') return undefined;
  return WORD_TO_CONCEPT.has(stem) || STOP_WORDS.has(stem) || RECORD_MARKERS.has(stem) ? stem : undefined;
}

export function singular(word: string): string {
  // A word of the lists as written is kept: "adres", "prijs", "avis" are not plurals.
  if (WORD_TO_CONCEPT.has(word) || isCjk(word)) return word;
  const korean = withoutKoreanParticle(word);
  if (korean) return korean;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (
    word.length > 3 &&
    word.endsWith('s') &&
    !word.endsWith('ss') &&
    !word.endsWith('us') &&
    !word.endsWith('is') &&
    !['reviews', 'comments', 'tags', 'points', 'votes', 'likes', 'stars', 'details'].includes(word)
  ) {
    return word.slice(0, -1);
  }
  return word;
}

/** A word for a time of day ("time", "Uhrzeit", "heure", "時刻"). */
export function isTimeWord(word: string): boolean {
  return TIME_WORDS.has(word);
}

export function conceptOfWord(word: string): Concept | undefined {
  return (
    WORD_TO_CONCEPT.get(word) ??
    WORD_TO_CONCEPT.get(singular(word)) ??
    conceptOfCompound(word) ??
    conceptOfCjkName(word) ??
    conceptOfNameCompound(word)
  );
}

/** "Veranstaltungsname", "bedrijfsnaam", "username": a compound whose head is a word for "name". */
const NAME_COMPOUND = /^([a-z]{3,})(?:name|naam|namn|navn)$/;
/** Letters a compound puts between its parts ("Firma" + "n" + "name", "bedrijf" + "s" + "naam"). */
const LINKING_LETTERS = /(?:en|n|s|e)$/;

/**
 * A compound naming "the name of" something (German, Dutch, the Nordic languages, and English "username")
 * names the title, or the concept of its owner when that concept is named by its name ("Firmenname" is
 * the company). Heads shorter than five letters are left to this rule: conceptOfCompound does not read them.
 */
function conceptOfNameCompound(word: string): Concept | undefined {
  const owner = NAME_COMPOUND.exec(word)?.[1];
  if (owner === undefined) return undefined;
  const concept = WORD_TO_CONCEPT.get(owner) ?? WORD_TO_CONCEPT.get(owner.replace(LINKING_LETTERS, ''));
  return concept !== undefined && NAME_OWNERS.has(concept) ? concept : 'title';
}

/** Japanese and Chinese endings that make a noun "the name of" it: 名, 名称 / 名稱, 名前, 姓名, 氏名. */
const CJK_NAME_ENDING = /(?:名称|名稱|名前|姓名|氏名|名)$/u;
/** One of those words alone: a token of its own after a known noun ("選手" "名"). */
export const CJK_NAME_WORD = /^(?:名称|名稱|名前|姓名|氏名|名)$/u;

/**
 * "公演名" (the performance's name), "选手姓名" (the player's name): a Japanese or Chinese noun ending in a
 * word for "name" names the thing's title, or the concept of the thing when it has one ("会社名", the
 * company's name, is the company).
 */
function conceptOfCjkName(word: string): Concept | undefined {
  if (!isCjk(word)) return undefined;
  const ending = CJK_NAME_ENDING.exec(word);
  if (!ending) return undefined;
  const owner = word.slice(0, ending.index);
  const ownerConcept = owner === '' ? undefined : WORD_TO_CONCEPT.get(owner);
  return ownerConcept !== undefined && NAME_OWNERS.has(ownerConcept) ? ownerConcept : 'title';
}

/** The shortest head and modifier of a compound read for its head ("Kaufpreis" -> Preis). */
const COMPOUND_PART = 5;

/**
 * A compound word (German, Dutch, the Nordic languages write them as one: "Veröffentlichungsdatum",
 * "Kaufpreis", "publicatiedatum") names the concept of its last part. Heads shorter than five letters
 * are left out: English words end in "date" or "name" without being compounds ("candidate").
 */
function conceptOfCompound(word: string): Concept | undefined {
  if (word.length < 2 * COMPOUND_PART - 1 || !/^[a-z]+$/.test(word)) return undefined;
  for (let cut = COMPOUND_PART - 1; cut <= word.length - COMPOUND_PART; cut++) {
    const concept = WORD_TO_CONCEPT.get(word.slice(cut));
    // A compound of a title is another line than the title: "Untertitel", "sottotitolo", "ondertitel".
    if (concept) return concept === 'title' ? undefined : concept;
  }
  return undefined;
}

/** "bds" for "beds", "ba" for "baths": a short label whose letters appear in order in the word. */
export function abbreviates(label: string, word: string): boolean {
  if (label.length < 2 || label.length >= word.length || label[0] !== word[0]) return false;
  let i = 0;
  for (const ch of word) if (ch === label[i]) i++;
  return i === label.length;
}

/** The words of the classes in a selector (`li.job-card` -> job, card): how a page names its records. */
export function selectorClassWords(selector: string): Set<string> {
  return new Set((selector.match(/\.[A-Za-z][\w-]*/g) ?? []).flatMap((c) => tokenWords(c.slice(1))));
}

/** Splits class names and ids into words: "product-title", "productTitle", "product_title" -> product, title. */
export function tokenWords(token: string): string[] {
  return words(token.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]+/g, ' ')).flatMap(splitCompound);
}

/** Generic heads class names join to a concept's word in one lower-case word ("sourcename", "pricebox"). */
const GENERIC_HEAD = /^([a-z]{4,}?)(name|text|txt|value|label|info|box|wrap|link)$/;

/**
 * "sourcename" -> "source", "name" when its first part is a concept's word and the whole is none
 * ("username" stays one word: it names the author); other words as they are.
 */
function splitCompound(word: string): string[] {
  const m = GENERIC_HEAD.exec(word);
  return m && WORD_TO_CONCEPT.has(m[1]) && !WORD_TO_CONCEPT.has(word) ? [m[1], m[2]] : [word];
}

/** A word written in letters none of which is Latin (Cyrillic, Greek, Hangul, CJK...): no field name as it is. */
function isForeignScript(word: string): boolean {
  return /\p{L}/u.test(word) && !/\p{Script=Latin}/u.test(word);
}

/**
 * The items with every name used once: a name met again gets the first free suffix ("price", "price_2"),
 * as the engine refuses a definition naming two fields alike.
 */
export function uniqueNames<T extends { name: string }>(items: T[]): T[] {
  const taken = new Set(items.map((item) => item.name));
  const seen = new Set<string>();
  return items.map((item) => {
    if (!seen.has(item.name)) {
      seen.add(item.name);
      return item;
    }
    let n = 2;
    while (taken.has(`${item.name}_${n}`)) n++;
    const name = `${item.name}_${n}`;
    taken.add(name);
    seen.add(name);
    return { ...item, name };
  });
}

/**
 * A field name: lower snake case of ASCII letters and digits, never empty (the Agent definition allows no
 * other). Accents are dropped ("Größe" -> "grosse"); a word of another script (Chinese, Japanese, Korean,
 * Cyrillic...) is named by its concept ("商品名" -> "title", "цена" -> "price", "时间" -> "time"), or else
 * by its code points, which stay unique and stable.
 */
export function fieldName(text: string): string {
  const plain = normalizeWord(text);
  const foreign = isForeignScript(plain);
  const known = foreign ? (TIME_WORDS.has(plain) ? 'time' : conceptOfWord(plain)) : undefined;
  // A noun for the records in another script ("材料") names its field by the English noun: a name must be ASCII.
  const recordNoun = foreign && !known ? (englishRecordNouns(plain)[0] ?? englishFieldWord(plain)) : undefined;
  const name = (known ? (known === 'time' ? 'time' : CONCEPT_WORDS[known][0]) : (recordNoun ?? plain))
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .replace(/_+$/g, '');
  if (name === '' && foreign)
    return `f_${[...plain]
      .filter((c) => /\p{L}/u.test(c))
      .slice(0, 6)
      .map((c) => (c.codePointAt(0) ?? 0).toString(16))
      .join('_')}`;
  return name === '' ? 'field' : /^[0-9]/.test(name) ? `f_${name}` : name;
}

/** A price: an amount with its currency before or after it (see currency.ts). */
const CURRENCY = new RegExp(`${CURRENCY_BEFORE}\\s*-?${AMOUNT}|${AMOUNT}\\s*${CURRENCY_AFTER}(?![\\p{L}])`, 'iu');
const RATING =
  /^\s*(?:[★☆✩✪✭⭐]{1,5}|\d(?:[.,]\d)?\s*(?:\/\s*5|out of 5|von 5|sur 5|de 5)(?:\s*(?:stars?|sternen?|étoiles?|estrellas?))?|\d(?:\.\d)?\s*stars?(?:\s*rating)?)\s*\.?\s*$/i;

/** A floor or plot area: a number and its unit ("38.5 kvm", "120 m²", "1,200 sq ft", "70㎡"). */
const AREA = /\d[\d.,\s]*\s*(?:m²|m2|qm|kvm|m\^2|sq\.?\s?(?:ft|m)|sqm|ft²|㎡|平米|平方米|坪)(?![\p{L}\d])/u;

const AREA_WITH_QUALIFIER = new RegExp(`${AREA.source}(?:\\s+\\p{L}{1,5}\\.?)?`, 'u');

/** A word opening a price that says which one it is: "Reg. $51.66", "Sale $34.42", "Was £20", "ab 9,99 €". */
const PRICE_OPENING =
  /^\s*(?:reg|regular|orig|original|sale|was|now|from|only|ab|statt|uvp|nur|jetzt|dès|desde|vanaf|od|от)\.?:?\s+/i;

/** Share of the values that are a price, after a word opening it. */
function priceShare(sample: string[]): number {
  return (
    sample.filter((v) => {
      const rest = v.replace(PRICE_OPENING, '');
      return (rest.match(CURRENCY)?.[0].length ?? 0) >= rest.trim().length * 0.6;
    }).length / sample.length
  );
}

/** The concept a field's values look like, from content alone. */
export function conceptOfValues(values: string[]): Concept | undefined {
  const sample = values.filter((v) => v.trim() !== '').slice(0, 20);
  if (sample.length === 0) return undefined;
  // The pattern must be most of the value: "By Ada · Jan 5, 2026" is a byline, not a date.
  const share = (re: RegExp) =>
    sample.filter((v) => (v.match(re)?.[0].length ?? 0) >= v.trim().length * 0.6).length / sample.length;
  if (share(RATING) >= 0.8) return 'rating';
  if (priceShare(sample) >= 0.8 && sample.every((v) => v.length < 40)) return 'price';
  if (share(DATED_VALUE) >= 0.8 && sample.every((v) => v.length < DATE_MAX_LENGTH)) return 'date';
  // Days of the week named alone ("Maandag:", "sábado"): the days of a schedule or of opening hours.
  if (sample.filter(isWeekdayName).length >= 0.8 * sample.length) return 'date';
  if (share(/^\s*by\s+\S/i) >= 0.8) return 'author';
  if (share(/^\s*(?:#\d+|\d+\.)\s*$/) >= 0.8) return 'rank'; // "#1", "1.
  if (share(/^[\w.+-]+@[\w-]+\.[\w.]+$/) >= 0.8) return 'email';
  if (share(/^\+?[\d\s().-]{7,}$/) >= 0.8) return 'phone';
  if (share(/^\s*\d+\s*(?:reviews?|ratings?)\s*$/i) >= 0.8) return 'reviews';
  if (share(/^\s*\d+\s*(?:comments?|replies)\s*$/i) >= 0.8) return 'comments';
  if (share(/^\s*\d+\s*(?:points?|votes?|likes?)\s*$/i) >= 0.8) return 'points';
  // A short qualifier may follow the unit: "100 m² tot.", "85 m² útil", "120 m² Wfl.".
  if (share(AREA_WITH_QUALIFIER) >= 0.8 && sample.every((v) => v.length < 30)) return 'area';
  if (sample.filter(isStockText).length >= 0.8 * sample.length) return 'stock';
  return undefined;
}

/** The concept named by class/id/itemprop tokens or a label, if any. */
/** Concepts that own a name written after them ("author-name", "brand_name", "store-location-name"). */
export const NAME_OWNERS: ReadonlySet<Concept> = new Set<Concept>([
  'author',
  'company',
  'brand',
  'location',
  'publisher',
]);

function ownerOfName(before: string[]): Concept | undefined {
  const concept = before.map((w) => conceptOfWord(w)).findLast((c) => c !== undefined);
  return concept && NAME_OWNERS.has(concept) ? concept : undefined;
}

export function conceptOfTokens(tokens: string[]): Concept | undefined {
  // The innermost element first, and in a token its last word: "product-price" is a price.
  for (const token of tokens) {
    const ws = tokenWords(token);
    // "author-name", "company_name": the name of an author, a company, not the record's title.
    const owner = ws.length > 1 && ws[ws.length - 1] === 'name' ? ownerOfName(ws.slice(0, -1)) : undefined;
    if (owner) return owner;
    for (const w of [...ws].reverse()) {
      if (
        w === 'product' ||
        w === 'item' ||
        w === 'card' ||
        w === 'text' ||
        w === 'type' ||
        w === 'label' ||
        w === 'content' ||
        w === 'body'
      )
        continue;
      const c = conceptOfWord(w);
      if (c) return c;
    }
  }
  // Run-together class names: "hnuser", "pricetag" (words of four letters or more only).
  for (const token of tokens) {
    for (const w of tokenWords(token)) {
      for (const [word, concept] of WORD_TO_CONCEPT) {
        if (
          word.length >= 4 &&
          w.length > word.length &&
          (w.endsWith(word) || w.startsWith(word)) &&
          !/^(?:sub|pre|super)/.test(w) && // a subtitle is not the title
          !['type', 'text', 'time', 'label', 'code', 'detail', 'details', 'content', 'body'].includes(word)
        )
          return concept;
      }
    }
  }
  return undefined;
}
