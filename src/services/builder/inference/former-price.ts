// A former price: the value before a reduction, shown beside the current one. Shops mark it by its
// class ("old-price", "price--was", "uvp", "compare-at") or a box around it; a prompt asks for it in
// words of its own ("old price", "Streichpreis", "старая цена"). Without those words the current price is
// the one meant.
import type { CheerioAPI } from 'cheerio';
import type { CandidateField } from './candidate.js';
import type { Element } from './selectors.js';
import { tokenWords, words } from './naming.js';
import { type PromptRequest } from './prompt-requests.js';

/**
 * A value its own class, or a box around it in the record, marks as a former one ("oldprice",
 * "old-price", "price--was", "wasPrice", "<span class="price-old"><span class="num">", "price-strike",
 * a "compare-at" or "uvp" price, one inside <del> or <s>): the price before a reduction, shown beside the
 * current one, which is the one asked for.
 */
export function former(f: CandidateField): boolean {
  return (
    f.ownHints.some(
      (h) => /^(?:old|was|former|previous|before)(?:[-_A-Z]|price|$)/.test(h) || /[-_](?:old|was|before)$/.test(h),
    ) ||
    f.hints.some((h) => tokenWords(h).some((w) => FORMER_CLASS_WORDS.has(w))) ||
    writtenFormer(f.samples)
  );
}

/** A value opened by a word saying it is the former price ("Reg. $51.66", "Was £20", "UVP 49,99 €"). */
const FORMER_OPENING =
  /^\s*(?:reg|regular|orig|original|was|list|uvp|rrp|msrp|statt|vorher|avant|antes|prima)\b\.?:?\s*\D{0,6}\d/i;

/** Most of the values (of those the records have) open with a former price's word. */
function writtenFormer(samples: string[]): boolean {
  const sample = samples.filter((s) => s.trim() !== '');
  return sample.length > 0 && sample.filter((s) => FORMER_OPENING.test(s)).length > sample.length / 2;
}

/** Class words of a former price, as shops write them. */
const FORMER_CLASS_WORDS = new Set([
  'old',
  'was',
  'former',
  'previous',
  'regular',
  'original',
  'strike',
  'strikethrough',
  'striked',
  'crossed',
  'uvp',
  'rrp',
  'msrp',
  'compare',
]);

/**
 * Words of a prompt asking for the former price ("old price", "Streichpreis", "alter Preis", "старая
 * цена"): the struck-through value is then the one wanted.
 */
const FORMER_REQUEST_WORDS = new Set([
  'old',
  'was',
  'former',
  'previous',
  'regular',
  'original',
  'list',
  'crossed',
  'alt',
  'alte',
  'alter',
  'alten',
  'uvp',
  'streichpreis',
  'ancien',
  'ancienne',
  'anterior',
  'antiguo',
  'antigo',
  'vecchio',
  'oude',
  'старая',
  'старую',
  'старой',
  'прежняя',
  'stara',
  'starą',
  'původní',
  'gammalt',
  'ordinarie',
]);

/** Does the request ask for the former value ("old_price")? */
export function asksForFormer(request: PromptRequest): boolean {
  return (request.written ?? request.word).split('_').some((p) => FORMER_REQUEST_WORDS.has(p));
}

/** The longest label before a value that may say it is a former one ("Unser alter Preis:", "Statt", "UVP"). */
const FORMER_LABEL_LENGTH = 30;

/**
 * A short label before a value saying it is the former one, in the words a prompt asks for it with, or
 * "statt" ("instead of"): "Unser alter Preis:", "Was:", "UVP", "statt".
 */
export function labelsFormer(text: string): boolean {
  const t = text.trim();
  return (
    t !== '' &&
    t.length <= FORMER_LABEL_LENGTH &&
    words(t).some((w) => FORMER_REQUEST_WORDS.has(w) || w === 'statt' || w === 'instead')
  );
}

/** The longest text of a struck-through former price ("€ 1.899,00", "statt 24,99 €"). */
const STRUCK_LENGTH = 30;

/**
 * A product page's former price: the first amount struck through (`<s>`, `<del>`, `<strike>`) in the
 * page's content, for a prompt asking for the price before a reduction ("original price", "alter Preis").
 */
export function struckPrice($: CheerioAPI): Element | undefined {
  return $<Element, string>('body s, body del, body strike')
    .toArray()
    .find((el) => {
      const text = $(el).text().replace(/\s+/g, ' ').trim();
      return /\d/.test(text) && text.length <= STRUCK_LENGTH && $(el).closest('nav, footer, aside').length === 0;
    });
}
