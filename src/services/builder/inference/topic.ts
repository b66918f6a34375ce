// What a group of repeated records is about, read from its surroundings, and how well that fits the
// prompt: the classes, ids and naming attributes of the records and their containers ("ingredients",
// "review-list", itemprop="recipeIngredient") and the heading just before them ("Zutaten", "材料").
// A prompt naming the records ("alla ingredienser", "each executive") prefers the group whose
// surroundings name them too; a group inside a box of other content ("related recipes", "you may also
// like", a sidebar) is set back whatever it holds.
import type { CheerioAPI } from 'cheerio';
import { normalizeText, subtreeText } from './dom-text.js';
import { namesTheRecords } from './missing.js';
import { conceptOfWord, RECORD_MARKERS, textTokens } from './naming.js';
import { promptRequests } from './prompt-requests.js';
import { englishRecordNouns } from './record-nouns.js';
import { elementChildren, isElement, type Element } from './selectors.js';
import { isCjk } from './word-tokens.js';

/** How many containers above the records' parent are read for their names. */
const ANCESTORS_READ = 5;
/** How far a heading may precede the records (siblings before each container). */
const SIBLINGS_READ = 3;
const HEADING_MAX_LENGTH = 60;
/** The records, their parent and grandparent: names this close are the records' own. */
const NEAR_LEVELS = 2;

// Words of a prompt that say nothing about which records are meant (instructions, articles, quantifiers)
// in the languages of the prompts met so far; words of three letters or fewer are ignored anyway.
const PROMPT_NOISE = new Set(
  (
    'each every with from this that these those their them page list item items record records entry entries ' +
    'want need please also include including give extract scrape take collect what which where when into only ' +
    'jede jeder jedes jeden alle allen eine einer einem einen dieser diese dieses rezept ' +
    'chaque tous toutes avec pour dans cette ces ' +
    'cada todos todas todo para como este esta estos estas desde ' +
    'ogni tutti tutte tutto della delle degli dello questa questo ' +
    'elke alle voor deze naam ' +
    'alla alle samt från till ' +
    'name title link price date time author rating image description amount quantity number total size ' +
    'この その あの これ それ 全て すべて 这个 這個 所有 全部'
  ).split(' '),
);

// Containers of content beside the main one: related or recommended items, "more from", sidebars, widgets.
const ASIDE_TOKENS = new Set([
  'related',
  'recommended',
  'recommendation',
  'recommendations',
  'similar',
  'suggested',
  'suggestions',
  'sidebar',
  'widget',
  'upsell',
  'crosssell',
  'popular',
  'trending',
  'mostread',
  'outbrain',
  'taboola',
]);
// Strips of headlines running beside the main list ("breaking-news", "news-ticker", a marquee): named with
// the records' noun, they are a teaser of the records, not the list the prompt means.
const TICKER_TOKENS = new Set(['ticker', 'newsticker', 'breaking', 'marquee', 'scroller', 'crawl', 'newsflash']);
// Headings of such boxes in the prompts' languages: "related", "you may also like", "most read"...
const ASIDE_HEADING = new RegExp(
  [
    // English
    'related|recommended|similar|you (?:may|might) also|more (?:from|like|recipes|stories|articles|news)|popular|trending|also like|most (?:read|viewed|popular)|around the web',
    // German
    'ähnliche|empfohlen|weitere|auch interessant|könnte sie auch|mehr zum thema|meistgelesen',
    // French
    'à lire aussi|a lire aussi|voir aussi|lire aussi|sur le même sujet|vous aimerez|dans la même rubrique|les plus lus',
    // Spanish, Portuguese, Italian
    'relacionad|similares|te puede interesar|también te puede|lo más leído|más leíd|veja também|leia também|mais lidas|você também|correlat|simili|potrebbe interessarti|leggi anche|più lett',
    // Dutch, Scandinavian
    'aanbevolen|gerelateerd|lees ook|ook interessant|meest gelezen|liknande|relaterte|lignende',
  ]
    .join('|')
    .split('|')
    .map((w) => `(?<!\\p{L})${w}`)
    .join('|') +
    // Japanese and Chinese (no word boundaries)
    '|関連|おすすめ|オススメ|人気|ランキング|相关|相關|推荐|推薦|热门|熱門',
  'iu',
);

