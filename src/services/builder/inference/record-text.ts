// A prompt that names only the records ("alla ingredienser", "tutti gli ingredienti") asks for each
// record's whole text: when the chosen records are the ones the prompt names (their class or heading
// says so, topic.ts) and that word found no field of its own, the record itself becomes the field,
// named with the page's word for it ("ingredient" of li.ingredient), in English when it is a known noun.
import type { CheerioAPI } from 'cheerio';
import type { Candidate, CandidateField } from './candidate.js';
import { ownText } from './dom-text.js';
import type { Element } from './selectors.js';
import { namesTheRecords } from './missing.js';
import { fieldName, singular } from './naming.js';
import { promptRequests, type PromptRequest } from './prompt-requests.js';
import type { Named } from './named-field.js';
import { englishRecordNouns } from './record-nouns.js';
import { onlyRecordNoun, plainWords, sameStem } from './topic.js';

/** The summed average length of the records' text fields (their text, roughly). */
function recordLength(candidate: Candidate): number {
  return candidate.fields.filter((f) => f.kind === 'text').reduce((n, f) => n + f.averageLength, 0);
}

/** Records this short are one line of text ("Beurre doux : 60 g"), not cards of several values. */
const ONE_LINE = 80;

/**
 * The prompt's only request when it names the records and was answered by a part of records that are
 * one short line: an element carrying the records' name ("span.ingredient") that holds only some of
 * the line ("Beurre doux :" without its "60 g"). The prompt asked for the records, so their whole line.
 */
function partOfOneLine(
  candidate: Candidate,
  named: Named[],
  requests: PromptRequest[],
  naming: (r: PromptRequest) => boolean,
): PromptRequest | undefined {
  const [only] = requests;
  if (requests.length !== 1 || !naming(only) || recordLength(candidate) > ONE_LINE) return undefined;
  const answer = named.find((n) => n.name === fieldName(only.word));
  return answer && answer.field.kind === 'text' && answer.field.averageLength < 0.9 * recordLength(candidate)
    ? only
    : undefined;
}

export function withRecordText(
  candidate: Candidate,
  selection: { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] },
  requests: PromptRequest[],
  prompt: string,
  $?: CheerioAPI,
): { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] } {
  // Records the page does not name, asked for by a prompt naming nothing but them ("材料を全部教えて"), when
  // they are one short line each and that noun found no field: the noun's English word names their text.
  const only = onlyRecordNoun(prompt);
  const unnamed =
    only !== undefined &&
    selection.unanswered.some((r) => r.word === only) &&
    recordLength(candidate) <= ONE_LINE &&
    candidate.fields.filter((f) => f.kind === 'text').length === 1
      ? englishRecordNouns(only)[0]
      : undefined;
  const word = candidate.recordWord ?? unnamed;
  if (!word) return selection;
  // The page's word or the English noun of the prompt's ("Zutaten" asks for li.ingredient).
  const naming = (r: PromptRequest) =>
    r.word === word ||
    plainWords(r.word.replace(/_/g, ' ')).some(
      (w) => sameStem(w, word) || englishRecordNouns(w).some((e) => sameStem(e, word)),
    ) ||
    englishRecordNouns(r.word).some((e) => sameStem(e, word));
  // The word may be the prompt's subject only ("tous les ingrédients"): then it asked for no field of its own.
  const asking =
    selection.unanswered.find(naming) ??
    selection.missing.find(naming) ??
    promptRequests(prompt).find((r) => naming(r) && namesTheRecords(prompt, r.word)) ??
    partOfOneLine(candidate, selection.named, requests, naming);
  if (!asking) return selection;
  // Only when nothing else the prompt asks for was found: "name and quantity of each ingredient" wants fields.
  // Else the rest of a one-line record beside the fields found ("<strong>4 stk</strong> egg" asked for
  // as "every ingredient with its amount": the ingredient is the line's own text).
  const others = selection.named.filter((n) => requests.some((r) => fieldName(r.word) === n.name && !naming(r)));
  if (others.length > 0) {
    const rest = $ && recordRemainder($, candidate, others);
    if (!rest) return selection;
    const field: Named = {
      name: fieldName(englishRecordNouns(word)[0] ?? singular(word)),
      concept: undefined,
      field: rest,
    };
    return {
      named: [field, ...selection.named.filter((n) => n.name !== field.name)],
      missing: selection.missing.filter((r) => r !== asking),
      unanswered: selection.unanswered.filter((r) => r !== asking),
    };
  }
  const samples = candidate.fields.filter((f) => f.kind === 'text').flatMap((f) => f.samples.slice(0, 1));
  // One element holding all of every record's text is read rather than the record, whose text would
  // also take what the page hides from view (the markup inside a <noscript>).
  const whole = candidate.fields.find(
    (f) => f.kind === 'text' && f.coverage === 1 && f.averageLength >= 0.8 * recordLength(candidate),
  );
  const field: Named = {
    // In English when the word is a known record noun ("Ingrediënten" heading the list: "ingredient"),
    // as concepts are named: the singular of a word in another language is not known.
    name: fieldName(englishRecordNouns(word)[0] ?? singular(word)),
    concept: undefined,
    field: whole ?? {
      key: '(record)',
      kind: 'text',
      transform: 'trim',
      coverage: 1,
      samples,
      hints: [],
      ownHints: [],
      tag: '',
      depth: 0,
      averageLength: 0,
      order: -1,
      present: [],
    },
  };
  // The fields a prompt naming nothing else gets stay (the author of each testimonial may be wanted too),
  // except a lone text that is the record's text again.
  const texts = selection.named.filter((n) => n.field.kind === 'text');
  const rest =
    texts.length === 1 && texts[0].field.averageLength >= 0.8 * recordLength(candidate) ? [] : selection.named;
  return {
    named: [field, ...rest.filter((n) => n.name !== field.name)],
    missing: selection.missing.filter((r) => r !== asking),
    unanswered: selection.unanswered.filter((r) => r !== asking),
  };
}

