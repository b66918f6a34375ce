// Whether a prompt asks for many records or for the fields of one thing: its words for "each" and "all",
// the one thing it names last ("... of the recipe"), English plurals. A page that is one record is read as
// one only when the prompt asks for no list (page-record.ts).
import { namesTheRecords, OWNER_BEFORE } from './missing.js';
import { RECORD_MARKERS } from './naming.js';
import { onlyRecordNoun, topicWords } from './topic.js';
import { isCjk, normalizeWord } from './word-tokens.js';

/**
 * Words after which the prompt asks for many records ("each", "every", German "jede", Dutch "elk",
 * Japanese "各"): the record markers of every language, less the prepositions that also mean "by" or
 * "for" ("par", "por", "pro"), and "list of". A Chinese or Japanese marker before a unit or a number is a
 * rate, not a list ("每份热量", calories per serving; "每100克").
 */
const LIST_MARKERS = [...RECORD_MARKERS].filter((m) => !['par', 'por', 'pro'].includes(m));
const CJK_RATE = '(?![份人日天月年次克斤\\d０-９])';
const LIST_CUE = new RegExp(
  `(?<![\\p{L}])(?:${LIST_MARKERS.filter((m) => !isCjk(m)).join('|')}|list of)(?![\\p{L}])|${LIST_MARKERS.filter(isCjk)
    .map((m) => `${m}${CJK_RATE}`)
    .join('|')}`,
  'iu',
);

/**
 * "All" in Japanese and Chinese, which write it after the noun as often as before ("材料の名前と分量を全部",
 * "列出全部商品"): one and many are written alike there, so the word is the cue that many are asked for.
 */
const CJK_ALL = /全部|全て|すべて|所有/;

/**
 * "... and number of ratings of the recipe", "... of this podcast episode", "... of the news article",
 * "... de l'article": every field belongs to one thing named in the singular (its last word; a word before
 * it may say what kind of thing it is).
 */
export function namesOneThing(prompt: string): boolean {
  return oneThingAfter(prompt, '');
}

/**
 * The one thing named owns the fields ("... of the news article", "... de l'article"), rather than being
 * the place they are in ("... of everything in the shop", where the records are many).
 */
export function namesOneOwner(prompt: string): boolean {
  return oneThingAfter(prompt, '(?!(?:in|on|from)\\s)');
}

function oneThingAfter(prompt: string, notBefore: string): boolean {
  if (LIST_CUE.test(prompt)) return false;
  const lower = normalizeWord(prompt).replace(/[’']/g, "'");
  const subject = new RegExp(
    `(?:^|[^\\p{L}])${notBefore}${OWNER_BEFORE}(?:\\p{L}+\\s+)?(\\p{L}+)\\s*[.?!]?\\s*$`,
    'u',
  ).exec(lower);
  return subject !== null && !/[^su]s$/.test(subject[1]);
}

/** Does the prompt ask for many records ("each result", "every post", "jeder Zeile")? */
export function asksForList(prompt: string): boolean {
  if (LIST_CUE.test(prompt) || CJK_ALL.test(prompt)) return true;
  // A prompt asking for nothing but a kind of record ("Welche Zutaten brauche ich?", "材料を全部", "the
  // ingredients of the recipe": the recipe owns the records, not fields).
  if (onlyRecordNoun(prompt) !== undefined) return true;
  if (namesOneThing(prompt)) return false;
  // A prompt naming its records ("alle Zutaten", "tous les ingrédients"). Not a CJK noun owning the
  // fields ("お話のタイトル", the story's title): Japanese and Chinese write one and many alike.
  if (topicWords(prompt).some((w) => !isCjk(w) && namesTheRecords(prompt, w))) return true;
  // An English plural noun ("the reviews: ...", "titles and links") unless it counts something ("number
  // of reviews"). Only in English: "quantas porções", "tempo de preparo" end in -s without being plurals.
  if (!ENGLISH.test(prompt)) return false;
  const ws = prompt.toLowerCase().match(/[a-z]+/g) ?? [];
  return ws.some(
    (w, i) =>
      w.length > 3 &&
      /[^su]s$/.test(w) &&
      !w.endsWith('ss') &&
      !NOT_PLURAL.has(w) &&
      !/^(?:number|count|total|amount|numbers|many)$/.test(
        ws[i - 2] === undefined ? '' : ws[i - 1] === 'of' ? ws[i - 2] : ws[i - 1],
      ),
  );
}
const ENGLISH = /\b(?:the|and|of|with|for|its|their|all|from|on)\b/i;
const NOT_PLURAL = new Set(['does', 'news', 'series', 'species', 'always', 'perhaps', 'whereas', 'besides']);
