// Fields a prompt names by words the page gives no hook for ("quartier", "organismo", "categoria"): no
// label, class or shape says which value they are (a word for a place, a firm or a kind included, when
// nothing shaped or classed so was found). Prompts name fields in the order the records show
// them, so such a word is the plain value between the values found for its neighbours in the prompt.
// Used by select-fields.ts after every other way of finding a field.
import type { CandidateField } from './candidate.js';
import { fieldName, isTimeWord, type Concept } from './naming.js';
import type { Named } from './named-field.js';
import type { PromptRequest } from './prompt-requests.js';

/** Concepts of words asked this way when nothing shaped or classed so was found: a place, a firm, a kind. */
const PLACES_AND_KINDS = new Set<Concept>(['location', 'category', 'company']);
/** Values a record nearly always has. */
const MIN_COVERAGE = 0.5;
/** Shorter texts are badges and marks ("New", "★"), not values named by a word. */
const MIN_LENGTH = 4;
/** Longer texts are a record's description or text, not a value named by a word. */
const MAX_LENGTH = 80;
/**
 * Concepts of names, asked for by such words or read into a value by its markup (a game's name classed
 * like an author's); values of other concepts are told by their shape.
 */
const NAME_LIKE = new Set<Concept>(['author', 'publisher', 'location', 'category', 'company', 'brand']);

/** The path of the element a field reads, without what it reads of it. */
const pathOf = (f: CandidateField) => f.key.split('|')[0];

/**
 * The field for `requests[index]` by its place in the prompt: the one plain value (unlabelled, short, not
 * opening with a number) between the fields of the nearest requests before and after it that were found; with no
 * field after it in the record (the last word asked, or the next word's value shown earlier), the first
 * plain value after the field of the word before it. Undefined where nothing or, between two, more than
 * one fits.
 */
function byPromptOrder(
  requests: PromptRequest[],
  index: number,
  fieldOf: (r: PromptRequest) => CandidateField | undefined,
  free: CandidateField[],
): CandidateField | undefined {
  const concept = requests[index].concept;
  if (concept !== undefined && !PLACES_AND_KINDS.has(concept)) return undefined;
  // A time of day is read from the text it shares with its date (date-time.ts), not by its place.
  if (isTimeWord(requests[index].word)) return undefined;
  const before = requests
    .slice(0, index)
    .map(fieldOf)
    .findLast((f) => f !== undefined);
  if (!before) return undefined;
  const later = requests.slice(index + 1);
  const next = later.map(fieldOf).find((f) => f !== undefined);
  // The next word's field bounds the value when the record shows it after the one before.
  const after = next !== undefined && next.order > before.order ? next : undefined;
  const plain = free.filter(
    (f) =>
      f.kind === 'text' &&
      f.label === undefined &&
      f.coverage >= MIN_COVERAGE &&
      f.averageLength >= MIN_LENGTH &&
      f.averageLength <= MAX_LENGTH &&
      // Not a number, nor a count or a measure ("3 rok", "38.5 kvm"): names are asked this way.
      !f.samples.every((s) => /^\s*\d/.test(s)) &&
      (f.concept === undefined || NAME_LIKE.has(f.concept)) &&
      f.order > before.order &&
      (after === undefined || f.order < after.order),
  );
  // A value and the element inside it holding just the value ("in <a>Electronics</a>"): the inner one.
  const innermost = plain.filter((f) => !plain.some((g) => g !== f && pathOf(g).startsWith(`${pathOf(f)}/`)));
  if (after !== undefined) return innermost.length === 1 ? innermost[0] : undefined;
  // Nothing after it bounds the value (the last word asked, or the next one shown earlier): the first.
  return innermost.sort((a, b) => a.order - b.order)[0];
}

/**
 * Answers each request not yet answered by its place in the prompt (see byPromptOrder), adding its field
 * to `chosen` (marked byPromptOrder) and the request to `matched`; `chosen` is left in the prompt's order.
 */
export function fillByPromptOrder(
  requests: PromptRequest[],
  fields: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
  chosen: Map<CandidateField, Named>,
  matched: Set<PromptRequest>,
): void {
  const fieldOf = (r: PromptRequest) =>
    matched.has(r) ? [...chosen].find(([, n]) => n.name === fieldName(r.word))?.[0] : undefined;
  requests.forEach((request, i) => {
    if (matched.has(request)) return;
    const found = byPromptOrder(
      requests,
      i,
      fieldOf,
      fields.filter((f) => !chosen.has(f)),
    );
    if (!found) return;
    matched.add(request);
    chosen.set(found, { field: found, concept: roles.get(found), name: fieldName(request.word), byPromptOrder: true });
  });
  const rank = (n: Named) => requests.findIndex((r) => fieldName(r.word) === n.name);
  const ordered = [...chosen].sort(([, a], [, b]) => rank(a) - rank(b));
  chosen.clear();
  for (const [f, n] of ordered) chosen.set(f, n);
}
