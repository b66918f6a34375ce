// Field concepts and names: what a field holds (title, price, rating...) guessed from its markup and
// content, which concepts a prompt asks for, and the name a field gets (the prompt's own word where
// one matches, otherwise a label, a class token or the concept).

export type Concept =
  | 'title'
  | 'link'
  | 'image'
  | 'price'
  | 'author'
  | 'date'
  | 'rating'
  | 'description'
  | 'category'
  | 'location'
  | 'company'
  | 'salary'
  | 'reviews'
  | 'sku'
  | 'stock'
  | 'brand'
  | 'tags'
  | 'comments'
  | 'points'
  | 'email'
  | 'phone'
  | 'address'
  | 'year'
  | 'isbn'
  | 'publisher'
  | 'duration'
  | 'status'
  | 'rank';

/** Words (singular, lower case) that name each concept; the first is the default field name. */
export const CONCEPT_WORDS: Record<Concept, string[]> = {
  title: ['title', 'name', 'heading', 'headline', 'product', 'subject', 'label'],
  link: ['link', 'url', 'href', 'permalink'],
  image: ['image', 'img', 'photo', 'picture', 'thumbnail', 'thumb', 'cover', 'pic', 'logo'],
  price: ['price', 'cost', 'amount', 'fee'],
  author: ['author', 'writer', 'byline', 'poster', 'user', 'username', 'seller', 'reviewer', 'autor', 'auteur'],
  date: ['date', 'published', 'posted', 'time', 'updated', 'created', 'day', 'when'],
  rating: ['rating', 'stars', 'star', 'score', 'rate'],
  description: [
    'description',
    'summary',
    'desc',
    'excerpt',
    'blurb',
    'details',
    'detail',
    'text',
    'body',
    'content',
    'snippet',
    'teaser',
  ],
  category: ['category', 'genre', 'section', 'type', 'kind', 'department'],
  location: ['location', 'city', 'place', 'region', 'country', 'where'],
  company: ['company', 'employer', 'organization', 'organisation', 'firm'],
  salary: ['salary', 'pay', 'wage', 'compensation'],
  reviews: ['reviews', 'review', 'ratings_count'],
  sku: ['sku', 'code', 'id', 'reference', 'ref'],
  stock: ['stock', 'availability', 'available', 'inventory'],
  brand: ['brand', 'maker', 'manufacturer', 'vendor'],
  tags: ['tags', 'tag', 'keywords', 'labels'],
  comments: ['comments', 'comment', 'replies'],
  points: ['points', 'votes', 'upvotes', 'likes', 'karma'],
  email: ['email', 'mail', 'e-mail'],
  phone: ['phone', 'telephone', 'tel', 'mobile'],
  address: ['address', 'street'],
  year: ['year'],
  isbn: ['isbn'],
  publisher: ['publisher', 'press', 'imprint'],
  duration: ['duration', 'length', 'runtime'],
  status: ['status', 'state'],
  rank: ['rank', 'ranking', 'position', 'rang', 'platz'],
};

const WORD_TO_CONCEPT = new Map<string, Concept>();
for (const [concept, words] of Object.entries(CONCEPT_WORDS) as Array<[Concept, string[]]>) {
  for (const w of words) if (!WORD_TO_CONCEPT.has(w)) WORD_TO_CONCEPT.set(w, concept);
}

/** Lower-case word tokens; plurals reduced the simple way ("prices" -> "price", "stories" -> "story"). */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? []).map(singular);
}

export function singular(word: string): string {
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

export function conceptOfWord(word: string): Concept | undefined {
  return WORD_TO_CONCEPT.get(word) ?? WORD_TO_CONCEPT.get(singular(word));
}

/** "bds" for "beds", "ba" for "baths": a short label whose letters appear in order in the word. */
export function abbreviates(label: string, word: string): boolean {
  if (label.length < 2 || label.length >= word.length || label[0] !== word[0]) return false;
  let i = 0;
  for (const ch of word) if (ch === label[i]) i++;
  return i === label.length;
}

/** Splits class names and ids into words: "product-title", "productTitle", "product_title" -> product, title. */
export function tokenWords(token: string): string[] {
  return words(token.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]+/g, ' '));
}

/** Words of the prompt that ask for something, in order, each with the concept it names (if any). */
export interface PromptRequest {
  word: string;
  concept: Concept | undefined;
}

// Words that never name a field: instructions, articles, page nouns.
const STOP_WORDS = new Set(
  (
    'a an the and or of for from in on at to with by each every all any its it this that these those their them page pages site website ' +
    'list listing listings item items record records entry entries result results row rows card cards get extract scrape scraping take grab collect ' +
    'want need please also include including fetch give me my i us we our field fields column columns data info information value values ' +
    'article articles post posts product products book books job jobs story stories event events property properties listing course courses ' +
    'only just like would could should can will from into is are be as here there then than every first next one two three make build agent ' +
    'follow open visit detail details via use using per which what who how where when show find return out new number total ' +
    // The same in a few other languages: conjunctions, articles and page nouns.
    'und oder der die das den dem des ein eine einer jede jeder jedes jeden alle allen mit von für zu im auf aus ' +
    'zeile zeilen eintrag einträge spalte seite liste le la les un une du et ou chaque pour avec ligne lignes ' +
    'el los las una unos cada con por para del fila filas il lo gli ogni per riga righe'
  ).split(' '),
);
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
]);

/**
 * What the prompt asks for: its words that name a concept ("rating", "cost", "photo") plus other content
 * words that might match a label on the page ("isbn", "mileage"). Instructions and page nouns are ignored.
 */
