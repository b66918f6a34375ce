// Fields that nothing on the page names as what the prompt asks for, found by what their values look
// like: addresses (a street and number, a postcode and place), quantities ("800 g", "1 Stange(n)"), and
// a value written beside the record's title in one element ("<a>Physics teacher</a> DAŠO PAVIČIĆ OŠ JU",
// the employer), read as that element's own text.
import { AMOUNT, CURRENCY_SIGNS } from './currency.js';
import { DATE, DATE_RE2 } from './date-shape.js';
import { DURATION } from './duration-shape.js';
import type { CandidateField } from './candidate.js';
import { fieldWordVariants } from './field-words.js';
import { conceptOfValues, type Concept } from './naming.js';
import type { PromptRequest } from './prompt-requests.js';

/** Share of the sampled values that must have the shape. */
const SHAPE_SHARE = 0.8;
const MIN_COVERAGE = 0.5;

// A street word and a house number, or a postcode before a place name, in the languages of the prompts.
const STREET =
  /\p{L}(?:stra(?:ss|ß)e|str\.|weg|allee|gasse|platz|ring|damm|straat|laan|gracht|plein)\s*\d|(?:^|\s)(?:str\.|street|st\.|road|rd\.?|avenue|ave\.?|lane|drive|boulevard|rue|avenida|av\.|calle|rua|via|viale|piazza|corso)\s|\d+\s+\p{L}+\s+(?:street|st|road|rd|avenue|ave|lane|drive|dr|blvd)\b|\b\d{4,5}\s+\p{Lu}\p{Ll}+/iu;
/**
 * A number (or fraction) and at most a short unit, or a short unit before its number, with an aside in
 * brackets: "800 g", "0,5 TL", "1 Stange(n)", "2", "1/4個(50g)", "大さじ1".
 */
const NUMBER = '[\\d½¼¾⅓⅔⅛][\\d.,/½¼¾⅓⅔⅛ -]*';
const QUANTITY = new RegExp(
  `^\\s*(?:ca\\.\\s*)?(?:${NUMBER}\\s*(?:\\p{L}{1,12}\\.?)?|\\p{L}{1,4}\\s*${NUMBER})\\s*(?:\\([^()]{1,15}\\))?\\s*$`,
  'u',
);

// A street's name and its house number opening the value, as most of Europe writes it ("Kvarnbacken 41",
// "Löttorpsvägen 19D", "Calle Mayor 5, Madrid"): the street word need not be one of the list above.
const NAME_AND_NUMBER = /^\p{Lu}[\p{L}'’.-]+(?:[ -][\p{L}'’.-]+){0,3}\s+\d{1,4}\s?\p{L}?(?=[\s,/-]|$)/u;

