// Values the page labels: "<dt>Autor</dt><dd>Panelinha</dd>", "<strong>Position</strong>: OLB",
// "<b>きょうの記念日</b><br><a>元旦</a>". A label names the word the prompt asks for exactly, or loosely (a
// short label opening with the word, or holding it in Chinese and Japanese); the value is the element
// after it, or the text after it inside the label's parent.
import type { CheerioAPI } from 'cheerio';
import { normalizeText, ownText } from './dom-text.js';
import { fieldWordVariants } from './field-words.js';
import { conceptOfWord } from './naming.js';
import { sameStem } from './topic.js';
import { cssString, elementChildren, isElement, type Element } from './selectors.js';
import { isCjk, normalizeWord } from './word-tokens.js';

/** What a label names: an element, or the text right after the label inside its parent ("Date 10.06.2013"). */
export interface Labelled {
  el: Element;
  /** The value is the parent's own text, after the label ("<li><strong>Date</strong> 10.06.2013</li>"). */
  ownText: boolean;
  /** A selector anchored on the label's text, for values the markup gives no hook of their own. */
  anchored?: string;
  /**
   * One of several labelled lines in one element ("<strong>Ort:</strong> Zürich<br><strong>Teilnehmende:
   * </strong> ..."): the XPath to the text right after this label, the value's own line.
   */
  line?: string;
  /** The value is the rest of the label's element after it (`el` is that element), this label first. */
  after?: string;
}

