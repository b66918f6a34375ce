// Reads a page's repeated structure and ranks it: the groups of records (grouping.ts), the fields that
// line up across each group's records (alignment.ts) and a stable selector for the container
// (field-selectors.ts), scored against the concepts the prompt wants.
import type { CheerioAPI } from 'cheerio';
import { alignFields } from './alignment.js';
import { UNLIMITED, type SearchBudget } from './budget.js';
import { fieldWordVariants } from './field-words.js';
import type { Candidate } from './candidate.js';
import { containerSelector } from './field-selectors.js';
import { CHROME_FACTOR, findGroups, type Group } from './grouping.js';
import { fieldName, words, type Concept } from './naming.js';
import { elementChildren, isElement, pageClasses, type Element } from './selectors.js';
import { isSkipped, normalizeText } from './dom-text.js';
import { shapeFit } from './record-shapes.js';
import { priceInRecordText } from './shape-fields.js';
import type { PromptRequest } from './prompt-requests.js';
import { runFields, runTexts, siblingRunsOf, type SiblingRuns } from './sibling-run.js';
import {
  plainWords,
  promptRecordNouns,
  sameStem,
  surroundingsOf,
  topicFit,
  topicWords,
  withEnglishNouns,
} from './topic.js';

const MAX_GROUPS_ALIGNED = 12;
/** Records of one group whose values are aligned (see sampleOf). */
const MAX_ALIGNED_RECORDS = 200;
const MIN_NAMED_RECORDS = 3;
/** Candidates offered (to the draft, the session's events and the LLM), best first. */
const MAX_CANDIDATES = 6;
/** Records named like the prompt's noun for them, beside records the prompt does not name. */
const RECORD_NOUN_FACTOR = 3;
/** Values each of two or three members holds beyond which they are page sections (a column, a form), not records. */
const SECTION_VALUES = 50;
/** As many values, none of them in every member: sections of different contents. */
const MIXED_SECTION_VALUES = 12;

/** A price request, to ask whether records show one loose in their text. */
const LOOSE_PRICE: PromptRequest = { word: 'price', concept: 'price' };