// A house number before the street, its name of a few words, numbers among them ("377 W 11TH ST., #2F").
const NUMBER_FIRST =
  /^\d+[A-Za-z]?\s+(?:[\p{L}\d.'-]+\s+){1,4}(?:street|st|road|rd|avenue|ave|av|lane|ln|drive|dr|blvd|boulevard|way|place|pl|court|ct|square|sq|terrace|hwy|highway)\b/iu;

function shaped(values: string[], shapes: RegExp[]): boolean {
  const sample = values.filter((v) => v.trim() !== '').slice(0, 20);
  return (
    sample.length > 0 &&
    sample.filter((v) => v.length < 120 && shapes.some((shape) => shape.test(v))).length >= SHAPE_SHARE * sample.length
  );
}

/**
 * A company's legal form closing its name ("Pricefx s.r.o.", "Acme GmbH", "Melown Technologies SE",
 * "Foo Ltd.", "株式会社..."): a list of employers or sellers carries it on many names, if not on all.
 */
const LEGAL_FORM =
  /(?:^|[\s,])(?:s\.\s?r\.\s?o\.|a\.\s?s\.|gmbh|ag|kg|se|ltd\.?|limited|plc|inc\.?|llc|corp\.?|co\.|s\.\s?a\.|s\.\s?l\.|s\.\s?p\.\s?a\.|s\.\s?r\.\s?l\.|sarl|sas|b\.\s?v\.|n\.\s?v\.|oy|ab|as|a\/s|sp\.\s?z\s?o\.\s?o\.|ltda\.?|eireli)\s*$|株式会社|有限会社|有限公司|股份/iu;
/** Share of an employer field's values that must show a legal form. */
const LEGAL_FORM_SHARE = 0.3;

/** Does a short text close with a company's legal form ("Jobs Contact Personal, s.r.o.")? */
export const hasLegalForm = (text: string) => text.length < 80 && LEGAL_FORM.test(text.trim());

function legalFormShare(values: string[]): number {
  const sample = values.filter((v) => v.trim() !== '' && v.length < 80).slice(0, 20);
  return sample.length === 0 ? 0 : sample.filter((v) => LEGAL_FORM.test(v.trim())).length / sample.length;
}

/** A dash, then a capitalised name: an attribution's signature. */
const SIGNED = /^\s*[-–—~]\s*\p{Lu}\p{Ll}/u;

/** A person's name as comments and reviews sign them: one to three capitalised words ("Jasmin", "Olga B."). */
const PERSON_NAME = /^\s*\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,2}\s*$/u;
const MAX_NAME_LENGTH = 30;

/**
 * For an author nothing else found: the free field whose values read as people's names, different ones in
 * different records ("Jasmin" in a comment's head); the one most records have, the first in the record of
 * those.
 */
export function personNames(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'author') return undefined;
  return free
    .filter((f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE && conceptOfValues(f.samples) === undefined)
    .sort((a, b) => b.coverage - a.coverage || a.order - b.order)
    .find((f) => {
      const values = f.samples.filter((v) => v.trim() !== '').slice(0, 20);
      return (
        values.length >= 2 &&
        new Set(values).size >= 2 &&
        values.every((v) => v.length <= MAX_NAME_LENGTH) &&
        values.filter((v) => PERSON_NAME.test(v)).length >= values.length * SHAPE_SHARE
      );
    });
}

/** A unit of measure written alone: a short word of letters, maybe with its dot ("g", "gr", "ml", "EL", "Stk."). */
const UNIT_WORD = /^\s*\p{L}{1,5}\.?\s*$/u;

/** A minute of a match, as live tickers write it: "95'", "45+2'", "12′". */
const MATCH_MINUTE = /^\s*\d{1,3}(?:\s*\+\s*\d{1,2})?\s*['′’]\s*$/;

/** A score on a scale of ten or five, alone in its element: "7.7", "9,3", "4", "8/10". */
const SCORE = /^\s*(\d{1,2})(?:[.,](\d))?\s*(?:\/\s*(?:10|5))?\s*$/;

/**
 * A rating nothing names: the field whose values are all scores of ten or less, not all the same (a
 * constant "5" is a button or a scale's end), with a decimal in some of them (a whole number alone is
 * as often a count or a rank).
 */
function ratingByShape(free: CandidateField[]): CandidateField | undefined {
  const found = free.find((f) => {
    if (f.kind !== 'text' || f.coverage < MIN_COVERAGE) return false;
    const values = f.samples.filter((v) => v.trim() !== '').slice(0, 20);
    if (values.length < 2 || new Set(values).size < 2) return false;
    const scores = values.map((v) => SCORE.exec(v));
    return scores.every((m) => m !== null && Number(m[1]) <= 10) && scores.some((m) => m?.[2] !== undefined);
  });
  // Read as a number, as a rating the markup names is ("7,7" gives 7.7, "8/10" gives 8).
  return found && { ...found, transform: 'number' };
}

/**
 * A length of time as players and podcasts write it, minutes and seconds or hours, minutes and seconds
 * ("31:34", "1:02:33"); not a time of day when a prompt asks for a duration and nothing names one.
 */
const CLOCK_DURATION = /^\s*\d{1,3}:[0-5]\d(?::[0-5]\d)?\s*$/;

/** A duration nothing names: values all written as one ("31:34", "45 min", "1h15"), not all the same. */
function durationByShape(free: CandidateField[]): CandidateField | undefined {
  return free.find((f) => {
    if (f.kind !== 'text' || f.coverage < MIN_COVERAGE) return false;
    const values = f.samples.filter((v) => v.trim() !== '').slice(0, 20);
    return (
      values.length >= 2 &&
      new Set(values).size >= 2 &&
      values.every((v) => CLOCK_DURATION.test(v) || DURATION.test(v.trim()))
    );
  });
}

/** The free text field whose values have the shape the request's concept asks for, if any. */
export function fieldByShape(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept === 'rating') return ratingByShape(free);
  if (request.concept === 'duration') return durationByShape(free);
  // "the minute of each comment": values written as a match's minutes.
  if (request.concept === undefined && fieldWordVariants(request.word).includes('minute'))
    return free.find((f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE && shaped(f.samples, [MATCH_MINUTE]));
  if (request.concept === 'company') {
    const scored = free
      .filter((f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE)
      .map((f) => ({ f, share: legalFormShare(f.samples) }))
      .filter((x) => x.share >= LEGAL_FORM_SHARE)
      .sort((a, b) => b.share - a.share);
    return scored[0]?.f;
  }
  // A name signed after a dash ("– Ann Lee, Boston", "-William Fuson"), as testimonials and quotes sign;
  // a quote's date or handle after the dash ("— Ann Lee (@ann) April 15, 2019") is an embed's credit line.
  if (request.concept === 'author')
    return free.find(
      (f) =>
        f.kind === 'text' &&
        f.coverage >= MIN_COVERAGE &&
        f.samples.length > 0 &&
        f.samples.every((v) => SIGNED.test(v) && !/[@\d]/.test(v)),
    );
  // "the unit of each ingredient": short words alone in their element ("gr", "ml", "EL").
  if (request.concept === undefined && fieldWordVariants(request.word).includes('unit'))
    return free.find(
      (f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE && f.samples.length > 0 && shaped(f.samples, [UNIT_WORD]),
    );
  // "amount" is a price on a shop's page and a quantity in a recipe: a quantity's shape answers both.
  const shape =
    request.concept === 'address'
      ? [STREET, NAME_AND_NUMBER, NUMBER_FIRST]
      : request.concept === 'quantity' || request.concept === 'price'
        ? [QUANTITY]
        : undefined;
  if (!shape) return undefined;
  // A floor area ("50,5 kvm", "120 m²") is shaped like a quantity too, and is never a price.
  const other = (f: CandidateField) => request.concept === 'price' && conceptOfValues(f.samples) === 'area';
  const fits = (shapes: RegExp[], coverage: number) =>
    free.find((f) => f.kind === 'text' && f.coverage >= coverage && shaped(f.samples, shapes) && !other(f));
  // An address written as places alone, the town first ("Windeck, Rhein-Sieg-Kreis"), in every record.
  return fits(shape, MIN_COVERAGE) ?? (request.concept === 'address' ? fits([PLACE_LIST], SHAPE_SHARE) : undefined);
}

/**
 * A price written in a currency, inside a longer text ("Jeans model 0£50.00"): the pattern is RE2's as
 * well as JavaScript's, as the engine applies it.
 */
const PRICE_IN_TEXT = `((?:${CURRENCY_SIGNS}\\s?\\d[\\d.,]*\\d)|(?:${AMOUNT}\\s?(?:€|£|₽|₺|₩|₴|kr|Kč|zł|CHF|EUR|USD|GBP|PLN|CZK|TL|руб|грн|원)))(?:\\D|$)`;

/**
 * A price nothing names or holds alone: written loose in the record itself, after its link ("<a>Jeans
 * model 0</a>£50.00"), read from the record's text by the pattern when most records show exactly one.
 */
export function priceInRecordText(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'price') return undefined;
  const pattern = new RegExp(PRICE_IN_TEXT, 'gu');
  const record = free.find((f) => f.kind === 'text' && f.depth === 0 && !f.attribute && f.coverage >= MIN_COVERAGE);
  if (!record) return undefined;
  const sample = record.samples.filter((v) => v.trim() !== '').slice(0, 20);
  const amounts = (v: string) => [...v.matchAll(pattern)].map((m) => m[1]);
  const once = sample.filter((v) => amounts(v).length === 1);
  if (sample.length === 0 || once.length < SHAPE_SHARE * sample.length) return undefined;
  const extract = { regex: PRICE_IN_TEXT, group: 1 };
  return { ...record, key: `${record.key}|price`, transform: ['trim', extract, 'number'] };
}

/** Concepts whose value may sit beside the title in one element (a job's employer, a book's author). */
const BESIDE_TITLE = new Set<Concept>(['company', 'author', 'location', 'publisher', 'brand']);

/**
 * The element around the chosen title whose text is the title and then more ("NASTAVNIK/CA FIZIKE DAŠO
 * PAVIČIĆ OŠ JU"): its own text is the rest, the value asked for. A second title asked for when another
 * request has the first ("name, job title" of a person: "<p><a><b>Ann Lee</b></a>Chief Executive</p>")
 * is such a rest too.
 */
export function besideTitle(
  request: PromptRequest,
  title: CandidateField | undefined,
  free: CandidateField[],
): CandidateField | undefined {
  const beside = request.concept !== undefined && (BESIDE_TITLE.has(request.concept) || request.concept === 'title');
  if (!title || !beside || title.kind !== 'text') return undefined;
  const around = free.find(
    (f) =>
      f.kind === 'text' &&
      !f.attribute &&
      f.selector !== undefined &&
      f.coverage >= 0.8 &&
      f.samples.length > 0 &&
      f.samples.every((s, i) => {
        const t = title.samples[i];
        return t !== undefined && s.startsWith(t) && s.length > t.length + 2;
      }),
  );
  return around ? { ...around, key: `${around.key}|own`, attribute: 'ownText', transform: 'trim' } : undefined;
}

/**
 * A telephone number written in a longer text ("anna@example.org Tel: +49 30 1234 567"): a plus or a
 * digit, then digits with the spaces, dots, dashes, slashes and brackets numbers are written with, seven
 * digits at least. RE2's pattern as well as JavaScript's.
 */
const PHONE_IN_TEXT = '(\\+?\\(?\\d[\\d\\s()./-]{5,}\\d)';
const PHONE_DIGITS = 7;
/** Dates and times have the digits of a phone number: "12/03/2024", "2024-05-14 10:30". */
const DATE_LIKE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?:\s+\d{1,2}[:.]\d{2})?$/;

/** A phone number nothing names or holds alone, read by the pattern from the shortest text that holds one in most records. */
export function phoneInText(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'phone') return undefined;
  const pattern = new RegExp(PHONE_IN_TEXT, 'g');
  const numbers = (v: string) =>
    [...v.matchAll(pattern)]
      .map((m) => m[1].trim())
      .filter((n) => n.replace(/\D/g, '').length >= PHONE_DIGITS && !DATE_LIKE.test(n));
  const holding = free
    .filter((f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE)
    .filter((f) => {
      const sample = f.samples.filter((v) => v.trim() !== '').slice(0, 20);
      return sample.length > 0 && sample.filter((v) => numbers(v).length === 1).length >= SHAPE_SHARE * sample.length;
    })
    .sort((a, b) => a.averageLength - b.averageLength)[0];
  if (!holding) return undefined;
  return { ...holding, key: `${holding.key}|phone`, transform: ['trim', { regex: PHONE_IN_TEXT, group: 1 }] };
}

/**
 * A date nothing names or holds alone, written at the end of a line of links or before a snippet
 * ("Recap | Box Score | February 21, 2017"): read by the pattern from the shortest text that shows
 * exactly one date in most records.
 */
export function dateInText(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'date') return undefined;
  const pattern = new RegExp(DATE.source, 'gi');
  const holding = free
    .filter((f) => f.kind === 'text' && f.coverage >= MIN_COVERAGE)
    .filter((f) => {
      const sample = f.samples.filter((v) => v.trim() !== '').slice(0, 20);
      return (
        sample.length > 0 &&
        sample.filter((v) => [...v.matchAll(pattern)].length === 1).length >= SHAPE_SHARE * sample.length
      );
    })
    .sort((a, b) => a.averageLength - b.averageLength)[0];
  if (!holding) return undefined;
  return {
    ...holding,
    key: `${holding.key}|date`,
    transform: ['trim', { regex: `(${DATE_RE2})`, group: 1, flags: 'i' }],
  };
}

/** Names of places joined by commas, the town first ("Kraków, Mistrzejowice", "Bytom, Szombierki, Zabrzanska"). */
const PLACE_NAMES = /^\p{Lu}[\p{L}\p{M}.' -]*(?:,\s*\p{Lu}[\p{L}\p{M}\d.' -]*){1,3}$/u;
/** The same with a district in brackets ("Altenkirchen (Westerwald)"), as an address's places are written. */
const PLACE_LIST = /^\p{Lu}[\p{L}\p{M}.' ()-]*(?:,\s*\p{Lu}[\p{L}\p{M}\d.' ()-]*){1,3}$/u;