/** `p:has(> strong:contains("Position"))` or `strong:contains("College") + a`, when its first match is `target`. */
function anchoredSelector($: CheerioAPI, label: Element, target: Element, text: string): string | undefined {
  if (/["\\\n]/.test(text)) return undefined;
  const labelStep = `${label.name}:contains(${cssString(text)})`;
  // `+` when the value is the label's next element, `~` past the empty ones between (`<b>Label</b><br><a>`).
  const adjacent = label.next && nextElementOf(label) === target;
  const selector =
    target === label.parent
      ? `${target.name}:has(> ${labelStep})`
      : `${labelStep} ${adjacent ? '+' : '~'} ${target.name}`;
  try {
    return $(selector).first()[0] === target ? selector : undefined;
  } catch {
    return undefined;
  }
}

function nextElementOf(el: Element): Element | null {
  for (let n = el.next; n; n = n.next) if (isElement(n)) return n;
  return null;
}

/** Separators between a label and its value (": ", " - "), not a value. */
const SEPARATOR = /^[\s:\-–—|·]*$/;

/** Elements that hold labels ("<dt>Autor</dt>", "<b>Date</b>", "<th>College</th>"). */
const LABEL_ELEMENTS = 'body dt, body th, body strong, body b, body span, body label, body h4, body h5, body h6';
/** Generic boxes hold labels too ("<div class="label">Total Time:</div><div>40 mins</div>") when they are leaves. */
const LEAF_LABEL_ELEMENTS = 'body div, body p, body td';

/**
 * Does a label name the word: exactly ("Author", "Date:"), else loosely, a short label opening with it
 * ("Tempo de preparo" for "tempo", "Total time" is not "time") or, in Chinese and Japanese, a short label
 * holding it ("きょうの記念日" for "記念日").
 */
function labelTest(word: string): { exact: RegExp; loose: (text: string) => boolean } {
  const spaced = word.replace(/_/g, ' ');
  const exact = new RegExp(`^${spaced}s?\\s*:?$`, 'i');
  const opening = new RegExp(`^${spaced}s?(?:\\s+\\p{L}+){1,3}\\s*:?$`, 'iu');
  const loose = (text: string) =>
    isCjk(word)
      ? text.includes(word) && text.length <= word.length + 6
      : opening.test(normalizeWord(text)) ||
        namesTheAgent(word, normalizeWord(text)) ||
        opensWithInflection(word, normalizeWord(text));
  return { exact, loose };
}

/** Letters two inflections of one word may differ by ("raciones" and "Ración", "Portionen" and "Portion"). */
const INFLECTION_LETTERS = 3;

/**
 * A short label opening with another inflection of the word: the prompt writes a plural, the page a
 * singular, or the other way round ("raciones" labelled "Ración para:", "porzioni" labelled "Porzione").
 * A longer word is a compound, not an inflection ("Titelbild" is no "titel").
 */
function opensWithInflection(word: string, label: string): boolean {
  const first = label.replace(/\s*:$/, '').split(/\s+/);
  if (word.includes('_') || first.length > 3) return false;
  return Math.abs(first[0].length - word.length) <= INFLECTION_LETTERS && sameStem(word, first[0]);
}

/** Letters a verb and the agent noun made from it share at least ("produced" and "productor"). */
const AGENT_STEM = 6;

/**
 * A label saying who did something ("Produced by", "Geschrieben von", "Réalisé par") names the one who
 * did it, in the prompt's language too: "producer", "productor", "produttore" share the verb's stem.
 */
function namesTheAgent(word: string, label: string): boolean {
  const verb = label.match(/^(\p{L}+)\s+(?:by|von|par|por|da|door|af|av)\s*:?$/u)?.[1];
  if (!verb || word.includes('_') || word.length < AGENT_STEM) return false;
  return verb.length >= AGENT_STEM && verb.slice(0, AGENT_STEM) === word.slice(0, AGENT_STEM);
}

/**
 * Last, a label naming the word's distinctive part: "Preparazione" for "tempo di preparazione" (the
 * complement after "di", "de", "of"), or "Tempo totale" for "totale", a word naming no concept of its
 * own being a modifier, which Romance labels write last ("Total time" stays no "time").
 */
function partly(word: string, text: string): boolean {
  if (isCjk(word)) return false;
  const label = normalizeWord(text).replace(/\s*:$/, '');
  const complement = word.match(/_(?:di|de|del|della|do|da|of|van|von|du|des)_([\p{L}]+)$/u)?.[1];
  if (complement && new RegExp(`^${complement}s?$`, 'iu').test(label)) return true;
  return (
    !word.includes('_') &&
    conceptOfWord(word) === undefined &&
    new RegExp(`^\\p{L}+(?:\\s+\\p{L}+)?\\s+${word}$`, 'iu').test(label)
  );
}

/** The cell under a column header, when one row of cells is all the table holds under its headers. */
function cellBelow($: CheerioAPI, th: Element): Element | undefined {
  const row = th.parent;
  if (!isElement(row) || row.name !== 'tr') return undefined;
  const table = $(row).closest('table');
  const rows = table.find('tr').toArray();
  if (rows.length !== 2 || rows[0] !== row || table.find('table').length > 0) return undefined;
  const cells = elementChildren(rows[1]);
  const headers = elementChildren(row);
  if (cells.length !== headers.length || cells.some((c) => c.name !== 'td')) return undefined;
  const cell = cells[headers.indexOf(th)];
  return cell && normalizeText($(cell).text()) !== '' ? cell : undefined;
}

/** The cell after the one a label fills alone (its element, or the cell itself when it is a leaf). */
function cellAfter($: CheerioAPI, label: Element, text: string): Element | undefined {
  const cell = /^(?:td|th)$/.test(label.name) ? label : label.parent;
  if (!isElement(cell) || !/^(?:td|th)$/.test(cell.name) || normalizeText($(cell).text()) !== text) return undefined;
  const next = nextElementOf(cell);
  // A header's neighbour is another header, not its value.
  return next?.name === 'td' && normalizeText($(next).text()) !== '' ? next : undefined;
}

/** `td:has(> strong:contains("Herkunft")) + td`, when its first match is the value's cell. */
function anchoredCell($: CheerioAPI, label: Element, cell: Element, text: string): string | undefined {
  if (/["\\\n]/.test(text)) return undefined;
  const labelStep = `${label.name}:contains(${cssString(text)})`;
  const step = /^(?:td|th)$/.test(label.name) ? labelStep : `${(label.parent as Element).name}:has(> ${labelStep})`;
  const selector = `${step} + ${cell.name}`;
  try {
    return $(selector).first()[0] === cell ? selector : undefined;
  } catch {
    return undefined;
  }
}

/** The element after a label, past separators (": ") and empty elements (`<br>`, spacer images). */
function afterLabel($: CheerioAPI, el: Element): Element['next'] {
  let next = el.next;
  while (
    next &&
    ((next.type === 'text' && SEPARATOR.test((next as unknown as { data: string }).data)) ||
      (isElement(next) && normalizeText($(next).text()) === '' && /^(?:br|img|span|i|wbr)$/.test(next.name)))
  )
    next = next.next;
  return next;
}

/** The label's element's children of the label's tag each followed by text: labelled lines of one element. */
function labelsBeside(label: Element): Element[] {
  const parent = label.parent;
  if (!isElement(parent)) return [];
  return elementChildren(parent).filter(
    (c) =>
      c.name === label.name && c.next?.type === 'text' && (c.next as unknown as { data: string }).data.trim() !== '',
  );
}

/** The XPath to the text right after the label, when its first match is this label's; else undefined. */
function lineAfter($: CheerioAPI, label: Element, text: string): string | undefined {
  // XPath's normalize-space() collapses ASCII spaces only: a label written with others (U+00A0) would not match.
  if (/['"\\]/.test(text) || /[^\S \t\n\r]/.test($(label).text())) return undefined;
  const first = $<Element, string>(`body ${label.name}`)
    .toArray()
    .find((e) => normalizeText($(e).text()) === text);
  return first === label ? `//${label.name}[normalize-space(.)='${text}']/following-sibling::text()[1]` : undefined;
}

/** The label is its element's first content and the one label in it. */
function opensAlone($: CheerioAPI, label: Element): boolean {
  for (let p = label.prev; p; p = p.prev) if (normalizeText($(p).text()) !== '') return false;
  return !elementChildren(label.parent as Element).some((c) => c !== label && c.name === label.name);
}

/**
 * The value goes on after the element, joined by a comma (", Dammtorstraße 29-32": an address, a list),
 * not only an aside in brackets ("(College Stats)"), a separator or a line break.
 */
function goesOnAfter($: CheerioAPI, el: Element): boolean {
  const after = el.next;
  return after !== null && after.type === 'text' && /^\s*,\s*\S/.test($(after).text());
}

/** A form's controls, or an element holding them: what a label before them asks the reader to fill in. */
const FORM_CONTROLS = 'input, select, textarea, fieldset, :has(input, select, textarea)';

/** A colon with more text after it: the label's own value follows it. */
const INLINE_VALUE = /[:：]\s*\S/;

// The label elements of a page and their texts, read once per page (each request asks again).
const pageLabels = new WeakMap<object, { labels: Element[]; texts: string[] }>();

function labelsOf($: CheerioAPI): { labels: Element[]; texts: string[] } {
  const root = $.root()[0];
  let found = pageLabels.get(root);
  if (!found) {
    const leaves = $<Element, string>(LEAF_LABEL_ELEMENTS)
      .toArray()
      // React writes a label's text in pieces split by empty comments ("Ración para<!-- -->:").
      .filter(
        (el) =>
          (el.children ?? []).every((c) => c.type === 'text' || c.type === 'comment') && (el.children ?? []).length > 0,
      );
    const labels = [...$<Element, string>(LABEL_ELEMENTS).toArray(), ...leaves];
    const texts = labels.map((el) => normalizeText($(el).text()));
    found = { labels, texts };
    pageLabels.set(root, found);
  }
  return found;
}

/**
 * How well a label's text names the word, 1 (best) to 4, or undefined: 1 exactly ("Author", "Date:"); 2
 * loosely (see labelTest), the prompt's word first, then its meaning in other languages ("posición"
 * labelled "Position"); 3 by the word's distinctive part (see partly); 4 by one of `conceptWords`, the
 * words of the field's concept in every language: pages label in English or in their own language
 * whatever language the prompt is in ("Tags :" for "标签", "Classificação geral:" for "nota").
 */
export function labelNaming(word: string, conceptWords: readonly string[] = []): (text: string) => number | undefined {
  const tests = fieldWordVariants(word).map(labelTest);
  // The concept's words name a label exactly or open it ("Classificação geral:"); no looser reading, which
  // many words of many languages would stretch to unrelated labels.
  const others = conceptWords
    .map(normalizeWord)
    // Words of several parts ("kod ean", "ean-nummer") label as they are written.
    .filter((w) => w !== word && /^\p{L}[\p{L} -]*$/u.test(w))
    .map((w) => (isCjk(w) ? new RegExp(`^${w}\\s*[:：]?$`) : new RegExp(`^${w}s?(?:\\s+\\p{L}+){0,3}\\s*:?$`, 'iu')));
  return (text) => {
    if (tests.some((t) => t.exact.test(text))) return 1;
    if (text.length <= 40 && tests.some((t) => t.loose(text))) return 2;
    if (partly(word, text)) return 3;
    const label = normalizeWord(text);
    return others.some((t) => t.test(label)) ? 4 : undefined;
  };
}

/**
 * The value a label names. `conceptWords`, the words of the field's concept in every language, are tried
 * after the prompt's own word (see labelNaming).
 */
export function labelledValue(
  $: CheerioAPI,
  word: string,
  byItemprop: boolean,
  conceptWords: readonly string[] = [],
): Labelled | undefined {
  const { labels, texts } = labelsOf($);
  const names = labelNaming(word, conceptWords);
  const ranks = texts.map(names);
  // Exact labels first, then loose ones, then partial ones, then the concept's words.
  const ordered = [1, 2, 3, 4].flatMap((rank) => labels.filter((_, i) => ranks[i] === rank));
  for (const el of ordered) {
    const next = afterLabel($, el);
    // A header of a table's column ("<th>Thema</th><th>Antworten</th>") labels the cells below it, not
    // the header beside it.
    if (el.name === 'th' && isElement(next) && next.name === 'th') {
      // In a table of one row under its headers (a product's "品番 | 標準価格" over its values), the
      // header labels the cell below it.
      const below = cellBelow($, el);
      if (below) return { el: below, ownText: false };
      continue;
    }
    const text = normalizeText($(el).text());
    // A label written with its value after a colon ("Core: Paulownia/Maple") labels no element after it.
    if (INLINE_VALUE.test(text)) continue;
    // A form's control after its label ("Rate this recipe:" over radio buttons) is no value.
    if (isElement(next) && $(next).is(FORM_CONTROLS)) continue;
    if (isElement(next) && normalizeText($(next).text()) !== '') {
      // A label opening its paragraph, the value going on past the element after it ("<strong>Gastgeber
      // </strong>: <a>Xing AG</a>, Dammtorstraße 29-32"): the rest of the paragraph.
      const parent = el.parent;
      if (isElement(parent) && opensAlone($, el) && goesOnAfter($, next))
        return { el: parent, ownText: false, anchored: anchoredSelector($, el, parent, text), after: text };
      return { el: next, ownText: false, anchored: anchoredSelector($, el, next, text) };
    }
    // A label alone in its table cell ("<td><strong>Herkunft</strong></td><td>Sidamo</td>") labels the next cell.
    const cell = next ? undefined : cellAfter($, el, text);
    if (cell) return { el: cell, ownText: false, anchored: anchoredCell($, el, cell, text) };
    // The value shares its element with the label: the parent's own text holds it.
    if (next && next.type === 'text' && isElement(el.parent) && normalizeText(ownText(el.parent)) !== '')
      return {
        el: el.parent,
        ownText: true,
        anchored: anchoredSelector($, el, el.parent, text),
        ...(labelsBeside(el).length >= 2 ? { line: lineAfter($, el, text) } : {}),
      };
  }
  // No label, but an element the markup names with the word (itemprop="height"); concepts have their own.
  if (!byItemprop) return undefined;
  const prop = $(`body [itemprop=${cssString(word)}]`).first()[0];
  if (prop && normalizeText($(prop).text()) !== '') return { el: prop, ownText: false };
  return undefined;
}
