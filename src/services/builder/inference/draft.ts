// From a page and a prompt to a draft Agent definition: choose the record container, pick and name
// the fields the prompt asks for (all meaningful ones when it names none), add pagination, and
// follow detail links for what only the detail pages hold. Also applies refinement messages
// ("also take the rating", "drop the image", "follow each link for the description").
import type { CheerioAPI } from 'cheerio';
import { validateDefinition, type AgentDefinition, type AgentField } from '../../../engine/definition.js';
import { resolveUrl } from '../../../engine/extract.js';
import { inferDetailFields, type DetailRequest } from './detail.js';
import {
  abbreviates,
  CONCEPT_WORDS,
  conceptOfValues,
  conceptOfWord,
  fieldName,
  promptRequests,
  tokenWords,
  words,
  type Concept,
  type PromptRequest,
} from './naming.js';
import { missingFieldNotes, namesTheRecords, unansweredFields } from './missing.js';
import { detectPagination } from './pagination.js';
import type { Candidate, CandidateField } from './candidate.js';
import { candidateFor, findCandidates } from './structure.js';
import { asksForList, declaresOneItem, ONE_RECORD_SELECTOR, pageRecordFields } from './page-record.js';

export interface BuilderPage {
  $: CheerioAPI;
  /** The URL that answered (relative links resolve against it). */
  url: string;
}

/** Fetches and parses a detail page; null when it cannot be read. */
export type FetchPage = (url: string) => Promise<BuilderPage | null>;

export interface Proposal {
  definition: AgentDefinition;
  candidates: Candidate[];
  /** What the builder found and decided, in words a user can follow. */
  notes: string[];
}

export class NoRecordsError extends Error {}

const DETAIL_PAGES_TRIED = 2;
const MAX_DEFAULT_FIELDS = 10;
/** A prompt that names no field gets the fields present in at least this share of the records. */
const DEFAULT_FIELD_COVERAGE = 0.4;

interface Named {
  field: CandidateField;
  concept: Concept | undefined;
  name: string;
}