/** Lower case, accents removed, split into words of letters and digits (camelCase and -_ split too). */
export function plainWords(text: string): string[] {
  return (
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The prompt's words that may name the records or their topic: Latin words of four letters or more that
 * are no instruction, and CJK words of two characters or more (split as naming.ts splits them) that name
 * no field concept ("材料", not "名前").
 */
export function topicWords(prompt: string): string[] {
  const latin = plainWords(prompt.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu, ' ')).filter(
    (w) => w.length >= 4 && !PROMPT_NOISE.has(w) && !/^\d+$/.test(w),
  );
  const cjk = textTokens(prompt).filter(
    (t) =>
      isCjk(t) && t.length >= 2 && !RECORD_MARKERS.has(t) && !PROMPT_NOISE.has(t) && conceptOfWord(t) === undefined,
  );
  return [...new Set([...latin, ...cjk])];
}

/** The prompt's own nouns for its records ("elk ingrediënt", "材料の名前"), with their English nouns. */
export function promptRecordNouns(prompt: string): string[] {
  const marked = topicWords(prompt).filter((w) => namesTheRecords(prompt, w));
  const only = onlyRecordNoun(prompt);
  return withEnglishNouns(marked.length > 0 || only === undefined ? marked : [only]);
}

/**
 * The noun of a prompt that asks for nothing but a kind of record, in a question or a request as much as
 * in a list ("Welche Zutaten brauche ich?", "les ingrédients de la recette", "材料を全部教えてください"):
 * after the words of the question and the thing they belong to are set aside, one word is left, and it is
 * a noun for records. Such a prompt asks for the records themselves, each one's text.
 */
export function onlyRecordNoun(prompt: string): string | undefined {
  const requests = promptRequests(prompt);
  if (requests.length !== 1 || requests[0].concept !== undefined) return undefined;
  const [only] = requests;
  return englishRecordNouns(only.written ?? only.word).length > 0 || englishRecordNouns(only.word).length > 0
    ? only.word
    : undefined;
}

/** Topic words with the English record nouns they stand for ("Zutaten", "材料" -> also "ingredient"). */
export function withEnglishNouns(topic: string[]): string[] {
  return [...new Set([...topic, ...topic.flatMap(englishRecordNouns)])];
}

/** Two words of one stem across inflections and languages: "ingredient" ~ "ingredienser" ~ "ingredienti". */
export function sameStem(a: string, b: string): boolean {
  const shorter = Math.min(a.length, b.length);
  if (shorter < 4) return false;
  let common = 0;
  while (common < shorter && a[common] === b[common]) common++;
  return common >= 5 ? common >= shorter - 3 : common === shorter && Math.max(a.length, b.length) - shorter <= 2;
}

export interface Surroundings {
  /** Words of the classes, ids and naming attributes of the records. */
  own: string[];
  /** The same of their parent and grandparent. */
  near: string[];
  /** The same of the containers above (up to a few levels). */
  far: string[];
  /** The nearest heading before the records (or their containers), if any. */
  heading: string | null;
  /**
   * The headings of the sections that hold that one, nearest first, each of a higher rank than the one
   * before (an h2 "Ingredients" above the h3 "For the sauce" of a group of ingredients); never an h1.
   */
  outer: string[];
}

function namesOf(el: Element): string {
  const a = el.attribs ?? {};
  return [a.class, a.id, a.itemprop, a['aria-label'], a['data-testid'], a.role].filter(Boolean).join(' ');
}

/** A label standing alone as a heading is short: a word or two and a colon. */
const LABEL_MAX_LENGTH = 40;

/** A heading's text and rank: 1 for an h1 ... 6 for an h6, a caption or a legend, 7 for a label. */
interface Heading {
  text: string;
  rank: number;
}
const LABEL_RANK = 7;
/** What a header block may hold besides its heading (a unit, a count, a button's word), in characters. */
const HEADER_EXTRA = 40;
/** What a header block's controls never hold. */
const HEADER_CONTENT = 'a, img, picture, ul, ol, dl, table';

function isHeading($: CheerioAPI, el: Element): Heading | null {
  // A heading, or a wrapper whose only element is one (div > span > h2), a few levels down.
  let node: Element | undefined = el;
  for (let depth = 0; node && depth < 4; depth++) {
    const level = /^h([1-6])$/.exec(node.name);
    if (level || node.name === 'caption' || node.name === 'legend') {
      const text = normalizeText($(node).text());
      return text !== '' && text.length <= HEADING_MAX_LENGTH ? { text, rank: level ? Number(level[1]) : 6 } : null;
    }
    // A paragraph that is one label heads what follows too: bold ("<p><strong>Ingredients</strong></p>") or
    // ending in a colon ("<p>材料：</p>", "<p>Zutaten:</p>").
    const label = normalizeText($(node).text());
    if (
      label !== '' &&
      label.length <= LABEL_MAX_LENGTH &&
      label === normalizeText($(el).text()) &&
      ((depth > 0 && (node.name === 'strong' || node.name === 'b')) ||
        (node.name === 'p' && /[:：]$/.test(label)) ||
        tabLabel(node))
    )
      return { text: label, rank: LABEL_RANK };
    const children = elementChildren(node);
    if (children.length > 1 && depth < 3) {
      // A header block: a heading first, then a few words of controls ("Ingredients" beside a servings
      // picker). A block with more text, or with links, images or lists, is content of its own (a
      // section with its heading and list, a carousel of teasers under its title).
      const opening = isHeading($, children[0]);
      if (
        opening &&
        opening.rank < LABEL_RANK &&
        normalizeText($(node).text()).length <= opening.text.length + HEADER_EXTRA &&
        children.slice(1).every((c) => !$(c).is(HEADER_CONTENT) && $(c).find(HEADER_CONTENT).length === 0)
      )
        return opening;
    }
    node = children.length === 1 ? children[0] : undefined;
  }
  // A header box whose one heading is all its text, beside empty controls ("<ul><li><h1>Autres
  // sites</h1></li><li class="prev"></li></ul>", a heading beside its carousel's arrows). Not a banner
  // with a logo or links beside its heading: that is a record's or an advert's head, not the list's.
  const headings = $(el).find('h1, h2, h3, h4, h5, h6');
  const text = subtreeText(el);
  if (
    headings.length === 1 &&
    text !== '' &&
    text.length <= HEADING_MAX_LENGTH &&
    text === normalizeText(headings.text()) &&
    $(el).find('img, svg, picture').length === 0 &&
    $(el).find('a[href]').not(headings.find('a[href]')).length === 0
  )
    return { text, rank: Number(headings[0].name.slice(1)) };
  return null;
}

/**
 * A tab's label heads the panel after it: a <label> of the tab's radio button ("<label
 * for="ingredients">Zutaten</label><div class="tab-content"><table>"), or an element whose role is a tab.
 */
function tabLabel(el: Element): boolean {
  return (el.name === 'label' && el.attribs?.for !== undefined) || el.attribs?.role === 'tab';
}

/** The text of the tab an ARIA tab panel names as its label (role="tabpanel" aria-labelledby="tab-2"). */
function panelLabel($: CheerioAPI, el: Element): string | null {
  const id = el.attribs?.['aria-labelledby'];
  if (el.attribs?.role !== 'tabpanel' || !id || !/^[\w-]+$/.test(id)) return null;
  const text = normalizeText($(`[id="${id}"]`).first().text());
  return text !== '' && text.length <= LABEL_MAX_LENGTH ? text : null;
}

function headingOpensList(first: Element): boolean {
  const siblings = isElement(first.parent) ? elementChildren(first.parent) : [];
  const headings = siblings.filter((e) => /^h[1-6]$/.test(e.name));
  return headings.length === 1 && siblings.indexOf(headings[0]) < siblings.indexOf(first);
}

/** The names and the heading around a group of records. */
export function surroundingsOf($: CheerioAPI, members: Element[]): Surroundings {
  const first = members[0];
  const own = plainWords(namesOf(first));
  const near: string[] = [];
  const far: string[] = [];
  const headings: Heading[] = [];
  let node: Element | null = first;
  for (let level = 0; node && level <= ANCESTORS_READ + 1; level++) {
    const parent: Element | null = isElement(node.parent) ? node.parent : null;
    if (level > 0) (level <= NEAR_LEVELS ? near : far).push(namesOf(node));
    // Siblings before this container, nearest first. The records' own siblings only when one heading
    // opens them all (<section><h2>Related</h2><div>...</div>...): a heading among the records is a
    // record's part (h4 + p letters). Past the nearest heading, those of the sections holding it: each
    // of a higher rank than the last one found. A tab's label heads its panel.
    if (headings.length === 0 && level > 0) {
      const panel = panelLabel($, node);
      if (panel) headings.push({ text: panel, rank: LABEL_RANK });
    }
    if (level > 0 || headingOpensList(first)) {
      let sibling = node.prev;
      for (let n = 0; sibling && n < SIBLINGS_READ; sibling = sibling.prev) {
        if (!isElement(sibling)) continue;
        n++;
        const found = isHeading($, sibling);
        if (!found) continue;
        // The page's h1 titles all of it (the records and their parts alike): it names no section.
        if (headings.length === 0 || (found.rank < headings[headings.length - 1].rank && found.rank > 1))
          headings.push(found);
        break;
      }
    }
    if (!parent || parent.name === 'body') break;
    node = parent;
  }
  return {
    own,
    near: plainWords(near.join(' ')),
    far: plainWords(far.join(' ')),
    heading: headings[0]?.text ?? null,
    outer: headings.slice(1).map((h) => h.text),
  };
}

export interface TopicFit {
  /** Multiplies the group's score. */
  factor: number;
  /** The page's own word for the records when the prompt names them ("ingredient" of li.ingredient). */
  recordWord?: string;
  /** Why, in words for the session's events; empty when nothing was found either way. */
  reason: string;
}

const NAMED_FACTOR = 6;
const NAMED_FAR_FACTOR = 2;
const ASIDE_FACTOR = 0.35;

/** How well a group's surroundings fit the prompt's topic words. */
export function topicFit(
  surroundings: Surroundings,
  topic: string[],
  promptText: string,
  recordNouns: string[] = [],
): TopicFit {
  // With the English nouns a heading's words stand for: "Zutaten" heads the ingredients a prompt asks for
  // in any language ("材料").
  const wordsOf = (heading: string | null) =>
    heading ? withEnglishNouns(textTokens(heading).filter((t) => /[\p{L}\p{N}]/u.test(t))) : [];
  const headingWords = wordsOf(surroundings.heading);
  const outerWords = surroundings.outer.flatMap(wordsOf);
  const close = [...surroundings.own, ...surroundings.near];
  // A prompt naming its records ("alle ingrediënten van het recept") means them: its other topic words
  // (the recipe the ingredients belong to) only lift as a container further up would.
  const lifting = recordNouns.length > 0 ? topic.filter((w) => recordNouns.includes(w)) : topic;
  const match = (w: string, t: string) => (isCjk(w) ? t.includes(w) : sameStem(w, t));
  let recordWord: string | undefined;
  const named =
    lifting.find((w) => (recordWord = close.find((t) => match(w, t))) !== undefined) ??
    lifting.find((w) => (recordWord = headingWords.find((t) => match(w, t))) !== undefined) ??
    // The section they are in names them ("Ingredients" above the groups "Dough" and "Filling").
    lifting.find((w) => (recordWord = outerWords.find((t) => match(w, t))) !== undefined) ??
    // Scripts without spaces (Japanese, Chinese): a short heading the prompt contains.
    (surroundings.heading &&
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(surroundings.heading) &&
    surroundings.heading.length <= 8 &&
    promptText.includes(surroundings.heading.trim())
      ? surroundings.heading.trim()
      : undefined);
  // "Related" is no aside when the prompt asks for it ("the related products").
  const namedFar = named
    ? undefined
    : topic.find(
        (w) =>
          surroundings.far.some((t) => sameStem(w, t)) ||
          (!lifting.includes(w) && [...close, ...headingWords].some((t) => match(w, t))),
      );
  // The containers' names only: a record's own modifier ("organic_with-recommendations_yes") is no box.
  // Only the records' parent and grandparent: a page layout "with-sidebar" far above holds the main content too.
  const asideToken = surroundings.near.find((t) => ASIDE_TOKENS.has(t) && !topic.some((w) => sameStem(w, t)));
  const asideHeading =
    surroundings.heading && ASIDE_HEADING.test(surroundings.heading) && !ASIDE_HEADING.test(promptText)
      ? surroundings.heading
      : null;
  const ticker = [...surroundings.own, ...surroundings.near].find(
    (t) => TICKER_TOKENS.has(t) && !topic.some((w) => sameStem(w, t)),
  );
  let factor = 1;
  const reasons: string[] = [];
  if (named && ticker) {
    reasons.push(`named like the prompt's "${named}", but a strip of headlines (a "${ticker}" box)`);
  } else if (named) {
    factor *= NAMED_FACTOR;
    reasons.push(`named like the prompt's "${named}"`);
  } else if (namedFar) {
    factor *= NAMED_FAR_FACTOR;
    reasons.push(`inside a container named like the prompt's "${namedFar}"`);
  }
  if (asideToken || asideHeading) {
    factor *= ASIDE_FACTOR;
    reasons.push(`beside the main content (${asideHeading ? `under "${asideHeading}"` : `in a "${asideToken}" box`})`);
  }
  return { factor, reason: reasons.join(', '), ...(named && !ticker && recordWord ? { recordWord } : {}) };
}