/**
 * "Location, price and area of each flat" on cards headed by where the flat is: with no name asked for,
 * a heading written as place names joined by commas is the place. The headings are the record's title
 * and its <h1>-<h6> texts (a card may name its title otherwise, "Flat for sale", under the place).
 */
export function placeInHeading(
  request: PromptRequest,
  headings: CandidateField[],
  titleAsked: boolean,
): CandidateField | undefined {
  if ((request.concept !== 'location' && request.concept !== 'address') || titleAsked) return undefined;
  return headings.find((heading) => {
    if (heading.kind !== 'text' || heading.coverage < SHAPE_SHARE) return false;
    const sample = heading.samples.filter((v) => v.trim() !== '');
    return sample.length > 0 && sample.filter((v) => PLACE_NAMES.test(v.trim())).length >= SHAPE_SHARE * sample.length;
  });
}

/**
 * A person's name nothing names, shown beside their picture (a comment's or a review's avatar): the text
 * whose values are the alternative texts of one of the record's images (`describes`, title-signs.ts).
 * Not the record's title when the prompt asks for one too: a product's or a book's picture is described by
 * its title.
 */
export function namedByPicture(
  request: PromptRequest,
  free: CandidateField[],
  title: CandidateField | undefined,
  describes: (f: CandidateField) => boolean,
): CandidateField | undefined {
  if (request.concept !== 'author') return undefined;
  return free.find((f) => f.kind === 'text' && f !== title && f.coverage >= MIN_COVERAGE && describes(f));
}
