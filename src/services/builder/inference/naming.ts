// Field concepts and names: what a field holds (title, price, rating...) guessed from its markup and
// content, which concepts a prompt asks for, and the name a field gets (the prompt's own word where
// one matches, otherwise a label, a class token or the concept).
import { DATED_VALUE, DATE_MAX_LENGTH } from './date-shape.js';
import {
  CONCEPT_WORDS_BY_LANGUAGE,
  QUESTION_WORDS_BY_CONCEPT,
  RECORD_MARKERS_BY_LANGUAGE,
  STOP_WORDS_BY_LANGUAGE,
  type Concept,
} from './concept-words.js';
import { countOf } from './count-phrase.js';
import { AMOUNT, CURRENCY_AFTER, CURRENCY_BEFORE } from './currency.js';
import { englishFieldWord, fieldWordVariants } from './field-words.js';
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
const QUESTION_WORDS = new Map<string, Concept>();
for (const [concept, byLanguage] of Object.entries(QUESTION_WORDS_BY_CONCEPT) as Array<
  [Concept, Record<string, string[]>]
>) {
  for (const w of Object.values(byLanguage).flat().map(normalizeWord)) {
    QUESTION_WORDS.set(w, concept);
    if (!WORD_TO_CONCEPT.has(w)) WORD_TO_CONCEPT.set(w, concept);
  }
}

const STOP_WORDS = new Set(Object.values(STOP_WORDS_BY_LANGUAGE).flatMap((l) => l.split(' ').map(normalizeWord)));
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
const CJK_NAME_WORD = /^(?:名称|名稱|名前|姓名|氏名|名)$/u;

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
  return words(token.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]+/g, ' '));
}

/** Words of the prompt that ask for something, in order, each with the concept it names (if any). */
export interface PromptRequest {
  word: string;
  concept: Concept | undefined;
  /** The word as the prompt writes it ("rooms" of "number of rooms"), when that differs from `word`. */
  written?: string;
}

// Words that are kept even though they are also generic nouns in STOP_WORDS ("details" as in "the details").
const CONCEPT_OVER_STOP = new Set([
  'title',
  'name',
  'link',
  'url',
  'price',
  'date',
  'time',
  'rating',
  'description',
  'image',
  'author',
  'summary',
  'product',
  'detail',
  // "data" is the date in Portuguese and Italian ("titolo, autore e data").
  'data',
  // "nota" is the rating in Portuguese, Spanish and Italian ("nota e número de votos"); owned ("el título
  // de la nota") it is a news item, see ownedNoun.
  'nota',
]);

/** Words of CONCEPT_OVER_STOP that are the page's noun, not a field, after a preposition and an article. */
const NOUN_WHEN_OWNED = new Set(['nota']);

/** "de la nota", "della nota": the word follows an owner preposition and an article. */
function ownedNoun(all: readonly string[], i: number): boolean {
  return (
    i >= 2 &&
    (DETERMINERS.has(all[i - 1]) || ARTICLE_PREPOSITIONS.has(all[i - 1])) &&
    (OWNER_PREPOSITIONS.has(all[i - 2]) || ARTICLE_PREPOSITIONS.has(all[i - 1]))
  );
}

/**
 * What the prompt asks for: its words that name a concept ("rating", "cost", "photo") plus other content
 * words that might match a label on the page ("isbn", "mileage"). Instructions and page nouns are ignored.
 */
