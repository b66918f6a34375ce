// Fields a prompt names that the draft does not hold: never dropped silently. Each is reported with the
// reason and the values the builder considered closest, so the user can point at the right one.
import type { Candidate, CandidateField } from './candidate.js';
import { conceptOfWord, fieldName, RECORD_MARKERS, selectorClassWords, singular, textTokens } from './naming.js';
import { writtenName, type PromptRequest } from './prompt-requests.js';
import { englishRecordNouns } from './record-nouns.js';
import { isCjk, normalizeWord } from './word-tokens.js';

const MAX_CANDIDATES = 3;
/** Japanese and Chinese possessive particles ("材料の名前", "留言的作者"). */
const POSSESSIVES = new Set(['の', '的', '之']);

/** Words after which a prompt names the records themselves ("each job", "every dryer"), not a field. */
const LATIN_MARKERS = [...RECORD_MARKERS].filter((m) => !isCjk(m)).join('|');
const RECORD_MARKER = new RegExp(
  `(?:^|[^\\p{L}])(?:${LATIN_MARKERS})\\s+(?:(?:of|der|des|de|di|van)\\s+)?(?:(?:the|la|le|les|el|los|las|il|gli|o|os|a|as|de|het)\\s+)?(?:[\\p{L}-]+\\s+)?$`,
  'u',
);

/** Requests naming no concept that are fields the user asked for, not the records' own noun. */
export function unansweredFields(prompt: string, candidate: Candidate, unanswered: PromptRequest[]): PromptRequest[] {
  const lower = prompt.toLowerCase();
  const recordWords = selectorClassWords(candidate.selector);
  return unanswered.filter((r) => {
    if (recordWords.has(r.word)) return false;
    return !namesTheRecords(lower, r.word);
  });
}

/** Records named as the prompt's subject: "the reviews: ...", "reviews with the rating", "posts -". */
const SUBJECT = /^\s*(?:(?:the|all)\s+)?$/;
const SUBJECT_AFTER = /^(?:e?s)?\s*(?::|with\b|-|–)/;

/** Every occurrence of the word (singular or plural) names the records ("each job", "the posts: ..."). */
export function namesTheRecords(prompt: string, word: string): boolean {
  // Chinese and Japanese: the word right after a record marker ("每条留言", "各商品").
  if (isCjk(word)) {
    const ts = textTokens(prompt);
    const at = ts.flatMap((t, i) => (t === word ? [i] : []));
    // Or the word owning the fields asked for: "材料の名前と分量" (the ingredients' name and amount).
    const ownsFields = (i: number) => POSSESSIVES.has(ts[i + 1] ?? '') && conceptOfWord(ts[i + 2] ?? '') !== undefined;
    return at.length > 0 && at.every((i) => RECORD_MARKERS.has(ts[i - 1] ?? '') || ownsFields(i));
  }
  const lower = normalizeWord(prompt);
  // A noun and its complement ("risultato_della_ricerca") as the prompt writes them.
  const spoken = spokenWord(word);
  // "reviews" (the records) and "review title" (a field) are told apart: a plural word is matched as written.
  const stem = spoken.endsWith('s') && !spoken.endsWith('ss') ? spoken : spoken.replace(/s$/, '');
  const at = [...lower.matchAll(new RegExp(`(?<![\\p{L}])${stem}(?:e?s)?(?![\\p{L}])`, 'gu'))].map((m) => m.index);
  return (
    at.length > 0 &&
    at.every(
      (i) =>
        RECORD_MARKER.test(lower.slice(0, i)) ||
        (SUBJECT.test(lower.slice(0, i)) && SUBJECT_AFTER.test(lower.slice(i + stem.length))),
    )
  );
}

/**
 * "... of the recipe", "... van het recept", "... de la receta", "... de l'article", "... der Seite": the
 * thing the fields belong to.
 */
export const OWNER_BEFORE =
  "(?:of|from|on|in|about|van|voor|de|du|des|del|della|dello|di|da|do|der|des|dieses|dieser)\\s+(?:(?:the|this|that|het|de|la|le|l|el|il|lo|o|a|der|die|das|dem|den|dieser|dieses|deze|dit|esta|este|questa|questo|cette|ce)(?:\\s+|'))?";

