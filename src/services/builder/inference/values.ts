// The values of one record (text, links, images, attributes), keyed by their structural path, with the
// labels the page gives them (table headers, definition terms, units) and the words its markup uses.
import type { CheerioAPI } from 'cheerio';
import { endsInByline } from './byline.js';
import { labelsFormer } from './former-price.js';
import { conceptOfWord } from './naming.js';
import { isProfileLink } from './profile-link.js';
import { isSkipped, normalizeText, ownText, subtreeText } from './dom-text.js';
import type { ValueKind } from './candidate.js';
import { elementChildren, isElement, NAMING_ATTRIBUTES, signature, stableClasses, type Element } from './selectors.js';
import { normalizeWord } from './word-tokens.js';

/** The class that says a rating among an element's classes ("star-rating Three", "stars-4"): RE2 and JavaScript alike. */
export const RATING_CLASS = '(?:^|\\s)(zero|one|two|three|four|five|half|\\w*\\d\\w*)(?:\\s|$)';

export interface ValueNode {
  key: string;
  el: Element;
  kind: ValueKind;
  value: string;
  attribute?: string;
  label?: string;
  /** The label is the unit after a number. */
  unit?: boolean;
  /**
   * The text is written as a label ("Maandag:"): a label when every record writes the same one, a value
   * (a key column's day names) when it varies from record to record; see alignment.ts.
   */
  labelLike?: boolean;
  depth: number;
  order: number;
}

// Header texts of each table, read once per table rather than once per cell.
const tableHeaders = new WeakMap<Element, string[]>();

function tableHeader($: CheerioAPI, cell: Element): string | undefined {
  const row = cell.parent;
  if (!isElement(row)) return undefined;
  let table: Element | null = row;
  while (table && table.name !== 'table') table = isElement(table.parent) ? table.parent : null;
  if (!table) return undefined;
  let headers = tableHeaders.get(table);
  if (!headers) {
    const $table = $(table);
    let headerRow = $table.find('thead tr').first();
    if (headerRow.length === 0)
      headerRow = $table
        .find('tr')
        .filter((_, tr) => $(tr).children('th').length > 0 && $(tr).children('td').length === 0)
        .first();
    headers =
      headerRow.length > 0
        ? headerRow
            .children()
            .toArray()
            .map((th) => normalizeText($(th).text()))
        : plainHeaders($, table);
    tableHeaders.set(table, headers);
  }
  const text = headers[elementChildren(row).indexOf(cell)] ?? '';
  return text !== '' && text.length <= 40 ? text : undefined;
}

/**
 * A header row written with plain cells (`<td>Eigner</td><td>Jahr</td>` above the data): the table's first
 * row when it holds two or more short texts, no number alone and digits in a third of them at most ("Top 5"),
 * while most rows below hold digits (years, sizes, numbers): the words above the values.
 */
function plainHeaders($: CheerioAPI, table: Element): string[] {
  const rows = $(table).find('tr').toArray();
  if (rows.length < 4) return [];
  const [first, ...rest] = rows;
  if ($(first).children('td').length !== elementChildren(first).length) return [];
  const texts = $(first)
    .children()
    .toArray()
    .map((td) => subtreeText(td));
  const named = texts.filter((t) => t !== '');
  // A heading may hold a digit ("Top 5", "Q1"), but most hold none and none is a number alone.
  const numbered = named.filter((t) => /\d/.test(t));
  if (named.length < 2 || named.some((t) => t.length > 30 || /^[\d\s.,:/-]+$/.test(t))) return [];
  if (numbered.length * 3 > named.length) return [];
  const withDigits = rest.filter((tr) => /\d/.test($(tr).text())).length;
  return withDigits >= rest.length * 0.6 ? texts : [];
}

/**
 * The term naming a <dd>: the <dt> before it, or, in a list written value first (`<dd>389 m²</dd><dt>Living
 * area</dt>`, its first element a <dd>), the <dt> after it.
 */