export function promptRequests(prompt: string): PromptRequest[] {
  const text = prompt.replace(/https?:\/\/\S+/g, ' ');
  const out: PromptRequest[] = [];
  const seen = new Set<string>();
  const all = textTokens(text);
  // Two words in a row name one field ("reviewer name", "star rating", "Wahre Tabelle").
  let previous: PromptRequest | undefined;
  // "tempo de preparo", "temps de préparation": a field named by a noun and its complement.
  let bridged: { request: PromptRequest; preposition: string } | undefined;
  // Tokens a count of things took ("number of ratings": "of" and "ratings").
  let takenUpTo = -1;
  for (const [i, raw] of all.entries()) {
    const adjacent = previous;
    const over = bridged;
    previous = undefined;
    bridged = undefined;
    if (i <= takenUpTo || !/^\p{L}/u.test(raw)) continue;
    // "number of ratings", "Anzahl der Bewertungen", "评价人数": a count is a field of its own, even of a
    // thing asked for already or of the records' own noun.
    const count = countOf(all, i, { singular, conceptOfWord });
    if (count) {
      // Named by the counted noun ("reviews", "Bewertungen"), or by the whole phrase when that noun is asked
      // for too ("rating and number of ratings") or alone would name the records ("number of products").
      const phrase = seen.has(singular(count.noun)) || STOP_WORDS.has(normalizeWord(count.noun));
      out.push(phrase ? count.request : { ...count.request, written: count.noun });
      seen.add(count.request.word);
      takenUpTo = count.last;
      continue;
    }
    if (adjacent && COMPLEMENT_PREPOSITIONS.has(raw)) {
      bridged = { request: adjacent, preposition: raw };
      continue;
    }
    const cjk = isCjk(raw);
    const word = singular(raw);
    // "選手名", "演出名称": a noun right before a word for "name" owns that name (the title, asked next), unless
    // the noun is a concept named by its name ("会社 名": the company).
    if (cjk && CJK_NAME_WORD.test(all[i + 1] ?? '')) {
      const owner = conceptOfWord(word);
      if (owner === undefined || !NAME_OWNERS.has(owner)) continue;
      takenUpTo = i + 1;
    }
    // "colour of the phone": the noun after "of the" owns the fields, it is none of them.
    if (!cjk && ownerAt(all, i)) continue;
    // "total time": the total of a time is a field of its own (a recipe's total time beside its prep time).
    if (word === 'total' && isTimeWord(singular(all[i + 1] ?? ''))) {
      previous = { word, concept: undefined };
      continue;
    }
    // A noun asked for again opens another field ("tempo di preparazione, tempo di cottura").
    if (seen.has(word)) {
      if (!cjk && COMPLEMENT_PREPOSITIONS.has(all[i + 1] ?? '')) previous = { word, concept: conceptOfWord(word) };
      else if (!cjk && !STOP_WORDS.has(word)) {
        const again = { word, concept: conceptOfWord(word) };
        const modified = adjacent ? undefined : modifiedAgain(out, all[i - 1] ?? '', again);
        if (modified) out.push(modified);
        previous = modified ?? askedAgain(out, adjacent, again);
      }
      continue;
    }
    // "product" in "product name" is a noun of the page, not the title field; a time of day is its own field.
    const concept =
      ['product', 'detail', 'text', 'type', 'id', 'code', 'user', 'label'].includes(word) || TIME_WORDS.has(word)
        ? undefined
        : conceptOfWord(word);
    // A page noun that is also a field's word in some language ("resultado" of a match) is kept.
    const fieldWord = fieldWordVariants(word).length > 1;
    if (
      concept === undefined &&
      !fieldWord &&
      (STOP_WORDS.has(word) || STOP_WORDS.has(raw) || (!cjk && word.length < 3))
    )
      continue;
    if (
      concept !== undefined &&
      STOP_WORDS.has(word) &&
      (!CONCEPT_OVER_STOP.has(word) || (NOUN_WHEN_OWNED.has(word) && ownedNoun(all, i)))
    )
      continue;
    // "材料の名前", "留言的作者": the word before a possessive particle owns the fields, it is none of them.
    if (concept === undefined && cjk && ['の', '的'].includes(all[i + 1] ?? '')) continue;
    seen.add(word);
    // "¿cuándo?", "who wrote": the field is the concept's, named by its default name ("date", "author").
    const asked = QUESTION_WORDS.get(word) ?? (askedAgent(all, i) ? 'author' : undefined);
    const own: PromptRequest = asked
      ? { word: CONCEPT_WORDS[asked][0], concept: asked }
      : raw === word
        ? { word, concept }
        : { word, concept, written: raw };
    // Not when the complement names the records or their page ("nome da receita": the recipe's name).
    const request =
      adjacent && !cjk && !(fieldWord && STOP_WORDS.has(word))
        ? compound(adjacent, own)
        : over && !cjk && concept === undefined && englishRecordNouns(raw).length === 0
          ? complemented(over.request, over.preposition, own)
          : // "date de publication", "data di pubblicazione": one date.
            over && concept !== undefined && concept === over.request.concept
            ? over.request
            : undefined;
    const replaced = adjacent ?? over?.request;
    const at = out.indexOf(replaced as PromptRequest);
    if (request && at >= 0) out.splice(at, 1, request);
    else out.push(request ?? own);
    previous = request ?? out[out.length - 1];
  }
  return out;
}