/**
 * The word names the one thing the prompt's fields belong to, not a field: the last word after "of the"
 * ("name, total time and servings of the recipe") or an owner before "'s" ("the player's name"). Only
 * in the singular: "of the products" names records.
 */
export function namesTheSubject(prompt: string, word: string): boolean {
  if (isCjk(word) || word.endsWith('s')) return false;
  const lower = normalizeWord(prompt).replace(/[’']/g, "'");
  const w = word.replace(/_/g, ' ');
  return (
    new RegExp(`(?:^|[^\\p{L}])${OWNER_BEFORE}${w}\\s*[.?!]?\\s*$`, 'u').test(lower) ||
    // A word saying what kind of thing it is, before its noun: "... of this podcast episode".
    new RegExp(`(?:^|[^\\p{L}])${OWNER_BEFORE}${w}\\s+\\p{L}+\\s*[.?!]?\\s*$`, 'u').test(lower) ||
    new RegExp(`(?:^|[^\\p{L}])(?:the|this)\\s+${w}'s\\s`, 'u').test(lower)
  );
}

/** A field's word as the prompt says it: "away team", not the joined "away_team". */
export function spokenWord(word: string): string {
  return word.replace(/_/g, ' ');
}

function describe(field: CandidateField): string {
  const sample = field.samples.find((s) => s.trim() !== '') ?? '';
  const shown = sample.length > 40 ? `${sample.slice(0, 37)}...` : sample;
  return `'${field.selector ?? field.xpath ?? '(the record itself)'}'${field.attribute ? ` @${field.attribute}` : ''} ("${shown}")`;
}

/**
 * One note per field asked for and not found: why, and the closest candidates (values of the records
 * that no draft field takes, the most common first).
 */
export function missingFieldNotes(
  requests: PromptRequest[],
  candidate: Candidate,
  used: Array<{ selector?: string; xpath?: string; attribute?: string }>,
  where: string,
): string[] {
  const taken = new Set(used.map((f) => `${f.selector ?? f.xpath ?? ''}|${f.attribute ?? ''}`));
  const free = candidate.fields
    .filter(
      (f) =>
        !taken.has(`${f.selector ?? f.xpath ?? ''}|${f.attribute ?? ''}`) &&
        f.kind !== 'image' &&
        f.samples.some((s) => s.trim() !== ''),
    )
    .sort((a, b) => b.coverage - a.coverage || a.order - b.order)
    .slice(0, MAX_CANDIDATES);
  const closest = free.length > 0 ? ` Closest candidates: ${free.map(describe).join(', ')}.` : '';
  return requests.map((r) => {
    const word = spokenWord(r.word);
    return `Field "${word}" not found ${where}: no value is labelled, classed or shaped like "${word}".${closest}`;
  });
}

/**
 * The last check that no field asked for is dropped silently: a note for each request that no field of
 * the draft answers (by its word, as written, or as the records' noun in English) and no note names. A
 * word that names the records themselves by their class (`li.vaga` for "título da vaga") asks for none.
 */
export function silentlyDropped(
  requests: PromptRequest[],
  fieldNames: string[],
  notes: string[],
  recordSelector = '',
): string[] {
  const names = new Set(fieldNames);
  const recordWords = selectorClassWords(recordSelector);
  return requests
    .filter((r) => {
      if (recordWords.has(r.word) && englishRecordNouns(r.word).length > 0) return false;
      const own = [fieldName(r.word), writtenName(r), ...englishRecordNouns(r.word).map((e) => fieldName(singular(e)))];
      if (own.some((n) => names.has(n))) return false;
      return !notes.some((n) => n.includes(`"${spokenWord(r.word)}"`) || n.includes(`"${r.word}"`));
    })
    .map((r) => {
      const word = spokenWord(r.written ?? r.word);
      return `Field "${word}" not found on the page: no value the draft reads is labelled, classed or shaped like "${word}".`;
    });
}