function definitionTerm(el: Element): string | undefined {
  if (el.name !== 'dd') return undefined;
  let prev = el.prev;
  while (prev && prev.type !== 'tag') prev = prev.prev;
  let term = isElement(prev) && prev.name === 'dt' ? prev : undefined;
  if (!term && isElement(el.parent) && elementChildren(el.parent)[0]?.name === 'dd') {
    let next = el.next;
    while (next && next.type !== 'tag') next = next.next;
    if (isElement(next) && next.name === 'dt') term = next;
  }
  if (!term) return undefined;
  const text = normalizeText(ownText(term));
  // A term opening with a number is a value written first ("<dt>40 gr</dt><dd>ontbijtspek</dd>", a
  // quantity before its ingredient), no label.
  return text !== '' && text.length <= 40 && !/["\\]/.test(text) && !/^\d/.test(text) ? text : undefined;
}

const LABEL = /^([A-Za-z][A-Za-z ]{0,24}):$/;

/** A short label opening an element's text, before a colon and its value ("Estado: Celebrándose"). */
const OPENING_LABEL = /^(\p{L}[\p{L}.]*(?: \p{L}[\p{L}.]*){0,2})\s?:\s*\S/u;

/** A label that is a field concept's word ("Venue", "Preis", "Autor"), not any opening words before a colon. */
function namesAConcept(label: string): boolean {
  return conceptOfWord(normalizeWord(label)) !== undefined;
}

/** The label an element's text opens with, when the element is a leaf of text (a paragraph, an item). */
function openingLabel($: CheerioAPI, el: Element): string | undefined {
  if (elementChildren(el).some((c) => !['br', 'abbr', 'b', 'strong', 'span'].includes(c.name))) return undefined;
  const label = OPENING_LABEL.exec(normalizeText($(el).text()))?.[1];
  return label !== undefined && label.length <= 24 ? label : undefined;
}

/**
 * A count's word in the element after it ("<span>26120</span><span>votes</span>", "<b>12</b> <i>answers</i>"):
 * counters on forums and question lists are labelled after their number.
 */
function wordAfter($: CheerioAPI, el: Element, own: string): string | undefined {
  if (!/^\d[\d.,]*[kmb]?$/i.test(own.trim()) || elementChildren(el).length > 0) return undefined;
  let next = el.next;
  while (next && next.type === 'text' && normalizeText((next as unknown as { data: string }).data) === '')
    next = next.next;
  if (!isElement(next) || elementChildren(next).length > 0) return undefined;
  const word = normalizeText($(next).text());
  return /^\p{L}[\p{L} ]{0,15}$/u.test(word) ? word : undefined;
}
const RATED = /\d(?:[.,]\d)?\s*(?:stars?|sternen?|(?:out of|von|of)\s*\d)/i;

/** A table cell holding one link and nothing else. */
function linkedCell(el: Element): boolean {
  const kids = elementChildren(el);
  return el.name === 'td' && kids.length === 1 && kids[0].name === 'a';
}

/** The values of one record, keyed by their structural path from the record container. */
export function valuesOf($: CheerioAPI, member: Element): ValueNode[] {
  const out: ValueNode[] = [];
  let order = 0;
  const visit = (el: Element, path: string, depth: number, inline?: string) => {
    // A struck-out value (the old price of a sale) is never the value.
    if (['del', 's', 'strike'].includes(el.name)) return;
    const own = ownText(el);
    // A number followed by its unit in a child ("3<abbr> bds</abbr>"): the unit names it.
    const kids = elementChildren(el);
    const unit =
      /^[\d.,]+$/.test(own) && kids.length === 1 && /^[A-Za-z][A-Za-z. ]{0,11}$/.test(normalizeText($(kids[0]).text()))
        ? normalizeText($(kids[0]).text()).replace(/\.$/, '')
        : undefined;
    const label =
      el.name === 'td' || el.name === 'th'
        ? tableHeader($, el)
        : (definitionTerm(el) ?? inline ?? unit ?? wordAfter($, el, own));
    const text = subtreeText(el);
    // The value held in one of the element's attributes.
    const attribute = (name: string) =>
      out.push({
        key: `${path}|@${name}`,
        el,
        kind: 'attribute',
        attribute: name,
        value: el.attribs[name],
        label,
        depth,
        order: order++,
      });
    if (own !== '' && !LABEL.test(own)) {
      // A value with no digit whose element carries a number elsewhere ("★★★★☆" titled "4 out of 5"). Not
      // an attribute repeating the text with more words ("Witala" titled "Erstellt von Witala (15.11.2013)").
      const numeric = /\d/.test(text)
        ? undefined
        : ['data-rating', 'data-value', 'content', 'title', 'aria-label', 'data-score'].find(
            (a) => /\d/.test(el.attribs?.[a] ?? '') && !el.attribs[a].includes(text),
          );
      // A shortened text ("A Light in the ...") whose title or aria-label attribute holds the whole of it.
      const stem = text.replace(/\s*(?:\.\.\.|…)$/, '');
      const whole =
        stem === text
          ? undefined
          : ['title', 'aria-label'].find(
              (a) => (el.attribs?.[a]?.length ?? 0) > stem.length && el.attribs[a].startsWith(stem),
            );
      const attr = whole ?? numeric;
      if (attr) attribute(attr);
      else
        out.push({
          key: `${path}|text`,
          el,
          kind: 'text',
          value: text,
          label,
          unit: unit !== undefined,
          depth,
          order: order++,
        });
    } else if (own !== '') {
      out.push({ key: `${path}|text`, el, kind: 'text', value: text, label, labelLike: true, depth, order: order++ });
    } else if (own === '' && RATED.test(el.attribs?.title ?? el.attribs?.['aria-label'] ?? '')) {
      // An icon whose title or aria-label says the rating ("5.0 star rating", "4 out of 5 stars").
      attribute(RATED.test(el.attribs?.title ?? '') ? 'title' : 'aria-label');
    } else if (
      own === '' &&
      /rating|stars?\b/i.test(el.attribs?.class ?? '') &&
      new RegExp(RATING_CLASS, 'i').test(el.attribs?.class ?? '')
    ) {
      // A rating written only as classes ("star-rating Three", "stars-4"): the class attribute is the value.
      attribute('class');
    } else if (own === '' && (label || linkedCell(el)) && text !== '' && elementChildren(el).length > 0) {
      // A labelled box's text; and a table cell's whole text when it is one link (the ingredient linked to
      // the shop beside one written bare): the column's value in every row, linked or not.
      out.push({ key: `${path}|text`, el, kind: 'text', value: text, label, depth, order: order++ });
    }
    if (el.name === 'a') {
      const href = el.attribs?.href?.trim();
      if (href && !href.startsWith('#') && !/^javascript:/i.test(href))
        out.push({
          key: `${path}|link`,
          el,
          kind: 'link',
          value: href,
          attribute: 'href',
          label,
          depth,
          order: order++,
        });
    }
    if (el.name === 'img') {
      const src =
        el.attribs?.src && !el.attribs.src.startsWith('data:')
          ? 'src'
          : ['data-src', 'data-lazy-src', 'data-original'].find((a) => el.attribs?.[a]);
      if (src)
        out.push({
          key: `${path}|image`,
          el,
          kind: 'image',
          value: el.attribs[src],
          attribute: src,
          label,
          depth,
          order: order++,
        });
    }
    if (el.name === 'time' && el.attribs?.datetime) attribute('datetime');
    const children = elementChildren(el).filter((c) => !isSkipped(c));
    const counts = new Map<string, number>();
    for (const c of children) counts.set(signature(c), (counts.get(signature(c)) ?? 0) + 1);
    const seen = new Map<string, number>();
    // Siblings alike opening with their own label ("<p>Expediente: 0168/20</p><p>Estado: …</p>") are keyed
    // by it, so that a label some records lack does not shift the others' positions; the unlabelled ones
    // are counted apart ("<p>VIVIENDA…</p>" after one labelled paragraph or after two is one value).
    // A child of its own kind opens with a label too when the label is a field's word ("<i>Venue: Hall B</i>").
    const inlines = new Map(
      children.map((c) => {
        const label = openingLabel($, c);
        return [c, label && ((counts.get(signature(c)) ?? 0) > 1 || namesAConcept(label)) ? label : undefined];
      }),
    );
    const unlabelled = new Map<string, number>();
    for (const c of children)
      if (!inlines.get(c)) unlabelled.set(signature(c), (unlabelled.get(signature(c)) ?? 0) + 1);
    // "Label:" in a child: the value is the rest of the parent (e.g. <li><b>Price:</b> $5</li>).
    for (const c of children) {
      const sig = signature(c);
      const inline = inlines.get(c);
      const dtLabel = definitionTerm(c);
      const i = seen.get(sig) ?? 0;
      if (!inline) seen.set(sig, i + 1);
      const step = dtLabel
        ? `${sig}{${dtLabel}}`
        : inline
          ? `${sig}{${inline}}`
          : (unlabelled.get(sig) ?? 0) > 1
            ? `${sig}[${i}]`
            : sig;
      visit(c, `${path}/${step}`, depth + 1, inline);
    }
  };
  visit(member, '', 0);
  return out;
}

// Tags whose name says what they hold.
const TAG_HINTS: Record<string, string> = {
  figcaption: 'caption',
  cite: 'source',
  blockquote: 'quote',
  address: 'address',
  time: 'date',
  q: 'quote',
};

/**
 * The classes of an icon opening the element's text, which name what the text is (`<button><span
 * class="icon-location"></span>Main St 5, Springfield</button>`): an element with no text before it.
 */
function iconClasses(el: Element): string[] {
  for (const c of el.children ?? []) {
    if (c.type === 'text') {
      if ((c as unknown as { data: string }).data.trim() !== '') return [];
      continue;
    }
    if (!isElement(c)) continue;
    if (!/^(?:i|span|svg|em)$/.test(c.name) || textOfNode(c) !== '') return [];
    return stableClasses(c).filter((cls) => /icon|(?:^|[-_])(?:fa|bi|glyph|ico)(?:[-_]|$)/i.test(cls));
  }
  return [];
}

/** The text node right before the element inside its parent, if that is text. */
function textBefore(el: Element): string | undefined {
  const prev = el.prev as { type?: string; data?: string } | null;
  return prev?.type === 'text' ? prev.data : undefined;
}

/** The text right before an element in its parent: a text node's, else the previous element's. */
function labelBefore(el: Element): string {
  type Sibling = { type?: string; data?: string; prev?: Sibling | null };
  let prev = el.prev as Sibling | null;
  while (prev && prev.type === 'text' && (prev.data ?? '').trim() === '') prev = prev.prev ?? null;
  if (!prev) return '';
  if (prev.type === 'text') return prev.data ?? '';
  const sibling = prev as unknown as Element;
  return isElement(sibling) && elementChildren(sibling).length === 0 ? textOfNode(sibling) : '';
}

function textOfNode(el: Element): string {
  let text = '';
  for (const c of el.children ?? [])
    if (c.type === 'text') text += (c as unknown as { data: string }).data;
    else if (isElement(c)) text += textOfNode(c);
  return text.trim();
}

/** An hCard's formatted name inside a box of an author or a card (`<div class="comment-author vcard"><cite class="fn">`). */
function formattedName(el: Element): boolean {
  if (!(el.attribs?.class ?? '').split(/\s+/).includes('fn')) return false;
  for (let p = el.parent; p && isElement(p); p = p.parent)
    if (/(?:^|\s)vcard(?:\s|$)|author/i.test(p.attribs?.class ?? '')) return true;
  return false;
}

/** Words of the element's own classes, id and naming attributes, then of its ancestors inside the record. */
export function hintsOf(el: Element, member: Element): { own: string[]; all: string[] } {
  // An icon opening its text names it first.
  const all: string[] = ownText(el) !== '' ? iconClasses(el) : [];
  let own: string[] = [];
  // The formatted name of an hCard (`<cite class="fn">`, as blogs write each commenter) is a person's name,
  // no source quoted.
  if (formattedName(el)) all.push('author');
  else if (TAG_HINTS[el.name]) all.push(TAG_HINTS[el.name]);
  // "Verfasst von <a>koala100</a>", "by <span>Ada</span>": the byline's words before it name the author.
  if (endsInByline(textBefore(el) ?? '')) all.push('author');
  // "Unser alter Preis: <span>219,99 EUR</span>": a label before it says the value is a former one.
  if (labelsFormer(labelBefore(el))) all.push('was');
  // The record's own classes are shared by every field: they name the record, not the field.
  for (let p: Element | null = el; p && isElement(p) && p !== member; p = p.parent as Element | null) {
    for (const a of NAMING_ATTRIBUTES) if (p.attribs?.[a]) all.push(p.attribs[a]);
    // A link's relation says what it is: rel="category tag", rel="author" (the rel-tag and rel-author
    // microformats every WordPress blog writes).
    if (p.name === 'a' && p.attribs?.rel) all.push(...p.attribs.rel.split(/\s+/));
    // A link to a person's page on the site ("/members/tiberius.123/") holds their name: an author.
    if (p.name === 'a' && isProfileLink(p.attribs?.href, normalizeText(textOf(p)))) all.push('author');
    if (p.attribs?.id && !/\d{3,}/.test(p.attribs.id)) all.push(p.attribs.id);
    all.push(...stableClasses(p));
    if (p === el) own = [...all];
  }
  return { own, all };
}

/** All the text below an element (a link's text, whatever wraps it). */
function textOf(el: Element): string {
  let text = '';
  for (const c of el.children) {
    if (c.type === 'text') text += c.data;
    else if (isElement(c) && !isSkipped(c)) text += ` ${textOf(c)}`;
  }
  return text;
}
