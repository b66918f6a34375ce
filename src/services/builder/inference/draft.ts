// From a page and a prompt to a draft Agent definition: choose the record container, pick and name
// the fields the prompt asks for (all meaningful ones when it names none), add pagination, and
// follow detail links for what only the detail pages hold. Also applies refinement messages
// ("also take the rating", "drop the image", "follow each link for the description").
import { type AgentDefinition, type AgentField } from '../../../engine/definition.js';
import { validateDefinition } from '../../../engine/definition-validate.js';
import { detailPages, inferDetailFields, type BuilderPage, type DetailRequest, type FetchPage } from './detail.js';
import { conceptOfWord, fieldName, uniqueNames, words, type Concept } from './naming.js';
import { promptRequests, type PromptRequest } from './prompt-requests.js';
import { missingFieldNotes, namesTheRecords, namesTheSubject, silentlyDropped, unansweredFields } from './missing.js';
import { detectPagination } from './pagination.js';
import type { Candidate } from './candidate.js';
import { requestMatches, selectFields, toAgentField } from './select-fields.js';
import { withRecordText, withMainText } from './record-text.js';
import { withTimeOfDay } from './date-time.js';
import { finishFields } from './value-form.js';
import { withMultipleValuesPerRecord } from './list-multiples.js';
import { candidateFor, findCandidates } from './structure.js';
import { generatedClassesIn } from './field-selectors.js';
import { promptRecordNouns } from './topic.js';
import { besideTheSubject } from './subject.js';
import {
  describeFields,
  pageAnswers,
  requestToDetail,
  singleRecordDraft,
  type OneRecord,
  type Proposal,
} from './single-record.js';
import { flattenDeepNesting } from './dom-text.js';
import { cutShortNote, UNLIMITED, type SearchBudget } from './budget.js';
import { asksForList, namesOneOwner } from './list-cue.js';
import { declaresOneItem, pageRecordFields } from './page-record.js';

export type { Proposal };

export type { BuilderPage, FetchPage };

export class NoRecordsError extends Error {}

/** Records holding this share of the page's text are its main content, even on a page declaring one item. */
const MAIN_LIST_TEXT_SHARE = 0.3;

/** The first draft for a page and a prompt. */
export async function proposeDraft(input: {
  page: BuilderPage;
  prompt: string;
  fetchPage: FetchPage;
  /** The search's time (see budget.ts); none by default. */
  budget?: SearchBudget;
}): Promise<Proposal> {
  flattenDeepNesting(input.page.$.root()[0]);
  const budget = input.budget ?? UNLIMITED;
  const proposal = await firstDraft({ ...input, budget });
  const { definition } = proposal;
  const requests = askedFields(input.prompt);
  // The steps after the first draft may add a field under a name already used (a second price).
  definition.list.fields = uniqueNames(
    withMultipleValuesPerRecord(
      input.page.$,
      definition.list.selector,
      withTimeOfDay(
        finishFields(definition.list.fields, input.page, definition.list.selector, requests),
        input.page,
        definition.list.selector,
        requests,
      ),
    ),
  );
  // A field found after all (a time of day read from the date's text) is no longer reported missing.
  const names = new Set(definition.list.fields.map((f) => f.name));
  proposal.notes = proposal.notes.filter(
    (n) => !/^Field "([^"]+)" not found/.test(n) || !names.has(fieldName(n.split('"')[1])),
  );
  if (definition.follow)
    definition.follow.fields = uniqueNames(finishFields(definition.follow.fields, input.page, undefined, requests));
  const follow = definition.follow ? `; from each detail page: ${describeFields(definition.follow.fields)}` : '';
  const fields = `Fields: ${describeFields(definition.list.fields)}${follow}.`;
  const all = [...definition.list.fields, ...(definition.follow?.fields ?? [])].map((f) => f.name);
  const dropped = silentlyDropped(requests, all, proposal.notes, definition.list.selector);
  proposal.notes = proposal.notes.flatMap((n) => (n.startsWith('Fields: ') ? [...dropped, fields] : [n]));
  if (budget.cut) proposal.notes.push(cutShortNote(budget));
  return proposal;
}

/** The names, each in quotes, as a list ("'a', 'b'"). */
function quoted(names: string[]): string {
  return names.map((n) => `'${n}'`).join(', ');
}

/**
 * The fields a prompt asks for. Words that name the records themselves ("each job", "the reviews: ...")
 * or the one thing the fields belong to ("... of the recipe", "the player's name") ask for no field.
 */
function askedFields(prompt: string): PromptRequest[] {
  return promptRequests(prompt).filter(
    (r) => !namesTheRecords(prompt, r.word) && (r.concept !== undefined || !namesTheSubject(prompt, r.word)),
  );
}