/**
 * A word naming a kind of record listed among the fields ("the quote, its author and tags") asks for the
 * records' main text when nothing names it: the longest text the records all have that holds no field
 * already chosen (the quote's own element, not the box around the quote and its author).
 */
export function withMainText(
  candidate: Candidate,
  selection: { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] },
  prompt: string,
): { named: Named[]; missing: PromptRequest[]; unanswered: PromptRequest[] } {
  const asking = selection.unanswered.find(
    (r) => englishRecordNouns(r.word).length > 0 && !namesTheRecords(prompt, r.word),
  );
  if (!asking || selection.named.length === 0) return selection;
  const chosen = new Set(selection.named.map((n) => n.field));
  const chosenValues = selection.named.flatMap((n) => (n.field.kind === 'text' ? n.field.samples.slice(0, 3) : []));
  const main = candidate.fields
    .filter(
      (f) =>
        f.kind === 'text' &&
        !chosen.has(f) &&
        f.coverage >= 0.8 &&
        !f.samples.some((v) => chosenValues.some((c) => c !== '' && v.includes(c))),
    )
    .sort((a, b) => b.averageLength - a.averageLength)[0];
  if (!main || main.averageLength < MAIN_TEXT_LENGTH) return selection;
  return {
    named: [{ name: fieldName(asking.written ?? asking.word), concept: undefined, field: main }, ...selection.named],
    missing: selection.missing,
    unanswered: selection.unanswered.filter((r) => r !== asking),
  };
}

/** The shortest main text on average: a record's text is a sentence, not a word. */
const MAIN_TEXT_LENGTH = 20;

/** Share of the records whose line must have a rest of its own for it to be a field. */
const REST_COVERAGE = 0.8;

/**
 * The own text of the records' line (the record, or the one element holding the whole line) beside the
 * fields found in it: "egg" of `<li><strong>4 stk</strong> egg</li>` when the amount is a field. Only for
 * records of one short line holding every found field, and only when most lines have such a rest.
 */
function recordRemainder($: CheerioAPI, candidate: Candidate, others: Named[]): CandidateField | undefined {
  if (recordLength(candidate) > ONE_LINE || others.some((n) => !n.field.selector || n.field.kind !== 'text'))
    return undefined;
  const records = $(candidate.selector).toArray().slice(0, 50);
  if (records.length === 0) return undefined;
  const lines = [
    undefined,
    ...candidate.fields
      .filter((f) => f.kind === 'text' && f.selector && f.coverage >= REST_COVERAGE)
      .map((f) => f.selector),
  ];
  for (const line of lines) {
    if (others.some((n) => n.field.selector === line)) continue;
    const rests = records.map((r) => {
      const el = line ? ($(r).find(line).first()[0] as Element | undefined) : (r as Element);
      if (!el || others.some((n) => $(el).find(n.field.selector ?? '').length === 0)) return '';
      return /\p{L}/u.test(ownText(el)) ? ownText(el) : '';
    });
    if (rests.filter(Boolean).length < REST_COVERAGE * records.length) continue;
    return {
      key: `${line ?? ''}|ownText`,
      kind: 'text',
      ...(line ? { selector: line } : {}),
      attribute: 'ownText',
      transform: 'trim',
      coverage: rests.filter(Boolean).length / records.length,
      samples: rests.slice(0, 5),
      hints: [],
      ownHints: [],
      tag: '',
      depth: line ? 1 : 0,
      averageLength: rests.reduce((n, t) => n + t.length, 0) / records.length,
      order: -1,
      present: rests.flatMap((t, i) => (t ? [i] : [])),
    };
  }
  return undefined;
}