/** Concepts for fields the markup did not label: the main title and link, a long description. */
function roleFields(candidate: Candidate): Map<CandidateField, Concept | undefined> {
  const fields = candidate.fields;
  const roles = new Map<CandidateField, Concept | undefined>(fields.map((f) => [f, f.concept]));
  const texts = fields.filter(
    (f) => f.kind === 'text' || (f.kind === 'attribute' && (f.attribute === 'title' || f.attribute === 'aria-label')),
  );
  const has = (c: Concept) => [...roles.values()].includes(c);
  if (!has('title')) {
    const plainish = (f: CandidateField) => f.averageLength >= 3 && !/^[\d.,#\s]+$/.test(f.samples[0] ?? '');
    // A heading, or text inside one (<h3><a>…</a></h3>), or an element classed as a title.
    const inHeading = (f: CandidateField) => /^h[1-6]$/.test(f.tag) || /\/h[1-6](?=[.[{/]|$)/.test(f.key.split('|')[0]);
    const heading = texts.find(
      (f) =>
        plainish(f) &&
        (inHeading(f) ||
          f.ownHints.some((h) => tokenWords(h).some((w) => ['title', 'name', 'heading', 'headline'].includes(w)))),
    );
    // The record's main link names it: the longest text inside an anchor (its own or a child's).
    const linkText = texts
      .filter((f) => inAnchor(f) && f.coverage >= 0.8 && !roles.get(f) && plainish(f))
      .sort((a, b) => b.averageLength - a.averageLength)[0];
    const plain = (f: CandidateField) =>
      f.averageLength >= 3 &&
      f.averageLength < 150 &&
      !/^\d/.test(f.samples[0] ?? '') &&
      conceptOfValues(f.samples) === undefined;
    // A concept read from a label ("City") gives way: the first plain text of a record names it.
    const firstText = texts.find((f) => !roles.get(f) && plain(f)) ?? texts.find(plain);
    const title = heading ?? linkText ?? firstText;
    if (title) roles.set(title, 'title');
  }
  const links = fields.filter((f) => f.kind === 'link');
  if (links.length > 1) {
    // The main link: the one around the title, else the most common one; others lose the 'link' role.
    const title = [...roles].find(([, c]) => c === 'title')?.[0];
    const main =
      links.find(
        (l) => title && (l.key.split('|')[0] === title.key.split('|')[0] || title.key.startsWith(l.key.split('|')[0])),
      ) ?? [...links].sort((a, b) => b.coverage - a.coverage)[0];
    for (const l of links) if (l !== main) roles.set(l, undefined);
  }
  const title = [...roles].find(([, c]) => c === 'title')?.[0];
  if (!has('description')) {
    const long = texts
      .filter((f) => !roles.get(f) && f.averageLength > 60 && f !== title)
      .sort((a, b) => b.averageLength - a.averageLength)[0];
    if (long) roles.set(long, 'description');
  }
  const images = fields.filter((f) => f.kind === 'image');
  for (const extra of images.slice(1)) roles.set(extra, undefined);
  return roles;
}

/** Classed as secondary: "sub-rating", "subtotal", "subtitle". */
function secondary(f: CandidateField): boolean {
  return f.hints.some((h) => /^sub(?:[-_A-Z]|[a-z]{3,})/.test(h));
}

/** Text of a heading, its own or a child's (<h3><a>…</a></h3>). */
function inHeadingField(f: CandidateField): boolean {
  return /^h[1-6]$/.test(f.tag) || /\/h[1-6](?=[.[{/]|$)/.test(f.key.split('|')[0]);
}

/** Text of an anchor, its own or a child's. */
function inAnchor(f: CandidateField): boolean {
  return (
    f.tag === 'a' ||
    f.key
      .split('|')[0]
      .split('/')
      .some((step) => /^a(?:[.[]|$)/.test(step))
  );
}

/** A name from the markup when no concept applies: a label, else a meaningful class word. */
function markupName(field: CandidateField): string | undefined {
  if (field.label) return fieldName(field.label);
  for (const hint of field.hints) {
    const ws = tokenWords(hint).filter(
      (w) =>
        ![
          'item',
          'card',
          'product',
          'list',
          'entry',
          'row',
          'col',
          'text',
          'value',
          'field',
          'info',
          'meta',
          'data',
          'wrapper',
          'inner',
          'content',
        ].includes(w) && w.length > 2,
    );
    if (ws.length > 0) return fieldName(ws.join('_'));
  }
  return undefined;
}

/** A label on the page ("City", "Population") names a field better than its concept. */
function defaultName(field: CandidateField, concept: Concept | undefined): string | undefined {
  if (field.label && concept !== 'link' && concept !== 'image') return fieldName(field.label);
  if (concept) return CONCEPT_WORDS[concept][0];
  return markupName(field);
}

/** Concepts whose values are names of things: a class word saying so is enough ("username"). */
const ENTITY_CONCEPTS = new Set<Concept>(['author', 'company', 'location', 'brand', 'publisher', 'category']);

/** The field's own class, id or itemprop words name the concept. */
function ownNames(field: CandidateField, concept: Concept | undefined): boolean {
  return (
    concept !== undefined &&
    field.kind === 'text' &&
    field.ownHints.some((h) => tokenWords(h).some((w) => conceptOfWord(w) === concept))
  );
}

/** A label ("Wahre Tabelle", "bds") naming a prompt word ("wahre_tabelle", "beds"). */
function labelNames(label: string, word: string): boolean {
  return (
    fieldName(label) === word ||
    words(label).some((w) => w === word || abbreviates(w, word) || abbreviates(w, `${word}s`))
  );
}

/** Does a request (a word of the prompt) name this field? By concept, label or class words. */
function requestMatches(request: PromptRequest, field: CandidateField, concept: Concept | undefined): boolean {
  if (request.concept !== undefined && request.concept === concept) return true;
  // Its own class or itemprop names the concept too (a.username with itemprop="name" is an author).
  if (request.concept !== undefined && ENTITY_CONCEPTS.has(request.concept) && ownNames(field, request.concept))
    return true;
  if (field.label && labelNames(field.label, request.word)) return true;
  if (request.concept === undefined && field.hints.some((h) => tokenWords(h).includes(request.word))) return true;
  return false;
}

function uniqueNames(named: Named[]): Named[] {
  const seen = new Map<string, number>();
  return named.map((n) => {
    const count = (seen.get(n.name) ?? 0) + 1;
    seen.set(n.name, count);
    return count === 1 ? n : { ...n, name: `${n.name}_${count}` };
  });
}

function toAgentField(n: Named, required = false): AgentField {
  const f = n.field;
  return {
    name: n.name,
    ...(f.selector ? { selector: f.selector } : {}),
    ...(f.attribute ? { attribute: f.attribute } : {}),
    ...(f.transform ? { transform: f.transform } : {}),
    ...(required ? { required: true } : {}),
  };
}

/**
 * A value that sits in different places in different records (a regular price, a sale price in
 * <ins>): fields of the same concept present in disjoint records are joined into one selector list.
 */
function withAlternatives(
  field: CandidateField,
  fields: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
): CandidateField {
  if (field.coverage >= 0.95 || !field.selector || !roles.get(field)) return field;
  let merged = field;
  const covered = new Set(field.present);
  for (const other of fields) {
    if (
      other === field ||
      !other.selector ||
      other.kind !== field.kind ||
      other.attribute !== field.attribute ||
      roles.get(other) !== roles.get(field)
    )
      continue;
    if (other.present.some((i) => covered.has(i))) continue;
    for (const i of other.present) covered.add(i);
    merged = {
      ...merged,
      selector: `${merged.selector}, ${other.selector}`,
      coverage: merged.coverage + other.coverage,
      present: [...covered],
    };
  }
  return merged;
}

/** Picks and names the fields for the requests; requests no field answers are returned as missing. */
export function selectFields(
  candidate: Candidate,
  requestsAsked: PromptRequest[],
): { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] } {
  const roles = roleFields(candidate);
  // A word naming the records themselves ("the quotes" of div.quote) asks for their main text.
  const recordWords = new Set(
    (candidate.selector.match(/\.[A-Za-z][\w-]*/g) ?? []).flatMap((c) => tokenWords(c.slice(1))),
  );
  const requests = requestsAsked.map((r) =>
    r.concept === undefined && recordWords.has(r.word) ? { ...r, concept: 'title' as const } : r,
  );
  const fields = candidate.fields;
  const matchedRequests = new Set<PromptRequest>();
  const chosen = new Map<CandidateField, Named>();
  for (const request of requests) {
    // One field per request: a field labelled with the very word, else the first in record order
    // whose concept or label matches.
    const labelled = fields.find(
      (f) =>
        !chosen.has(f) &&
        f.label !== undefined &&
        (words(f.label).includes(request.word) || fieldName(f.label) === request.word),
    );
    // A secondary value ("sub-rating", "subtotal") after the main one.
    const matching = fields
      .filter((f) => !chosen.has(f) && requestMatches(request, f, roles.get(f)))
      .sort((a, b) => Number(secondary(a)) - Number(secondary(b)));
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
    const first =
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
    const inner =
      first && first.kind === 'text'
        ? matching.find((f) => f !== first && f.kind === 'text' && f.key.startsWith(`${first.key.split('|')[0]}/`))
        : undefined;
    let field = labelled ?? inner ?? first;
    if (!field) continue;
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
            (f.tag === 'a' || f.averageLength >= field.averageLength * 0.5) &&
            inAnchor(f),
        ) ?? field;
    }
    matchedRequests.add(request);
    chosen.set(field, {
      field: withAlternatives(field, fields, roles),
      concept: roles.get(field),
      name: fieldName(request.word),
    });
  }
  if (chosen.size === 0) {
    // The prompt names nothing we can match: take every field that says what it is, once.
    const byConcept = new Map<Concept, CandidateField>();
    const path = (f: CandidateField) => f.key.replace(/^\+/, '').split('|')[0];
    for (const field of fields) {
      const concept = roles.get(field);
      if (field.coverage < DEFAULT_FIELD_COVERAGE) continue;
      // Secondary links (a thumbnail's, "add to cart", a vote arrow) repeat or distract from the main one.
      if (field.kind === 'link' && concept !== 'link') continue;
      // The same text twice (a linked capital that is also the longest link text) is kept once.
      if (
        field.kind === 'text' &&
        [...chosen.keys()].some((c) => c.kind === 'text' && c.samples.join('|') === field.samples.join('|'))
      )
        continue;
      const seen = concept ? byConcept.get(concept) : undefined;
      if (seen) {
        // Of a byline and the author name inside it, the inner element holds just the value.
        if (field.kind === 'text' && seen.kind === 'text' && path(field).startsWith(`${path(seen)}/`)) {
          chosen.set(field, { ...(chosen.get(seen) as Named), field });
          chosen.delete(seen);
          byConcept.set(concept as Concept, field);
        }
        continue;
      }
      const name = defaultName(field, concept);
      if (!name) continue;
      if (concept) byConcept.set(concept, field);
      chosen.set(field, { field: withAlternatives(field, fields, roles), concept, name });
      if (chosen.size >= MAX_DEFAULT_FIELDS) break;
    }
  }
  // Fields the prompt named come in the prompt's order; otherwise in the record's order.
  const named =
    matchedRequests.size > 0
      ? [...chosen.values()]
      : fields.filter((f) => chosen.has(f)).map((f) => chosen.get(f) as Named);
  // A request whose concept another request's field already has ("title" when the reviewer's name is
  // classed as a name) is still missing: it is looked for on detail pages or reported, never dropped.
  const missing = requests.filter((r) => !matchedRequests.has(r) && r.concept !== undefined);
  // Words naming no concept and matching nothing: fields asked for by a name the page does not use.
  const unanswered = requests.filter((r) => !matchedRequests.has(r) && r.concept === undefined);
  return {
    named: uniqueNames(named),
    missing: chosen.size > 0 && matchedRequests.size === 0 ? [] : missing,
    unanswered,
  };
}

function mainLink(candidate: Candidate): CandidateField | undefined {
  const roles = roleFields(candidate);
  return candidate.fields.find((f) => f.kind === 'link' && roles.get(f) === 'link');
}

async function detailPages(
  page: BuilderPage,
  candidate: Candidate,
  fetchPage: FetchPage,
): Promise<{ pages: CheerioAPI[]; selector: string } | null> {
  const link = mainLink(candidate);
  if (!link) return null;
  const selector = link.selector ?? 'a[href]';
  const urls = page
    .$(candidate.selector)
    .toArray()
    .slice(0, DETAIL_PAGES_TRIED)
    .map((el) => {
      const scope = page.$(el);
      const a = link.selector ? scope.find(link.selector).first() : scope;
      const href = a.attr('href');
      return href === undefined ? null : resolveUrl(href, page.url);
    })
    .filter((u): u is string => u !== null);
  const pages: CheerioAPI[] = [];
  for (const url of urls) {
    const p = await fetchPage(url);
    if (p) pages.push(p.$);
  }
  return pages.length > 0 ? { pages, selector } : null;
}

function describeFields(fields: AgentField[]): string {
  return fields.map((f) => f.name).join(', ');
}

/** The first draft for a page and a prompt. */
export async function proposeDraft(input: {
  page: BuilderPage;
  prompt: string;
  fetchPage: FetchPage;
}): Promise<Proposal> {
  const { page, prompt } = input;
  // Words that name the records themselves ("each job", "the reviews: ...") ask for no field.
  const requests = promptRequests(prompt).filter((r) => !namesTheRecords(prompt, r.word));
  const wanted = [...new Set(requests.map((r) => r.concept).filter((c): c is Concept => c !== undefined))];
  const candidates = findCandidates(
    page.$,
    wanted,
    requests.filter((r) => r.concept === undefined).map((r) => r.word),
  );
  // A page that is itself the record (an article, a product's page) and a prompt asking for no list.
  const oneRecord = asksForList(prompt) || requests.length === 0 ? null : pageRecordFields(page.$, requests);
  const single = (why: string) => singleRecordDraft(page, candidates, oneRecord as OneRecord, why);
  if (oneRecord && oneRecord.fields.length > 0) {
    if (declaresOneItem(page.$))
      return single('The page describes one item (its JSON-LD, Open Graph or microdata say so)');
    if (candidates.length === 0) return single('No repeated records were found');
  }
  if (candidates.length === 0) {
    throw new NoRecordsError(
      'No repeated records were found on the page: it may be empty without JavaScript, a single item rather than a list, or need a different URL (for example a search or category page).',
    );
  }
  const chosen = candidates[0];
  const notes = [
    `Chose ${chosen.count} records matching '${chosen.selector}' (${chosen.fields.length} aligned values each).`,
  ];
  const { named, missing, unanswered } = selectFields(chosen, requests);
  if (named.length === 0)
    throw new NoRecordsError(`The records matching '${chosen.selector}' hold no values that could be named.`);
  if (
    oneRecord &&
    oneRecord.missing.length === 0 &&
    missing.length + unansweredFields(prompt, chosen, unanswered).length > 0
  )
    return single('Every field asked for is on the page itself, not in its repeated records');
  const titleField = named.find((n) => n.concept === 'title' && n.field.coverage === 1);
  const definition: AgentDefinition = {
    startUrl: page.url,
    list: { selector: chosen.selector, fields: named.map((n) => toAgentField(n, n === titleField)) },
  };
  const pagination = detectPagination(page.$, page.url);
  if (pagination) {
    definition.next = { selector: pagination.selector };
    notes.push(`Pagination: ${pagination.how} ('${pagination.selector}') leads to ${pagination.nextUrl}.`);
  } else notes.push('No pagination found: the Agent reads this page only.');
  notes.push(
    ...missingFieldNotes(unansweredFields(prompt, chosen, unanswered), chosen, definition.list.fields, 'on the page'),
  );
  if (missing.length > 0) {
    const follow = await addDetailFields(definition, page, chosen, input.fetchPage, missing.map(requestToDetail));
    notes.push(...follow);
  }
  notes.push(
    `Fields: ${describeFields(definition.list.fields)}${definition.follow ? `; from each detail page: ${describeFields(definition.follow.fields)}` : ''}.`,
  );
  return { definition, candidates, notes };
}

type OneRecord = ReturnType<typeof pageRecordFields>;

/** The page as one record: the list selector is the document itself, fields are read from its root. */
function singleRecordDraft(page: BuilderPage, candidates: Candidate[], record: OneRecord, why: string): Proposal {
  const notes = [`${why}: the Agent reads the page as one record.`];
  // What neither the page's own metadata nor a label gives: an element classed for it (as on detail pages).
  const more = inferDetailFields([page.$], record.missing.map(requestToDetail));
  notes.push(
    ...more.missing.map(
      (r) =>
        `Field "${r.word}" not found on the page: no element, label, class, meta tag or structured data (JSON-LD, microdata) holds a "${r.word}".`,
    ),
  );
  const fields = [...record.fields, ...more.fields];
  const definition: AgentDefinition = { startUrl: page.url, list: { selector: ONE_RECORD_SELECTOR, fields } };
  notes.push(`Fields: ${describeFields(fields)}.`);
  return { definition, candidates, notes };
}

function requestToDetail(r: PromptRequest): DetailRequest {
  return { name: fieldName(r.word), concept: r.concept, word: r.word };
}

async function addDetailFields(
  definition: AgentDefinition,
  page: BuilderPage,
  candidate: Candidate,
  fetchPage: FetchPage,
  requests: DetailRequest[],
): Promise<string[]> {
  const wanted = requests.filter(
    (r) =>
      !definition.list.fields.some((f) => f.name === r.name) &&
      !definition.follow?.fields.some((f) => f.name === r.name),
  );
  if (wanted.length === 0) return [];
  const detail = await detailPages(page, candidate, fetchPage);
  if (!detail)
    return missingFieldNotes(
      wanted,
      candidate,
      definition.list.fields,
      'on the page (and the records link to no detail page)',
    );
  const { fields, missing } = inferDetailFields(detail.pages, wanted);
  const notes: string[] = [];
  if (fields.length > 0) {
    definition.follow = {
      selector: definition.follow?.selector ?? detail.selector,
      fields: [...(definition.follow?.fields ?? []), ...fields],
    };
    notes.push(
      `Following each record's link ('${definition.follow.selector}') for: ${fields.map((f) => f.name).join(', ')}.`,
    );
  }
  if (missing.length > 0)
    notes.push(
      ...missingFieldNotes(missing, candidate, definition.list.fields, 'on the list page nor on the detail pages'),
    );
  return notes;
}

/** Which draft field a word of a message means: by name, or by the concept both name. */
function fieldsNamed(fields: AgentField[], message: string): AgentField[] {
  const ws = promptRequests(message);
  return fields.filter((f) => {
    const nameWords = words(f.name.replace(/_/g, ' '));
    const nameConcepts = nameWords.map(conceptOfWord);
    return ws.some((w) => nameWords.includes(w.word) || (w.concept !== undefined && nameConcepts.includes(w.concept)));
  });
}

/** Applies a refinement message to a draft. */
export async function refineDraft(input: {
  page: BuilderPage;
  draft: AgentDefinition;
  message: string;
  fetchPage: FetchPage;
}): Promise<Proposal> {
  const { page, message } = input;
  const definition: AgentDefinition = structuredClone(input.draft);
  const notes: string[] = [];
  const lower = message.toLowerCase();
  const candidate = candidateFor(page.$, definition.list.selector) ?? findCandidates(page.$)[0];
  if (!candidate)
    throw new NoRecordsError(`The list selector '${definition.list.selector}' no longer matches anything on the page.`);

  const rename = lower.match(
    /\b(?:rename|call)\s+(?:the\s+)?([a-z_][\w]*)\s+(?:field\s+)?(?:to|as)\s+["']?([a-z_][\w]*)/,
  );
  if (rename) {
    const field = [...definition.list.fields, ...(definition.follow?.fields ?? [])].find(
      (f) => f.name === rename[1] || fieldsNamed([f], rename[1]).length > 0,
    );
    if (field) {
      notes.push(`Renamed ${field.name} to ${fieldName(rename[2])}.`);
      field.name = fieldName(rename[2]);
    } else notes.push(`There is no field called ${rename[1]}.`);
    return { definition, candidates: [candidate], notes };
  }

  if (
    /\b(?:only the first page|first page only|no pagination|don'?t paginate|do not paginate|single page|just this page)\b/.test(
      lower,
    )
  ) {
    delete definition.next;
    notes.push('Pagination removed: the Agent reads the first page only.');
  }
  const maxPages = lower.match(/\b(?:at most|up to|max(?:imum)?|only|first)\s+(\d{1,4})\s+pages?\b/);
  if (maxPages && definition.next) {
    definition.next.maxPages = Number(maxPages[1]);
    notes.push(`Pagination limited to ${maxPages[1]} pages.`);
  }

  const drop = lower.match(
    /\b(?:drop|remove|delete|without|exclude|skip|no need for|don'?t need|do not need|leave out|get rid of)\b(.*)$/,
  );
  if (drop) {
    const gone = new Set(
      [...fieldsNamed(definition.list.fields, drop[1]), ...fieldsNamed(definition.follow?.fields ?? [], drop[1])].map(
        (f) => f.name,
      ),
    );
    if (gone.size === 0) notes.push(`No field matches "${drop[1].trim()}"; nothing was removed.`);
    const keptList = definition.list.fields.filter((f) => !gone.has(f.name));
    if (keptList.length === 0) notes.push('Every list field would be gone; the draft keeps them.');
    else if (gone.size > 0) {
      definition.list.fields = keptList;
      if (definition.follow) {
        const keptFollow = definition.follow.fields.filter((f) => !gone.has(f.name));
        if (keptFollow.length > 0) definition.follow.fields = keptFollow;
        else delete definition.follow;
      }
      notes.push(`Removed: ${[...gone].join(', ')}.`);
    }
    return { definition, candidates: [candidate], notes };
  }

  const followWanted =
    /\b(?:follow|open|visit|go into|click)\b|\bdetail(?:s)? pages?\b|\b(?:product|item|own) pages?\b|\beach link\b/.test(
      lower,
    );
  const forPart = followWanted ? (lower.match(/\bfor (?:the |their |its )?(.+)$/)?.[1] ?? lower) : lower;
  const requests = promptRequests(forPart).filter((r) => !(followWanted && ['link', 'page'].includes(r.word)));
  const existing = new Set([...definition.list.fields, ...(definition.follow?.fields ?? [])].map((f) => f.name));
  const fresh = requests.filter(
    (r) =>
      !existing.has(fieldName(r.word)) &&
      fieldsNamed([...definition.list.fields, ...(definition.follow?.fields ?? [])], r.word).length === 0,
  );
  if (fresh.length === 0 && requests.length > 0) notes.push('Every field asked for is already in the draft.');
  if (!followWanted && fresh.length > 0) {
    const { named } = selectFields(candidate, fresh);
    const usedKeys = new Set(definition.list.fields.map((f) => `${f.selector ?? ''}|${f.attribute ?? ''}`));
    const additions = named.filter(
      (n) =>
        fresh.some((r) => requestMatches(r, n.field, n.concept) || fieldName(r.word) === n.name) &&
        !usedKeys.has(`${n.field.selector ?? ''}|${n.field.attribute ?? ''}`),
    );
    const taken = new Set(additions.map((n) => n.name));
    for (const n of additions)
      definition.list.fields.push(toAgentField({ ...n, name: existing.has(n.name) ? `${n.name}_2` : n.name }));
    if (additions.length > 0) notes.push(`Added from the list page: ${additions.map((n) => n.name).join(', ')}.`);
    const left = fresh.filter(
      (r) => !taken.has(fieldName(r.word)) && !additions.some((n) => requestMatches(r, n.field, n.concept)),
    );
    if (left.length > 0)
      notes.push(...(await addDetailFields(definition, page, candidate, input.fetchPage, left.map(requestToDetail))));
  } else if (followWanted) {
    const detailRequests =
      fresh.length > 0
        ? fresh.map(requestToDetail)
        : [{ name: 'description', concept: 'description' as const, word: 'description' }];
    notes.push(...(await addDetailFields(definition, page, candidate, input.fetchPage, detailRequests)));
  }
  if (notes.length === 0)
    notes.push(
      'The message asked for no change the builder understood; try "also take the rating", "drop the image" or "follow each link for the description".',
    );
  return { definition, candidates: [candidate], notes };
}

/** Problems of a draft: the definition's own and, on the page, a list selector that finds nothing. */
export function checkDraft(definition: unknown, page: BuilderPage): string[] {
  const { problems } = validateDefinition(definition);
  if (problems.length > 0) return problems;
  const def = definition as AgentDefinition;
  const count = page.$(def.list.selector).length;
  if (count === 0) return [`list.selector '${def.list.selector}' matches nothing on the page`];
  return [];
}