export function promptRequests(prompt: string): PromptRequest[] {
  const text = prompt.replace(/https?:\/\/\S+/g, ' ');
  const out: PromptRequest[] = [];
  const seen = new Set<string>();
  // Two words in a row name one field ("reviewer name", "star rating", "Wahre Tabelle").
  let previous: PromptRequest | undefined;
  for (const token of text.toLowerCase().match(/[a-z][a-z0-9-]*|[^\sa-z0-9]/g) ?? []) {
    const raw = token;
    const adjacent = previous;
    previous = undefined;
    if (!/^[a-z]/.test(raw)) continue;
    const word = singular(raw);
    if (seen.has(word)) continue;
    // "product" in "product name" is a noun of the page, not the title field.
    const concept =
      word === 'product' ||
      word === 'detail' ||
      word === 'text' ||
      word === 'type' ||
      word === 'time' ||
      word === 'id' ||
      word === 'code' ||
      word === 'user' ||
      word === 'label'
        ? undefined
        : conceptOfWord(word);
    if (concept === undefined && (STOP_WORDS.has(word) || STOP_WORDS.has(raw) || word.length < 3)) continue;
    if (concept !== undefined && STOP_WORDS.has(word) && !CONCEPT_OVER_STOP.has(word)) continue;
    seen.add(word);
    const request = adjacent ? compound(adjacent, { word, concept }) : undefined;
    if (request) out.splice(out.indexOf(adjacent as PromptRequest), 1, request);
    else out.push({ word, concept });
    previous = request ?? out[out.length - 1];
  }
  return out;
}

/** Concepts whose values are names of things ("reviewer name" is the reviewer, not a title). */
const NAMED_CONCEPTS = new Set<Concept>(['author', 'company', 'location', 'brand', 'publisher']);

/** One field from two words in a row, or undefined when they name two fields. */
function compound(a: PromptRequest, b: PromptRequest): PromptRequest | undefined {
  if (a.concept !== undefined && a.concept === b.concept) return CONCEPT_WORDS[a.concept][0] === a.word ? a : b; // "star rating" -> rating, "date posted" -> date
  if (b.concept === 'title') {
    if (a.concept === undefined) return { word: a.word, concept: 'title' }; // "repository name"
    return NAMED_CONCEPTS.has(a.concept) ? a : b; // "reviewer name" -> reviewer; "review title" -> title
  }
  if (a.concept === undefined && b.concept === undefined) return { word: `${a.word}_${b.word}`, concept: undefined };
  if (a.concept === undefined) return { word: `${a.word}_${b.word}`, concept: b.concept }; // "shipping cost"
  return undefined;
}

/** A field name: lower snake case, letters and digits, never empty. */
export function fieldName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .replace(/_+$/g, '');
  return name === '' ? 'field' : /^[0-9]/.test(name) ? `f_${name}` : name;
}

const CURRENCY =
  /(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf|jpy)\b)\s*-?\d[\d.,]*|\d[\d.,]*\s*(?:[$€£¥₹]|\b(?:usd|eur|gbp|chf)\b)/i;
const DATE =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}([/.-])\d{1,2}\1\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b|\b\d{1,2}\.? (?:jan|feb|mar|mär|apr|may|mai|jun|jul|aug|sep|sept|oct|okt|nov|dec|dez)[a-zä]* \d{4}\b|\b\d+ (?:minutes?|hours?|days?|weeks?|months?) ago\b/i;
const RATING =
  /^\s*(?:[★☆✩✪✭⭐]{1,5}|\d(?:[.,]\d)?\s*(?:\/\s*5|out of 5|von 5|sur 5|de 5)(?:\s*(?:stars?|sternen?|étoiles?|estrellas?))?|\d(?:\.\d)?\s*stars?(?:\s*rating)?)\s*\.?\s*$/i;

/** The concept a field's values look like, from content alone. */
export function conceptOfValues(values: string[]): Concept | undefined {
  const sample = values.filter((v) => v.trim() !== '').slice(0, 20);
  if (sample.length === 0) return undefined;
  // The pattern must be most of the value: "By Ada · Jan 5, 2026" is a byline, not a date.
  const share = (re: RegExp) =>
    sample.filter((v) => (v.match(re)?.[0].length ?? 0) >= v.trim().length * 0.6).length / sample.length;
  if (share(RATING) >= 0.8) return 'rating';
  if (share(CURRENCY) >= 0.8 && sample.every((v) => v.length < 40)) return 'price';
  if (share(DATE) >= 0.8 && sample.every((v) => v.length < 40)) return 'date';
  if (share(/^\s*by\s+\S/i) >= 0.8) return 'author';
  if (share(/^\s*(?:#\d+|\d+\.)\s*$/) >= 0.8) return 'rank'; // "#1", "1.
  if (share(/^[\w.+-]+@[\w-]+\.[\w.]+$/) >= 0.8) return 'email';
  if (share(/^\+?[\d\s().-]{7,}$/) >= 0.8) return 'phone';
  if (share(/^\s*\d+\s*(?:reviews?|ratings?)\s*$/i) >= 0.8) return 'reviews';
  if (share(/^\s*\d+\s*(?:comments?|replies)\s*$/i) >= 0.8) return 'comments';
  if (share(/^\s*\d+\s*(?:points?|votes?|likes?)\s*$/i) >= 0.8) return 'points';
  return undefined;
}

/** The concept named by class/id/itemprop tokens or a label, if any. */
export function conceptOfTokens(tokens: string[]): Concept | undefined {
  // The innermost element first, and in a token its last word: "product-price" is a price.
  for (const token of tokens) {
    const ws = tokenWords(token);
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
