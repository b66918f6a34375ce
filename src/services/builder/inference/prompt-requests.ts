// What a prompt asks for: its words that name a field, in order, each with the concept it names, read
// across languages (fields of two words, a noun and its complement, counts of things, questions, the
// owner of the fields), and the name of the field each asks for.
import { countOf } from './count-phrase.js';
import { fieldWordVariants } from './field-words.js';
import {
  CJK_NAME_WORD,
  CONCEPT_WORDS,
  conceptOfWord,
  fieldName,
  isTimeWord,
  NAME_OWNERS,
  QUESTION_WORDS,
  RECORD_MARKERS,
  singular,
  STOP_WORDS,
  textTokens,
  type Concept,
} from './naming.js';
import { englishRecordNouns } from './record-nouns.js';
import { isCjk, normalizeWord } from './word-tokens.js';

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
  const names = namedOwners(all);
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
    // "имя автора", "the name of the author": the name of a person or a firm is that field, asked by its noun.
    if (names.has(i)) continue;
    // "colour of the phone": the noun after "of the" owns the fields, it is none of them.
    if (!cjk && ownerAt(all, i) && !names.has(-i - 1)) continue;
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
      ['product', 'detail', 'text', 'type', 'id', 'code', 'user', 'label'].includes(word) || isTimeWord(word)
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

/** Words for a name alone, in the prompts' languages. */
const NAME_WORDS = new Set([
  'name',
  'nom',
  'nombre',
  'nome',
  'naam',
  'имя',
  'imię',
  'imie',
  'jméno',
  'namn',
  'navn',
  'nama',
]);

/**
 * "имя автора", "Name des Autors", "nombre del autor", "name of the author": a word for a name before the
 * noun of a person or a firm (after an owner's preposition and article, or in the genitive) asks for that
 * noun's field. The name's token is left out (its index), and the noun's is kept as a field, not read as
 * the owner of the fields (its index as -index - 1).
 */
function namedOwners(all: string[]): Set<number> {
  const out = new Set<number>();
  for (const [i, token] of all.entries()) {
    if (!NAME_WORDS.has(normalizeWord(token))) continue;
    let j = i + 1;
    while (j < all.length && (OWNER_PREPOSITIONS.has(all[j]) || DETERMINERS.has(all[j]) || all[j] === 'l')) j++;
    const owner = all[j] === undefined ? undefined : conceptOfWord(singular(all[j]));
    if (owner === undefined || !NAME_OWNERS.has(owner)) continue;
    out.add(i);
    out.add(-j - 1);
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

/** One field from two words in a row, or undefined when they name two fields. */
function compound(a: PromptRequest, b: PromptRequest): PromptRequest | undefined {
  if (a.concept !== undefined && a.concept === b.concept) return CONCEPT_WORDS[a.concept][0] === a.word ? a : b; // "star rating" -> rating, "date posted" -> date
  if (b.concept === 'title') {
    if (a.concept === undefined) return { ...a, concept: 'title' }; // "repository name"
    return NAME_OWNERS.has(a.concept) ? a : b; // "reviewer name" -> reviewer; "review title" -> title
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
export function writtenName(request: PromptRequest): string {
  return fieldName(request.written ?? request.word);
}
