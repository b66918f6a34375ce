// Which of a candidate's aligned fields answer the prompt's requests, and their names: the roles the
// markup leaves unsaid (the main title and link, a long description), then one field per request by
// label, value shape, concept and class words; a prompt naming nothing gets every meaningful field.
import type { AgentField } from '../../../engine/definition.js';
import { parseNumber } from '../../../engine/extract.js';
import type { Candidate, CandidateField } from './candidate.js';
import { fieldWordVariants } from './field-words.js';
import {
  abbreviates,
  CONCEPT_WORDS,
  conceptOfValues,
  conceptOfWord,
  fieldName,
  selectorClassWords,
  singular,
  tokenWords,
  uniqueNames,
  words,
  type Concept,
} from './naming.js';
import { type PromptRequest } from './prompt-requests.js';
import { defaultFields, withAlternatives } from './default-fields.js';
import { fillByPromptOrder } from './prompt-order.js';
import { creditedSource, longestText, onlyValueLeft } from './last-resort.js';
import type { Named } from './named-field.js';
import {
  besideTitle,
  dateInText,
  fieldByShape,
  personNames,
  namedByPicture,
  phoneInText,
  placeInHeading,
  priceInRecordText,
} from './shape-fields.js';
import { countField } from './count-field.js';
import { inAnchor, roleFields, wholeCell } from './field-roles.js';
import { describesPicture } from './title-signs.js';
import { asksForFormer, former } from './former-price.js';

/** Classed as secondary: "sub-rating", "subtotal", "subtitle". */
function secondary(f: CandidateField): boolean {
  return f.hints.some((h) => /^sub(?:[-_A-Z]|[a-z]{3,})/.test(h)) || former(f);
}