/** Prepositions that hold a definite article ("da" is "de a", "du" is "de le"). */
const ARTICLE_PREPOSITIONS = new Set([
  'da',
  'do',
  'das',
  'dos',
  'del',
  'della',
  'dello',
  'dei',
  'degli',
  'delle',
  'du',
  'des',
]);
/**
 * Prepositions before the noun that owns a field ("of", "de", "van", and those holding an article);
 * German writes the owner in the genitive, with no preposition: "Titel der Stelle".
 */
const OWNER_PREPOSITIONS = new Set(['of', 'de', 'di', 'van', 'von', 'der', ...ARTICLE_PREPOSITIONS]);
/** Articles and markers between the preposition and the owner ("of the", "de la", "van de", "of each"). */
const DETERMINERS = new Set([
  'the',
  'a',
  'an',
  'this',
  'la',
  'le',
  'les',
  'el',
  'los',
  'las',
  'o',
  'os',
  'as',
  'il',
  'lo',
  'gli',
  'het',
  'dem',
  'den',
  'der',
  'die',
  'das',
  'questo',
  'questa',
  'ce',
  'cette',
  'este',
  'esta',
  'deze',
  'dit',
  ...RECORD_MARKERS,
]);

/**
 * "started by", "posted by", "written by": an English participle before a "by" that ends the field asks
 * who did it, the author, as "who wrote" does. With a complement it says how ("sorted by date").
 */
function askedAgent(all: readonly string[], i: number): boolean {
  const after = all[i + 2];
  return (
    all[i + 1] === 'by' &&
    (/^[a-z]{3,}ed$/.test(all[i]) || all[i] === 'written') &&
    (after === undefined || !/^\p{L}/u.test(after) || STOP_WORDS.has(after))
  );
}

/**
 * Whether the word at `i` is the owner of the fields, not one of them: the prompt's last word, after an
 * owner preposition that follows a field's word and holds or is followed by an article ("colour of the
 * phone", "prezzo del prodotto": the page's one item). "date of publication", without an article, is one
 * field; a noun naming a kind of record after "each" or in the plural stays a request, as it asks for the
 * records' main text ("di ogni ingrediente").
 */
function ownerAt(all: readonly string[], i: number): boolean {
  let j = i - 1;
  let article = false;
  let each = false;
  while (j >= 0 && DETERMINERS.has(all[j]) && !OWNER_PREPOSITIONS.has(all[j])) {
    article = true;
    each ||= RECORD_MARKERS.has(all[j]);
    j--;
  }
  // The preposition follows a field's word, not "and" or an article ("Preis und das Datum").
  if (j < 1 || !OWNER_PREPOSITIONS.has(all[j]) || !/^\p{L}/u.test(all[j - 1]) || STOP_WORDS.has(all[j - 1]))
    return false;
  // A kind of record after "each" asks for the records ("di ogni ingrediente"); one named in the singular
  // after "the" or "this" is the one thing owning them ("the ingredients of this recipe").
  if (englishRecordNouns(all[i]).length > 0 && (each || !article || singular(all[i]) !== all[i])) return false;
  const last = !all.slice(i + 1).some((t) => /^\p{L}/u.test(t));
  return last && (article || ARTICLE_PREPOSITIONS.has(all[j]));
}

/**
 * A word asked for again beside another one names another field ("away team, home team", "away score,
 * home score"): with the word before it, a field not asked yet, which takes that word's place; else, when
 * it opened a field of two words before, the word waits for the next one ("away" of "away score").
 */
function askedAgain(
  out: PromptRequest[],
  before: PromptRequest | undefined,
  own: PromptRequest,
): PromptRequest | undefined {
  const both = before && !before.word.includes('_') ? compound(before, own) : undefined;
  if (!before || !both || both.word === before.word || out.some((r) => r.word === both.word))
    return out.some((r) => r.word.startsWith(`${own.word}_`)) ? own : undefined;
  const at = out.indexOf(before);
  if (at >= 0) out.splice(at, 1, both);
  else out.push(both);
  return both;
}