/** Record-container candidates of a page, best first. */
export function findCandidates(
  $: CheerioAPI,
  conceptsWanted: Concept[] = [],
  wordsWanted: string[] = [],
  prompt = '',
  budget: SearchBudget = UNLIMITED,
): Candidate[] {
  // The prompt's topic ("ingredients", "executives") against each group's surroundings, before the
  // groups to align are chosen: a list the prompt names may be small beside a large box of teasers.
  const own = topicWords(prompt);
  // The prompt's own noun for the records ("elk ingrediënt", "each game's", "材料の名前"): records named
  // so are meant. Both with the English nouns they stand for: pages name their lists in English markup.
  const recordNouns = promptRecordNouns(prompt);
  const topic = withEnglishNouns(own);
  const found = withSiblingRuns($, findGroups($));
  const byName = found.map((g) => topicFit(surroundingsOf($, g.members), topic, prompt, recordNouns));
  // Where the page names the records the prompt names nowhere (no heading, no class), records that read
  // like them (ingredient lines) are taken as named; where it does, its names decide.
  const namedSomewhere = byName.some(
    (f, i) => f.recordWord !== undefined && found[i].members.length >= MIN_NAMED_RECORDS,
  );
  const groups = found
    .map((g, i) => {
      const fit = namedSomewhere ? byName[i] : (shapeFit(recordNouns, g.members) ?? byName[i]);
      // Two buttons named "ingredients" are controls, not the ingredients: the prompt's words lift lists only.
      if (fit.factor > 1 && g.members.length < MIN_NAMED_RECORDS) return { ...g, why: '' };
      // Records the prompt names are wanted even in an <aside> (a recipe's ingredients beside its steps).
      // Not in the site's navigation: a menu entry naming the records ("Executive Team") is a link to them.
      const lifted = fit.recordWord !== undefined && g.chrome && !g.navigation ? 1 / CHROME_FACTOR : 1;
      return { ...g, rough: g.rough * fit.factor * lifted, why: fit.reason, recordWord: fit.recordWord };
    })
    .sort((a, b) => b.rough - a.rough)
    .slice(0, MAX_GROUPS_ALIGNED);
  const candidates: Array<Candidate & { members: Element[] }> = [];
  for (const group of groups) {
    // Past the time budget, the groups aligned so far are the candidates (the roughest first).
    if (candidates.length > 0 && budget.spent()) break;
    const aligned = alignFields($, sampleOf(group.members));
    const fields = group.runs
      ? [...aligned, ...runFields($, group.runs, Math.max(0, ...aligned.map((f) => f.order)))]
      : aligned;
    if (fields.length === 0 || (group.runs && fields.length === aligned.length)) continue;
    const concepts = new Set(fields.map((f) => f.concept));
    // A price written loose in the record's own text ("<a>Jeans</a>£60.00") answers a price too, as
    // select-fields.ts reads it so.
    if (conceptsWanted.includes('price') && !concepts.has('price') && priceInRecordText(LOOSE_PRICE, fields))
      concepts.add('price');
    // Words the prompt uses that a table header or label of these records says ("Rang", "Wahre Tabelle").
    const labels = fields.flatMap((f) => (f.label ? [fieldName(f.label), ...words(f.label)] : []));
    // A word naming the records themselves ("ingredienser" for li.ingredient) is answered by the records.
    const recordWord = 'recordWord' in group ? group.recordWord : undefined;
    const namesRecords = (w: string) =>
      recordWord !== undefined && plainWords(w.replace(/_/g, ' ')).some((x) => sameWord(x, recordWord));
    // A class of the values saying the word ("div.quantity" for "quantity") answers it as a label does.
    const classWords = new Set(fields.flatMap((f) => f.ownHints.flatMap((h) => plainWords(h))));
    // Records the prompt names (by their class, heading or shape) answer the prompt's noun for them.
    const named = recordWord !== undefined ? 1 : 0;
    const matched =
      named +
      conceptsWanted.filter((c) => concepts.has(c)).length +
      wordsWanted.filter(
        (w) => namesRecords(w) || fieldWordVariants(w).some((v) => labels.includes(v) || classWords.has(v)),
      ).length;
    const wanted = named + conceptsWanted.length + wordsWanted.length;
    const richness = 0.5 + Math.min(fields.length, 6) / 4;
    // Records lacking what the prompt asks for (filter rows beside two products) are hardly the records.
    const answered = wanted > 0 ? matched / wanted : 0;
    let score = group.rough * richness * (1 + answered) * (wanted > 0 ? 0.1 + 0.9 * answered : 1);
    if (recordWord !== undefined && recordNouns.some((w) => sameWord(w, recordWord))) score *= RECORD_NOUN_FACTOR;
    // Two or three members holding dozens of values each are page sections, not records; so are two or
    // three holding a dozen values or more of which no one is in them all (a contact form, a map, a table).
    const shared = fields.some((f) => f.coverage === 1);
    if (
      group.members.length <= 3 &&
      (fields.length > SECTION_VALUES || (fields.length >= MIXED_SECTION_VALUES && !shared))
    )
      score *= 0.3;
    const why = reasonsOf(group, matched, wanted);
    candidates.push({
      selector: '',
      count: group.members.length,
      score,
      textShare: group.share,
      fields,
      members: group.members,
      ...(why ? { why } : {}),
      ...('recordWord' in group && group.recordWord ? { recordWord: group.recordWord } : {}),
    });
  }
  // The records are the innermost repeated unit that carries the text: a group whose records each hold
  // several records of another good group (categories holding items) gives way to it.
  for (const outer of candidates) {
    const outerSet = new Set(outer.members);
    for (const inner of candidates) {
      if (inner === outer || inner.count < outer.count * 2 || inner.textShare < outer.textShare * 0.6) continue;
      const contained = inner.members.filter((m) => insideOneOf(outerSet, m)).length;
      if (contained >= inner.count * 0.8) outer.score *= 0.4;
    }
  }
  // A selector is sought only for the best few: each try queries the whole page.
  const ranked: Candidate[] = [];
  for (const { members, ...candidate } of candidates.sort((a, b) => b.score - a.score)) {
    if (ranked.length > 0 && budget.spent()) break;
    const selector = containerSelector($, members, candidate.fields);
    if (selector) ranked.push({ ...candidate, selector });
    else {
      // Records whose own markup no selector tells from the page's other boxes (a "div.grid" of a layout
      // kit) but each the only child of a box of its own (article.result-list-entry): that box is the record.
      const outer = onlyChildOf(members);
      const fields = outer ? alignFields($, sampleOf(outer)) : [];
      const around = outer && fields.length > 0 ? containerSelector($, outer, fields) : null;
      if (around) ranked.push({ ...candidate, fields, selector: around });
    }
    if (ranked.length >= MAX_CANDIDATES) break;
  }
  return ranked;
}