/** Text of a heading, its own or a child's (<h3><a>…</a></h3>). */
function inHeadingField(f: CandidateField): boolean {
  return /^h[1-6]$/.test(f.tag) || /\/h[1-6](?=[.[{/]|$)/.test(f.key.split('|')[0]);
}

/** A word naming no concept names a thing: a text in most records before a bare number beside it. */
function byPresence(a: CandidateField, b: CandidateField): number {
  const bare = (f: CandidateField) => Number(f.samples.length > 0 && f.samples.every((s) => /^[\d.,\s]*$/.test(s)));
  // A word that names no concept ("artist" under p.artists) asks for what the page shows, not its link.
  const address = (f: CandidateField) => Number(f.kind !== 'text');
  return address(a) - address(b) || bare(a) - bare(b) || b.coverage - a.coverage;
}

/** Concepts whose values are names of things: a class word saying so is enough ("username"). */
const ENTITY_CONCEPTS = new Set<Concept>(['author', 'company', 'location', 'brand', 'publisher', 'category', 'tags']);

/** An address and a place answer each other when the page names only the other (an icon classed "location"). */
const PLACES: Partial<Record<Concept, Concept>> = { address: 'location', location: 'address' };

/** The field's own class, id or itemprop words name the concept, or shorten one of its words ("emp", "loc"). */
function ownNames(field: CandidateField, concept: Concept | undefined): boolean {
  if (concept === undefined || field.kind !== 'text') return false;
  // A place is named by its address's words too ("Ort" in div.addr).
  const near = PLACES[concept];
  const words = near ? [...CONCEPT_WORDS[concept], ...CONCEPT_WORDS[near]] : CONCEPT_WORDS[concept];
  const shortens = (w: string) =>
    w.length >= 3 && conceptOfWord(w) === undefined && words.some((c) => c.length > w.length && c.startsWith(w));
  // A word of the concept's own list counts even when another language claims it first ("Tag" is a day).
  const names = (w: string) => conceptOfWord(w) === concept || words.includes(w) || shortens(w);
  return field.ownHints.some((h) => tokenWords(h).some(names));
}

/**
 * The one column headed by the initials of the request's words ("GP" for games played) or, in one letter,
 * by the first letter of its first word ("G" for games): statistics tables abbreviate their headers so.
 * A last resort, when nothing else names the request, and only when one column alone fits.
 */
function labelledByInitials(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  const parts = (request.written ?? request.word).split('_').filter((p) => p !== '');
  if (parts.length === 0) return undefined;
  const initials = parts.map((p) => p[0]).join('');
  const fits = free.filter((f) => {
    const label = f.label?.toLowerCase().replace(/[^\p{L}]/gu, '') ?? '';
    return label !== '' && label.length <= 3 && (label === initials || label === parts[0][0]);
  });
  return fits.length === 1 ? fits[0] : undefined;
}

/**
 * An element holding part of the outer one's amount ("$<strong>199</strong><sup>.99</sup>"): the
 * outer element has the whole number, the inner one only its units.
 */
function partOfAmount(inner: CandidateField, outer: CandidateField): boolean {
  return inner.samples.some((v, i) => {
    const whole = outer.samples[i] === undefined ? null : parseNumber(outer.samples[i]);
    const part = parseNumber(v);
    return whole !== null && part !== null && whole !== part;
  });
}

/** A label ("Wahre Tabelle", "bds") naming a prompt word ("wahre_tabelle", "beds"). */
function labelNames(label: string, word: string): boolean {
  return (
    fieldName(label) === word ||
    words(label).some((w) => w === word || abbreviates(w, word) || abbreviates(w, `${word}s`))
  );
}

/** Does a request (a word of the prompt) name this field? By concept, label or class words. */
export function requestMatches(request: PromptRequest, field: CandidateField, concept: Concept | undefined): boolean {
  if (request.concept !== undefined && request.concept === concept) return true;
  // Its own class or itemprop names the concept too (a.username with itemprop="name" is an author).
  if (request.concept !== undefined && ENTITY_CONCEPTS.has(request.concept) && ownNames(field, request.concept))
    return true;
  // The word or its meaning in another language ("eenheid" for span.unit, "rival" under "Opponent").
  const variants = request.concept === undefined ? fieldWordVariants(request.word) : [request.word];
  if (field.label && variants.some((w) => labelNames(field.label as string, w))) return true;
  if (request.concept === undefined && field.hints.some((h) => tokenWords(h).some((t) => variants.includes(t))))
    return true;
  // Every word of a request of several ("home team") among the field's own class words (span.team.home).
  const parts = request.word.split('_').filter((p) => p.length >= 3);
  if (parts.length < 2) return false;
  const own = new Set(field.ownHints.flatMap(tokenWords));
  return parts.every((p) => own.has(singular(p)));
}

export function toAgentField(n: Named, required = false): AgentField {
  const f = n.field;
  return {
    name: n.name,
    ...(f.selector ? { selector: f.selector } : {}),
    ...(f.xpath && !f.selector ? { xpath: f.xpath } : {}),
    ...(f.attribute ? { attribute: f.attribute } : {}),
    ...(f.transform ? { transform: f.transform } : {}),
    ...(required ? { required: true } : {}),
  };
}

function placeForAddress(
  request: PromptRequest,
  free: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
): CandidateField | undefined {
  const other = request.concept && PLACES[request.concept];
  return other ? free.find((f) => f.kind === 'text' && f.coverage >= 0.5 && roles.get(f) === other) : undefined;
}

/** Picks and names the fields for the requests; requests no field answers are returned as missing. */
export function selectFields(
  candidate: Candidate,
  requestsAsked: PromptRequest[],
): { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] } {
  const roles = roleFields(candidate);
  // A word naming the records themselves ("the quotes" of div.quote) asks for their main text.
  const recordWords = selectorClassWords(candidate.selector);
  const requests = requestsAsked.map((r) =>
    r.concept === undefined && recordWords.has(r.word) ? { ...r, concept: 'title' as const } : r,
  );
  const fields = candidate.fields;
  const matchedRequests = new Set<PromptRequest>();
  const chosen = new Map<CandidateField, Named>();
  let titleField: CandidateField | undefined;
  for (const request of requests) {
    // One field per request: a field labelled with the very word, else the first in record order
    // whose concept or label matches. A label saying more than the word names another value of that kind
    // ("Join Date" of a post's author beside the post's date): it is found by concept, after the others.
    const labelled = fields.find(
      (f) =>
        !chosen.has(f) &&
        f.label !== undefined &&
        ((words(f.label).length > 0 && words(f.label).every((w) => w === request.word)) ||
          fieldName(f.label) === request.word),
    );
    // A secondary value ("sub-rating", "subtotal") after the main one.
    // A prompt asking for both a place and an address: the field that is the other one answers that one.
    const near = request.concept && PLACES[request.concept];
    const otherPlace = (f: CandidateField) =>
      near !== undefined && roles.get(f) === near && requests.some((r) => r.concept === near);
    const matching = fields
      .filter((f) => !chosen.has(f) && !otherPlace(f) && requestMatches(request, f, roles.get(f)))
      .sort(
        (a, b) =>
          (asksForFormer(request)
            ? Number(!former(a)) - Number(!former(b))
            : Number(secondary(a)) - Number(secondary(b))) || (request.concept ? 0 : byPresence(a, b)),
      );
    // A title is a heading's text when the records have one free ("the review title" in <h3 class="summary">).
    if (request.concept === 'title' && !matching.some(inHeadingField)) {
      const heading = fields.find(
        (f) => !chosen.has(f) && f.kind === 'text' && f.coverage >= 0.5 && inHeadingField(f) && f.averageLength >= 3,
      );
      if (heading) matching.unshift(heading);
    }
    // Of a byline and the author name inside it, the inner element holds just the value.
    // A field whose own class names the concept (a.username) before one named by its wrapper (div.message-user).
    // Values shaped like the concept ("5.0 star rating") first, then a field whose own class names it.
    let first: CandidateField | undefined =
      matching.find(
        (f) =>
          f.coverage >= 0.5 &&
          request.concept !== undefined &&
          conceptOfValues(f.samples) === request.concept &&
          // A value labelled as something else ("Member since") is another field.
          (!f.label || labelNames(f.label, request.word)),
      ) ??
      matching.find(
        (f) =>
          f.coverage >= 0.5 &&
          request.concept !== undefined &&
          ENTITY_CONCEPTS.has(request.concept) &&
          ownNames(f, request.concept),
      ) ??
      matching.find((f) => f.coverage >= 0.5) ??
      matching[0];
    // Nothing names it: a text shaped like its values (an address, a quantity), or the rest of the title's element.
    // A price nothing names: a former one (struck through, classed "old") only when the prompt asks for it.
    const byFormer = (a: CandidateField, b: CandidateField) =>
      request.concept !== 'price'
        ? 0
        : Number(former(a) !== asksForFormer(request)) - Number(former(b) !== asksForFormer(request));
    const free = () => fields.filter((f) => !chosen.has(f)).sort(byFormer);
    first ??=
      countField(request, free()) ??
      fieldByShape(request, free()) ??
      namedByPicture(
        request,
        free(),
        requests.some((r) => r.concept === 'title') ? [...roles].find(([, c]) => c === 'title')?.[0] : undefined,
        (f) => describesPicture(f, fields),
      ) ??
      besideTitle(request, titleField, free()) ??
      priceInRecordText(request, free()) ??
      phoneInText(request, free()) ??
      dateInText(request, free()) ??
      placeForAddress(
        request,
        free().filter((f) => !otherPlace(f)),
        roles,
      ) ??
      placeInHeading(
        request,
        [...free().filter((f) => roles.get(f) === 'title'), ...free().filter(inHeadingField)],
        requests.some((r) => r.concept === 'title'),
      ) ??
      labelledByInitials(request, free()) ??
      creditedSource(request, free(), roles) ??
      personNames(request, free()) ??
      longestText(request, free()) ??
      onlyValueLeft(request, free(), fields, requests.length);
    const inner =
      first && first.kind === 'text'
        ? matching.find(
            (f) =>
              f !== first &&
              f.kind === 'text' &&
              f.key.startsWith(`${first.key.split('|')[0]}/`) &&
              !partOfAmount(f, first),
          )
        : undefined;
    const found = labelled ?? inner ?? first;
    if (!found) continue;
    let field = found;
    // A title holding the record's main link and more (a job title and its employer): the link's text.
    if (request.concept === 'title' && field.kind === 'text' && !inAnchor(field)) {
      const path = field.key.split('|')[0];
      field =
        fields.find(
          (f) =>
            f.kind === 'text' &&
            !chosen.has(f) &&
            f.coverage >= 0.8 &&
            f.key.startsWith(`${path}/`) &&
            (f.tag === 'a' || f.averageLength >= found.averageLength * 0.5) &&
            inAnchor(f) &&
            // Not a link some records lack, inside a text every record has (a cell linked in most rows).
            wholeCell(f, [found]) === f,
        ) ?? field;
    }
    matchedRequests.add(request);
    if (request.concept === 'title') titleField ??= field;
    chosen.set(field, {
      field: withAlternatives(field, fields, roles),
      concept: roles.get(field),
      name: fieldName(request.word),
    });
  }
  // Words nothing else answered, by their place in the prompt between the fields found.
  if (matchedRequests.size > 0) fillByPromptOrder(requests, fields, roles, chosen, matchedRequests);
  if (chosen.size === 0) for (const [f, n] of defaultFields(fields, roles)) chosen.set(f, n);
  // Fields the prompt named come in the prompt's order; otherwise in the record's order.
  const named =
    matchedRequests.size > 0
      ? [...chosen.values()]
      : fields.filter((f) => chosen.has(f)).map((f) => chosen.get(f) as Named);
  // A request whose concept another request's field already has ("title" when the reviewer's name is
  // classed as a name) is still missing: it is looked for on detail pages or reported, never dropped.
  // A word naming the records ("título da vaga" of li.vaga) is answered by the title another word took.
  if (titleField)
    requests.forEach((r, i) => {
      if (r !== requestsAsked[i] && !matchedRequests.has(r)) matchedRequests.add(r);
    });
  const missing = requests.filter((r) => !matchedRequests.has(r) && r.concept !== undefined);
  // Words naming no concept and matching nothing: fields asked for by a name the page does not use.
  const unanswered = requests.filter((r) => !matchedRequests.has(r) && r.concept === undefined);
  return {
    named: uniqueNames(named),
    missing: chosen.size > 0 && matchedRequests.size === 0 ? [] : missing,
    unanswered,
  };
}