/** Words joining two requests, never one's modifier. */
const JOINING_WORDS = new Set([
  'and',
  'or',
  'und',
  'oder',
  'et',
  'ou',
  'och',
  'eller',
  've',
  'dan',
  'atau',
  'и',
  'или',
]);

/**
 * A noun asked for again after a modifier the prompt's stop words took ("new" of "old price and new
 * price"), when it was first asked with a modifier of its own (old_price): the second value of that kind,
 * named with its modifier (new_price).
 */
function modifiedAgain(out: PromptRequest[], modifier: string, again: PromptRequest): PromptRequest | undefined {
  if (!/^\p{L}{3,}$/u.test(modifier) || !STOP_WORDS.has(modifier)) return undefined;
  if (JOINING_WORDS.has(modifier) || DETERMINERS.has(modifier) || OWNER_PREPOSITIONS.has(modifier)) return undefined;
  const word = `${modifier}_${again.word}`;
  if (out.some((r) => r.word === word) || !out.some((r) => r.word.endsWith(`_${again.word}`))) return undefined;
  return { word, concept: again.concept };
}

/** Concepts whose values are names of things ("reviewer name" is the reviewer, not a title). */
const NAMED_CONCEPTS = new Set<Concept>(['author', 'company', 'location', 'brand', 'publisher']);

/** One field from two words in a row, or undefined when they name two fields. */
function compound(a: PromptRequest, b: PromptRequest): PromptRequest | undefined {
  if (a.concept !== undefined && a.concept === b.concept) return CONCEPT_WORDS[a.concept][0] === a.word ? a : b; // "star rating" -> rating, "date posted" -> date
  if (b.concept === 'title') {
    if (a.concept === undefined) return { ...a, concept: 'title' }; // "repository name"
    return NAMED_CONCEPTS.has(a.concept) ? a : b; // "reviewer name" -> reviewer; "review title" -> title
  }
  if (a.concept === undefined) return { ...joined(a, b), concept: b.concept }; // "shipping cost", "wahre tabelle"
  return undefined;
}

/** Prepositions joining a Romance noun and its complement ("tempo de preparo", "data di pubblicazione"). */
const COMPLEMENT_PREPOSITIONS = new Set(['de', 'di', 'du', 'da', 'do', 'del', 'della', 'dello']);

/** "tempo de preparo": one field of the noun's concept, named with all three words. */
function complemented(a: PromptRequest, preposition: string, b: PromptRequest): PromptRequest {
  const word = `${a.word}_${preposition}_${b.word}`;
  const written = `${a.written ?? a.word}_${preposition}_${b.written ?? b.word}`;
  return written === word ? { word, concept: a.concept } : { word, concept: a.concept, written };
}

/** Two words as one field's: "tickets link" is asked as "ticket_link", named "tickets_link". */
function joined(a: PromptRequest, b: PromptRequest): PromptRequest {
  const word = `${a.word}_${b.word}`;
  const written = `${a.written ?? a.word}_${b.written ?? b.word}`;
  return written === word ? { word, concept: undefined } : { word, concept: undefined, written };
}

/** The name of the field a request asks for, as the prompt writes it ("rooms", "authors", "tickets_link"). */
/** A word written in letters none of which is Latin (Cyrillic, Greek, Hangul, CJK...): no field name as it is. */
function isForeignScript(word: string): boolean {
  return /\p{L}/u.test(word) && !/\p{Script=Latin}/u.test(word);
}

export function writtenName(request: PromptRequest): string {
  return fieldName(request.written ?? request.word);
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

/** The concept a field's values look like, from content alone. */
export function conceptOfValues(values: string[]): Concept | undefined {
  const sample = values.filter((v) => v.trim() !== '').slice(0, 20);
  if (sample.length === 0) return undefined;
  // The pattern must be most of the value: "By Ada · Jan 5, 2026" is a byline, not a date.
  const share = (re: RegExp) =>
    sample.filter((v) => (v.match(re)?.[0].length ?? 0) >= v.trim().length * 0.6).length / sample.length;
  if (share(RATING) >= 0.8) return 'rating';
  if (share(CURRENCY) >= 0.8 && sample.every((v) => v.length < 40)) return 'price';
  if (share(DATED_VALUE) >= 0.8 && sample.every((v) => v.length < DATE_MAX_LENGTH)) return 'date';
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