async function firstDraft(input: {
  page: BuilderPage;
  prompt: string;
  fetchPage: FetchPage;
  budget: SearchBudget;
}): Promise<Proposal> {
  const { page, prompt, budget } = input;
  const requests = askedFields(prompt);
  const wanted = [...new Set(requests.map((r) => r.concept).filter((c): c is Concept => c !== undefined))];
  const candidates = findCandidates(
    page.$,
    wanted,
    requests.filter((r) => r.concept === undefined).map((r) => r.word),
    prompt,
    budget,
  );
  // A page that is itself the record (an article, a product's page) and a prompt asking for no list.
  const oneRecord = asksForList(prompt) || requests.length === 0 ? null : pageRecordFields(page.$, requests);
  const single = (why: string) => singleRecordDraft(page, candidates, oneRecord as OneRecord, why);
  const top = candidates[0] as Candidate | undefined;
  const selection = top
    ? withMainText(top, withRecordText(top, selectFields(top, requests), requests, prompt, page.$), prompt)
    : undefined;
  // Requests the top records answer by no field of their own (the default fields and those found by their
  // place in the prompt alone do not count).
  const topLacks = selection
    ? requests.filter((r) => !selection.named.some((n) => n.name === fieldName(r.word) && !n.byPromptOrder)).length
    : requests.length;
  // Answered by the page itself: by label, metadata, heading or an element classed for the field.
  const answered = oneRecord ? pageAnswers(page, oneRecord) : 0;
  if (oneRecord && answered > 0) {
    // An article whose body is a table answering every field ("country, capital and population") is a list.
    const listWins =
      top !== undefined &&
      selection !== undefined &&
      ((topLacks === 0 &&
        top.count >= 3 &&
        top.textShare >= MAIN_LIST_TEXT_SHARE &&
        selection.named.every((n) => n.field.coverage >= 0.8)) ||
        // Or the prompt names its records ("材料の名前と分量", "each ingredient") and the page names these so.
        (top.recordWord !== undefined && top.count >= 3 && promptRecordNouns(prompt).length > 0));
    if (declaresOneItem(page.$) && !listWins)
      return single('The page describes one item (its JSON-LD, Open Graph or microdata say so)');
    if (!top) return single('No repeated records were found');
    if (besideTheSubject(page.$, top))
      return single(`The records ('${top.selector}') sit beside the page's own subject`);
    // A prompt asking for no list, answered better by the page's own labelled values, metadata and
    // heading than by any repeated records (a player's page with its navigation, a recipe beside teasers).
    // A value found in half of the records or fewer answers no field of theirs: records each holding a
    // different label and its value ("Autor: Panelinha", "Serve: 4") are the page's own labelled values.
    // A field found by its place in the prompt alone is no evidence against the page's own values.
    const topAnswers = (selection?.named ?? []).filter((n) => n.field.coverage > 0.5 && !n.byPromptOrder).length;
    // A prompt naming the one thing its fields belong to ("... of the news article") breaks a tie for the page.
    if (answered > topAnswers || (answered === topAnswers && namesOneOwner(prompt)))
      return single(
        `The page itself answers ${answered} of the ${requests.length} fields asked for, its best repeated records ('${top.selector}') ${topAnswers}`,
      );
  }
  if (!top || !selection) {
    throw new NoRecordsError(
      'No repeated records were found on the page: it may be empty without JavaScript, a single item rather than a list, or need a different URL (for example a search or category page).',
    );
  }
  const chosen = top;
  const notes = [
    `Chose ${chosen.count} records matching '${chosen.selector}' (${chosen.fields.length} aligned values each).`,
  ];
  const generated = generatedClassesIn(chosen.selector);
  if (generated.length > 0)
    notes.push(
      `The records are told from the boxes beside them only by ${quoted(generated)}, a class the site's build generated: a new build of the site may rename it, and the Agent would then find no records.`,
    );
  const { named, missing, unanswered } = selection;
  if (named.length === 0)
    throw new NoRecordsError(`The records matching '${chosen.selector}' hold no values that could be named.`);
  if (oneRecord && oneRecord.missing.length === 0 && topLacks > 0)
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
  for (const field of definition.list.fields) {
    const classes = generatedClassesIn(field.selector ?? '');
    if (classes.length > 0)
      notes.push(
        `Field ${field.name} is found in each record by ${quoted(classes)}, a class the site's build generated: a new build of the site may rename it, and the field would then be empty.`,
      );
  }
  if (missing.length > 0) {
    const follow = await addDetailFields(
      definition,
      page,
      chosen,
      input.fetchPage,
      missing.map(requestToDetail),
      budget,
    );
    notes.push(...follow);
  }
  notes.push(
    `Fields: ${describeFields(definition.list.fields)}${definition.follow ? `; from each detail page: ${describeFields(definition.follow.fields)}` : ''}.`,
  );
  return { definition, candidates, notes };
}

async function addDetailFields(
  definition: AgentDefinition,
  page: BuilderPage,
  candidate: Candidate,
  fetchPage: FetchPage,
  requests: DetailRequest[],
  budget: SearchBudget = UNLIMITED,
): Promise<string[]> {
  const wanted = requests.filter(
    (r) =>
      !definition.list.fields.some((f) => f.name === r.name) &&
      !definition.follow?.fields.some((f) => f.name === r.name),
  );
  if (wanted.length === 0) return [];
  if (budget.spent())
    return missingFieldNotes(
      wanted,
      candidate,
      definition.list.fields,
      'on the page (its detail pages were not read: the time limit was reached)',
    );
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
  const candidate = candidateFor(page.$, definition.list.selector ?? '') ?? findCandidates(page.$)[0];
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
    const usedKeys = new Set(definition.list.fields.map((f) => `${f.selector ?? f.xpath ?? ''}|${f.attribute ?? ''}`));
    const additions = named.filter(
      (n) =>
        fresh.some((r) => requestMatches(r, n.field, n.concept) || fieldName(r.word) === n.name) &&
        !usedKeys.has(`${n.field.selector ?? n.field.xpath ?? ''}|${n.field.attribute ?? ''}`),
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