/**
 * Why a candidate stands where it does, in words for the session's events: the prompt's words it answers,
 * its share of the page's text, what set it back (the site's navigation, a header, footer or sidebar)
 * and what the prompt's topic said of it.
 */
function reasonsOf(group: Group & { why?: string }, matched: number, wanted: number): string {
  const reasons = [
    ...(wanted > 0 ? [`answers ${matched} of the ${wanted} things asked`] : []),
    `${Math.round(group.share * 100)} % of the page's text`,
    ...(group.navigation ? ["in the site's navigation"] : group.chrome ? ['in a header, footer or sidebar'] : []),
    ...(group.why ? [group.why] : []),
  ];
  return reasons.join(', ');
}

/** A group of starters of sibling runs, read as the runs they start (see sibling-run.ts). */
type RunGroup = Group & { runs?: SiblingRuns };

/**
 * Each group whose members start runs of siblings is offered twice: as it is, and as the records the runs
 * are, scored on the runs' text (the starters' own text is a small share of the page's).
 */
function withSiblingRuns($: CheerioAPI, groups: Group[]): RunGroup[] {
  const out: RunGroup[] = [...groups];
  for (const group of groups) {
    const runs = siblingRunsOf(group.members);
    if (!runs || group.share <= 0) continue;
    const starterTexts = group.members.map((m) => normalizeText($(m).text()));
    const starterLength = starterTexts.reduce((n, t) => n + t.length, 0);
    const bodyLength = starterLength / group.share;
    const texts = runTexts($, runs);
    const share = texts.reduce((n, t) => n + t.length, 0) / bodyLength;
    let rough = (group.rough * (share + 0.02)) / (group.share + 0.02);
    // Short headings alone read as a menu; with their runs they are records of some length.
    if (starterLength / group.members.length < 25 && share * bodyLength >= 25 * group.members.length) rough /= 0.3;
    out.push({ ...group, share, rough, runs });
  }
  return out;
}

/**
 * Records aligned for a large group: the first ones (what the preview shows) and an even spread of the
 * rest. Coverage and selectors read on a few hundred records hold for thousands, and aligning every one
 * of them cost seconds on a page of thousands of rows.
 */
function sampleOf(members: Element[]): Element[] {
  if (members.length <= MAX_ALIGNED_RECORDS) return members;
  const head = members.slice(0, MAX_ALIGNED_RECORDS / 2);
  const step = (members.length - head.length) / (MAX_ALIGNED_RECORDS / 2);
  const spread = Array.from({ length: MAX_ALIGNED_RECORDS / 2 }, (_, i) => members[head.length + Math.floor(i * step)]);
  return [...head, ...spread];
}

/** The members' parents, when each member is the only element of a parent of its own. */
function onlyChildOf(members: Element[]): Element[] | null {
  const parents = members.map((m) => m.parent);
  if (new Set(parents).size !== members.length) return null;
  const only = parents.every(
    (p) =>
      isElement(p) &&
      pageClasses(p).length > 0 &&
      !['body', 'tr', 'td', 'tbody', 'table'].includes(p.name) &&
      elementChildren(p).filter((c) => !isSkipped(c)).length === 1,
  );
  return only ? (parents as Element[]) : null;
}

/** One word: the same CJK word ("材料", too short for a stem), or Latin words of one stem. */
function sameWord(a: string, b: string): boolean {
  return a === b || sameStem(a, b);
}

function insideOneOf(ancestors: Set<Element>, node: Element): boolean {
  for (let p = node.parent; p; p = p.parent) if (ancestors.has(p as Element)) return true;
  return false;
}

/** The fields of an already chosen container selector (used when refining a draft). */
export function candidateFor($: CheerioAPI, selector: string): Candidate | null {
  let members: Element[];
  try {
    members = $(selector).toArray() as Element[];
  } catch {
    return null;
  }
  if (members.length === 0) return null;
  const fields = alignFields($, members);
  return { selector, count: members.length, score: 0, textShare: 0, fields };
}
