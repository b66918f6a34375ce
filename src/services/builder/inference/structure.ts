// Reads a page's repeated structure: groups of sibling subtrees with the same structural signature
// (record containers), scored by count, share of the page's text, links and images; the fields that
// line up across a group's records (text, link, image, attribute values); and a stable selector for
// the container and for each field.
import type { CheerioAPI } from 'cheerio';
import type { FieldTransform } from '../../../engine/definition.js';
import { conceptOfTokens, conceptOfValues, type Concept } from './naming.js';
import {
  cssString,
  elementChildren,
  isElement,
  NAMING_ATTRIBUTES,
  nthOfType,
  safeFind,
  signature,
  stableClasses,
  stepSelector,
  type Element,
} from './selectors.js';

const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'select', 'option', 'br', 'hr', 'meta', 'link']);
const MAX_GROUPS_ALIGNED = 12;
// Fields in fewer records are kept for joining with complementary ones (sale prices) and for
// explicit requests; a prompt that names nothing only gets the common ones (draft.ts).
const MIN_FIELD_COVERAGE = 0.2;

export type ValueKind = 'text' | 'link' | 'image' | 'attribute';

export interface CandidateField {
  /** Identifies the field within its candidate (stable across analyses of the same page). */
  key: string;
  kind: ValueKind;
  selector?: string;
  attribute?: string;
  transform?: FieldTransform;
  /** Share of the records that have a value. */
  coverage: number;
  /** Values of the first records, as the page shows them (before transforms). */
  samples: string[];
  /** What the values look like or the markup says (title, price...), if anything. */
  concept?: Concept;
  /** A table header, definition term or "Label:" that names the value. */
  label?: string;
  /** The element's classes, id and naming attributes, then its ancestors' inside the record. */
  hints: string[];
  /** The element's own. */
  ownHints: string[];
  tag: string;
  /** Depth below the record container (0: the container itself). */
  depth: number;
  /** Average length of the values. */
  averageLength: number;
  /** Index of the field in document order within the record. */
  order: number;
  /** Indexes of the records that have a value. */
  present: number[];
}

export interface Candidate {
  selector: string;
  count: number;
  score: number;
  /** Share of the page's text inside the records. */
  textShare: number;
  fields: CandidateField[];
}

export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function ownText(el: Element): string {
  let text = '';
  for (const c of el.children ?? []) if (c.type === 'text') text += (c as unknown as { data: string }).data;
  return normalizeText(text);
}

function isSkipped(el: Element): boolean {
  return SKIP_TAGS.has(el.name);
}

function* walk(el: Element): Generator<Element> {
  for (const c of elementChildren(el)) {
    if (isSkipped(c)) continue;
    yield c;
    yield* walk(c);
  }
}

function shapeOf(el: Element): Set<string> {
  const shape = new Set<string>();
  const visit = (node: Element, prefix: string, depth: number) => {
    if (depth > 4 || shape.size > 60) return;
    for (const c of elementChildren(node)) {
      if (isSkipped(c)) continue;
      const path = `${prefix}/${signature(c)}`;
      shape.add(path);
      visit(c, path, depth + 1);
    }
  };
  visit(el, '', 1);
  return shape;
}

function insideChrome(el: Element): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) {
    if (['nav', 'header', 'footer', 'aside'].includes(p.name)) return true;
    const words = `${p.attribs?.class ?? ''} ${p.attribs?.id ?? ''} ${p.attribs?.role ?? ''}`.toLowerCase();
    if (/\b(nav|navbar|navigation|menu|breadcrumbs?|footer|header|sidebar|pagination|pager)\b/.test(words)) return true;
  }
  return false;
}

interface Group {
  members: Element[];
  parents: number;
  share: number;
  rough: number;
}

/** Repeated sibling groups of the page, roughest score first. */
function findGroups($: CheerioAPI): Group[] {
  const body = ($('body')[0] ?? $.root().children().first()[0]) as Element | undefined;
  if (!body) return [];
  const bodyTextLength = Math.max(1, normalizeText($(body).text()).length);
  const byKey = new Map<string, Element[]>();
  for (const el of walk(body)) {
    const parent = el.parent;
    if (!isElement(parent)) continue;
    const key = `${signature(parent)} > ${signature(el)}`;
    const list = byKey.get(key);
    if (list) list.push(el);
    else byKey.set(key, [el]);
  }
  const groups: Group[] = [];
  for (const elements of byKey.values()) {
    if (elements.length < 2) continue;
    // Table cells and definition parts are fields of a record, never records.
    if (['tbody', 'thead', 'html', 'body', 'head', 'td', 'th', 'dd', 'dt', 'option'].includes(elements[0].name)) continue;
    // Members that do not share most of the group's common shape are something else (an ad, a heading row).
    const shapes = elements.map(shapeOf);
    const frequency = new Map<string, number>();
    for (const shape of shapes) for (const path of shape) frequency.set(path, (frequency.get(path) ?? 0) + 1);
    // Common: in a strict majority of members (variants such as sale/regular prices split the rest).
    const common = [...frequency].filter(([, n]) => n > elements.length / 2).map(([p]) => p);
    const members = elements.filter((_, i) => common.length === 0 || common.filter((p) => shapes[i].has(p)).length >= common.length / 2);
    if (members.length < 2) continue;
    const parents = new Set(members.map((m) => m.parent)).size;
    if (members.length / parents < 2) continue; // not siblings: one wrapper per record, not the records
    // A layout wrapper around each record (li.col-md-3 > article.product): the record is the inner element.
    for (;;) {
      const only = members.map((m) => elementChildren(m).filter((c) => !isSkipped(c)));
      const first = only[0][0];
      if (!first || stableClasses(first).length === 0) break;
      if (!only.every((c, i) => c.length === 1 && signature(c[0]) === signature(first) && normalizeText($(c[0]).text()).length >= normalizeText($(members[i]).text()).length * 0.95)) break;
      members.splice(0, members.length, ...only.map((c) => c[0]));
    }
    const companions = companionRows($, members);
    const texts = members.map((m) => normalizeText(`${$(m).text()} ${companions.has(m) ? $(companions.get(m) as Element).text() : ''}`));
    const textLength = texts.reduce((n, t) => n + t.length, 0);
    if (textLength === 0 && !members.some((m) => $(m).find('img').length > 0)) continue;
    const share = textLength / bodyTextLength;
    const withLinks = members.filter((m) => m.name === 'a' || $(m).find('a[href]').length > 0).length / members.length;
    const withImages = members.filter((m) => m.name === 'img' || $(m).find('img').length > 0).length / members.length;
    const averageText = textLength / members.length;
    let rough = (share + 0.02) * Math.log2(members.length + 1) * (1 + 0.3 * withLinks + 0.3 * withImages);
    if (insideChrome(members[0])) rough *= 0.15;
    if (averageText < 25 && withImages < 0.5 && elementChildren(members[0]).length <= 1) rough *= 0.3; // menus, tag clouds
    groups.push({ members, parents, share, rough });
  }
  return groups.sort((a, b) => b.rough - a.rough);
}

interface ValueNode {
  key: string;
  el: Element;
  kind: ValueKind;
  value: string;
  attribute?: string;
  label?: string;
  /** The label is the unit after a number. */
  unit?: boolean;
  depth: number;
  order: number;
}

function tableHeader($: CheerioAPI, cell: Element): string | undefined {
  const row = cell.parent;
  if (!isElement(row)) return undefined;
  const index = elementChildren(row).indexOf(cell);
  const table = $(cell).closest('table');
  let headerRow = table.find('thead tr').first();
  if (headerRow.length === 0) headerRow = table.find('tr').filter((_, tr) => $(tr).children('th').length > 0 && $(tr).children('td').length === 0).first();
  const th = headerRow.children().eq(index);
  const text = normalizeText(th.text());
  return text !== '' && text.length <= 40 ? text : undefined;
}

function definitionTerm(el: Element): string | undefined {
  if (el.name !== 'dd') return undefined;
  let prev = el.prev;
  while (prev && prev.type !== 'tag') prev = prev.prev;
  if (!isElement(prev) || prev.name !== 'dt') return undefined;
  const text = normalizeText(ownText(prev) || '');
  return text !== '' && text.length <= 40 && !/["\\]/.test(text) ? text : undefined;
}

const LABEL = /^([A-Za-z][A-Za-z ]{0,24}):$/;

/** The values of one record, keyed by their structural path from the record container. */
function valuesOf($: CheerioAPI, member: Element): ValueNode[] {
  const out: ValueNode[] = [];
  let order = 0;
  const visit = (el: Element, path: string, depth: number) => {
    // A struck-out value (the old price of a sale) is never the value.
    if (['del', 's', 'strike'].includes(el.name)) return;
    const own = ownText(el);
    // A number followed by its unit in a child ("3<abbr> bds</abbr>"): the unit names it.
    const kids = elementChildren(el);
    const unit =
      /^[\d.,]+$/.test(own) && kids.length === 1 && /^[A-Za-z][A-Za-z. ]{0,11}$/.test(normalizeText($(kids[0]).text())) ? normalizeText($(kids[0]).text()).replace(/\.$/, '') : undefined;
    const label = el.name === 'td' || el.name === 'th' ? tableHeader($, el) : (definitionTerm(el) ?? unit);
    const text = normalizeText($(el).text());
    if (own !== '' && !LABEL.test(own)) {
      // A value with no digit whose element carries a number elsewhere ("★★★★☆" titled "4 out of 5").
      const numeric = /\d/.test(text)
        ? undefined
        : ['data-rating', 'data-value', 'content', 'title', 'aria-label', 'data-score'].find((a) => /\d/.test(el.attribs?.[a] ?? ''));
      // A shortened text ("A Light in the ...") whose title attribute holds the whole of it.
      const stem = text.replace(/\s*(?:\.\.\.|…)$/, '');
      const whole = stem !== text && el.attribs?.title?.startsWith(stem) ? 'title' : undefined;
      const attr = whole ?? numeric;
      if (attr) out.push({ key: `${path}|@${attr}`, el, kind: 'attribute', attribute: attr, value: el.attribs[attr], label, depth, order: order++ });
      else out.push({ key: `${path}|text`, el, kind: 'text', value: text, label, unit: unit !== undefined, depth, order: order++ });
    } else if (own === '' && /rating|stars?\b/i.test(el.attribs?.class ?? '') && /(^|\s)(zero|one|two|three|four|five|half|\w*\d\w*)(\s|$)/i.test(el.attribs?.class ?? '')) {
      // A rating written only as classes ("star-rating Three", "stars-4"): the class attribute is the value.
      out.push({ key: `${path}|@class`, el, kind: 'attribute', attribute: 'class', value: el.attribs.class, label, depth, order: order++ });
    } else if (own === '' && label && text !== '' && elementChildren(el).length > 0) {
      out.push({ key: `${path}|text`, el, kind: 'text', value: text, label, depth, order: order++ });
    }
    if (el.name === 'a') {
      const href = el.attribs?.href?.trim();
      if (href && !href.startsWith('#') && !/^javascript:/i.test(href)) out.push({ key: `${path}|link`, el, kind: 'link', value: href, attribute: 'href', label, depth, order: order++ });
    }
    if (el.name === 'img') {
      const src = el.attribs?.src && !el.attribs.src.startsWith('data:') ? 'src' : ['data-src', 'data-lazy-src', 'data-original'].find((a) => el.attribs?.[a]);
      if (src) out.push({ key: `${path}|image`, el, kind: 'image', value: el.attribs[src], attribute: src, label, depth, order: order++ });
    }
    if (el.name === 'time' && el.attribs?.datetime) {
      out.push({ key: `${path}|@datetime`, el, kind: 'attribute', value: el.attribs.datetime, attribute: 'datetime', label, depth, order: order++ });
    }
    const children = elementChildren(el).filter((c) => !isSkipped(c));
    const counts = new Map<string, number>();
    for (const c of children) counts.set(signature(c), (counts.get(signature(c)) ?? 0) + 1);
    const seen = new Map<string, number>();
    // "Label:" in a child: the value is the rest of the parent (e.g. <li><b>Price:</b> $5</li>).
    for (const c of children) {
      const sig = signature(c);
      const i = seen.get(sig) ?? 0;
      seen.set(sig, i + 1);
      const dtLabel = definitionTerm(c);
      const step = dtLabel ? `${sig}{${dtLabel}}` : (counts.get(sig) ?? 0) > 1 ? `${sig}[${i}]` : sig;
      visit(c, `${path}/${step}`, depth + 1);
    }
  };
  visit(member, '', 0);
  return out;
}

// Tags whose name says what they hold.
const TAG_HINTS: Record<string, string> = { figcaption: 'caption', cite: 'source', blockquote: 'quote', address: 'address', time: 'date', q: 'quote' };

/** Words of the element's own classes, id and naming attributes, then of its ancestors inside the record. */
function hintsOf(el: Element, member: Element): { own: string[]; all: string[] } {
  const all: string[] = [];
  let own: string[] = [];
  if (TAG_HINTS[el.name]) all.push(TAG_HINTS[el.name]);
  // The record's own classes are shared by every field: they name the record, not the field.
  for (let p: Element | null = el; p && isElement(p) && p !== member; p = p.parent as Element | null) {
    for (const a of NAMING_ATTRIBUTES) if (p.attribs?.[a]) all.push(p.attribs[a]);
    if (p.attribs?.id && !/\d{3,}/.test(p.attribs.id)) all.push(p.attribs.id);
    all.push(...stableClasses(p));
    if (p === el) own = [...all];
  }
  return { own, all };
}

/** Candidate relative selectors for a field target, simplest first. */
function selectorOptions(targets: Element[], member: Element, label: string | undefined): string[] {
  const t = targets[0];
  const options: string[] = [];
  const common = (fn: (el: Element) => string[]) => {
    const sets = targets.map((el) => new Set(fn(el)));
    return [...sets[0]].filter((v) => sets.every((s) => s.has(v)));
  };
  const classes = common(stableClasses);
  if (label && t.name === 'dd') options.push(`dt:contains(${cssString(label)}) + dd`);
  for (const c of classes) options.push(`${t.name}.${c}`);
  if (classes.length > 1) options.push(`${t.name}.${classes.join('.')}`);
  for (const a of NAMING_ATTRIBUTES) {
    const values = common((el) => (el.attribs?.[a] ? [el.attribs[a]] : []));
    for (const v of values) options.push(`${t.name}[${a}=${cssString(v)}]`);
  }
  options.push(t.name);
  const nth = common((el) => [String(nthOfType(el))]);
  if (nth.length > 0) options.push(`${t.name}:nth-of-type(${nth[0]})`);
  // Qualified by an ancestor inside the record.
  const base = [...options];
  let levels = 0;
  for (let p = t.parent; p && isElement(p) && p !== member && levels < 3; p = p.parent, levels++) {
    const pc = stableClasses(p);
    const ps = pc.length > 0 ? `${p.name}.${pc.join('.')}` : p.name;
    for (const b of base.slice(0, 4)) options.push(`${ps} ${b}`, `${ps} > ${b}`);
  }
  // The full path with positions, the last resort.
  const steps: string[] = [];
  for (let p: Element | null = t; p && isElement(p) && p !== member; p = p.parent as Element | null) {
    const pc = stableClasses(p);
    steps.unshift(pc.length > 0 ? stepSelector(p, pc) : `${p.name}:nth-of-type(${nthOfType(p)})`);
  }
  if (steps.length > 0) options.push(`:scope > ${steps.join(' > ')}`);
  return [...new Set(options)];
}

/** The first selector that finds exactly the aligned element in (nearly) every record. */
function chooseSelector($: CheerioAPI, members: Element[], targets: Map<Element, Element>, label: string | undefined, needsAttr?: string): string | undefined | null {
  const withTarget = members.filter((m) => targets.has(m));
  const exemplars = withTarget.map((m) => targets.get(m) as Element);
  if (exemplars.every((t, i) => t === withTarget[i])) return undefined; // the container itself
  const without = members.filter((m) => !targets.has(m));
  for (const option of selectorOptions(exemplars.slice(0, 30), withTarget[0], label)) {
    let hits = 0;
    let bad = false;
    for (const m of withTarget) {
      const found = safeFind($(m), option);
      if (found === null) {
        bad = true;
        break;
      }
      const first = needsAttr ? found.filter((_, e) => !!e.attribs?.[needsAttr]).first() : found.first();
      if (first[0] === targets.get(m) && (needsAttr === undefined || found.first()[0] === first[0])) hits++;
    }
    if (bad || hits < withTarget.length * 0.95) continue;
    const strays = without.filter((m) => (safeFind($(m), option)?.length ?? 0) > 0).length;
    if (without.length > 0 && strays > without.length * 0.3) continue;
    return option;
  }
  return null;
}

function nextElement(el: Element): Element | null {
  let n = el.next;
  while (n && n.type !== 'tag') n = n.next;
  return isElement(n) ? n : null;
}

/**
 * Table records that span two rows (a title row followed by a details row, as on Hacker News): the
 * row after each record, when it is not a record itself. Used only when most records have one.
 */
export function companionRows($: CheerioAPI, members: Element[]): Map<Element, Element> {
  const companions = new Map<Element, Element>();
  if (members[0]?.name !== 'tr') return companions;
  const set = new Set(members);
  for (const m of members) {
    const next = nextElement(m);
    if (next && next.name === 'tr' && !set.has(next) && signature(next) !== signature(m) && normalizeText($(next).text()) !== '') companions.set(m, next);
  }
  return companions.size >= members.length * 0.8 ? companions : new Map();
}

const COMPANION = ':scope + tr';

/** "€ 10,99" or "1.234,50": the engine's number transform reads commas as thousands separators, so such values stay text. */
function decimalComma(value: string): boolean {
  return /\d,\d{1,2}(?!\d)/.test(value) && !/\d\.\d{1,2}(?!\d)/.test(value);
}

// Concepts an ancestor's class may give its text ("div.price > span"); "details", "title" or "image"
// on a wrapper says nothing about the text inside.
const WRAPPER_CONCEPTS = new Set<Concept>(['price', 'rating', 'date', 'author', 'location', 'company', 'salary', 'reviews', 'sku', 'stock', 'brand', 'email', 'phone', 'address', 'year', 'isbn', 'publisher', 'duration', 'points', 'comments', 'category']);

/** Fields that line up across the records of a group. */
export function alignFields($: CheerioAPI, members: Element[]): CandidateField[] {
  const byKey = new Map<string, { nodes: Map<Element, ValueNode> }>();
  const add = (member: Element, v: ValueNode) => {
    let entry = byKey.get(v.key);
    if (!entry) byKey.set(v.key, (entry = { nodes: new Map() }));
    if (!entry.nodes.has(member)) entry.nodes.set(member, v);
  };
  const companions = companionRows($, members);
  for (const member of members) {
    for (const v of valuesOf($, member)) add(member, v);
    const companion = companions.get(member);
    // Keyed under '+': their selectors are found relative to the companion row, then prefixed.
    if (companion) for (const v of valuesOf($, companion)) add(member, { ...v, key: `+${v.key}`, order: v.order + 1000 });
  }
  const fields: CandidateField[] = [];
  for (const [key, { nodes }] of byKey) {
    const coverage = nodes.size / members.length;
    if (coverage < MIN_FIELD_COVERAGE) continue;
    const values = members.filter((m) => nodes.has(m)).map((m) => (nodes.get(m) as ValueNode).value);
    const distinct = new Set(values).size;
    if (values.length >= 3 && distinct === 1) continue; // the same on every record: a button, an icon
    const first = nodes.values().next().value as ValueNode;
    const attribute = first.kind === 'text' ? undefined : first.attribute;
    const viaCompanion = key.startsWith('+');
    let selector: string | undefined | null;
    if (viaCompanion) {
      const rows = members.filter((m) => companions.has(m));
      const targets = new Map([...nodes].map(([m, v]) => [companions.get(m) as Element, v.el]));
      const inner = chooseSelector($, rows.map((m) => companions.get(m) as Element), targets, first.label, attribute);
      selector = inner === null ? null : inner === undefined ? COMPANION : `${COMPANION} ${inner.replace(/^:scope > /, '> ')}`;
      // The combined selector must find the same element from the record itself.
      if (selector && !rows.every((m) => !nodes.has(m) || safeFind($(m), selector as string)?.first()[0] === nodes.get(m)?.el)) selector = null;
    } else {
      selector = chooseSelector($, members, new Map([...nodes].map(([m, v]) => [m, v.el])), first.label, attribute);
    }
    if (selector === null) continue;
    const scopeOf = (m: Element) => (viaCompanion ? (companions.get(m) as Element) : m);
    const { own: ownHints, all: tokens } = hintsOf(first.el, scopeOf(members.find((m) => nodes.has(m)) as Element));
    const textValues = first.kind === 'text' || first.kind === 'attribute' ? values : [];
    // Markup names: the element's own first; an ancestor's ("td.title > span.rank") only for value-like concepts.
    const fromAncestors = conceptOfTokens(tokens.slice(ownHints.length));
    const fromMarkup = conceptOfTokens(first.label ? [first.label, ...ownHints] : ownHints) ?? (fromAncestors && WRAPPER_CONCEPTS.has(fromAncestors) ? fromAncestors : undefined);
    const numericOnly = textValues.length > 0 && textValues.every((v) => /^[\d.,#\s]+$/.test(v));
    const concept =
      first.kind === 'link' ? 'link' : first.kind === 'image' ? 'image' : (conceptOfValues(textValues) ?? (numericOnly && fromMarkup === 'title' ? undefined : fromMarkup));
    const transform: FieldTransform | undefined =
      first.kind === 'link' || first.kind === 'image'
        ? 'absoluteUrl'
        : first.attribute === 'class'
          ? 'trim'
        : first.unit || concept === 'price' || concept === 'rating' || concept === 'reviews' || concept === 'points' || concept === 'comments'
          ? values.every((v) => /\d/.test(v)) && !values.some(decimalComma)
            ? 'number'
            : 'trim'
          : 'trim';
    const orders = [...nodes.values()].map((v) => v.order);
    const present = members.flatMap((m, i) => (nodes.has(m) ? [i] : []));
    fields.push({
      key,
      kind: first.kind,
      ...(selector !== undefined ? { selector } : {}),
      ...(attribute ? { attribute } : {}),
      transform,
      coverage,
      samples: values.slice(0, 5),
      ...(concept ? { concept } : {}),
      ...(first.label ? { label: first.label } : {}),
      hints: tokens,
      ownHints,
      tag: first.el.name,
      depth: first.depth,
      averageLength: values.reduce((n, v) => n + v.length, 0) / Math.max(1, values.length),
      order: orders.reduce((a, b) => a + b, 0) / orders.length,
      present,
    });
  }
  // A text field that only repeats a deeper field's text (an <a> inside an <h2> whose own text is
  // blank is never a field; a <span> inside a <p> that adds a few words may be) is kept: both can be
  // wanted; naming picks one per concept.
  return fields.sort((a, b) => a.order - b.order);
}

function sameSet(a: Element[], b: Set<Element>): boolean {
  return a.length === b.size && a.every((e) => b.has(e));
}

/** A selector matching exactly the group's members on the page, or the closest one found. */
export function containerSelector($: CheerioAPI, members: Element[], fields: CandidateField[]): string | null {
  const wanted = new Set(members);
  const sample = members[0];
  const commonClasses = stableClasses(sample).filter((c) => members.every((m) => stableClasses(m).includes(c)));
  const options: string[] = [];
  for (const c of commonClasses) options.push(`${sample.name}.${c}`);
  if (commonClasses.length > 1) options.push(`${sample.name}.${commonClasses.join('.')}`);
  for (const a of ['itemtype', 'itemprop', 'role', 'data-type', 'data-testid', 'data-test']) {
    const v = sample.attribs?.[a];
    if (v && members.every((m) => m.attribs?.[a] === v)) options.push(`${sample.name}[${a}=${cssString(v)}]`);
  }
  const own = commonClasses.length > 0 ? `${sample.name}.${commonClasses.join('.')}` : sample.name;
  // Parent-qualified forms.
  const parentSteps: string[] = [];
  let p = sample.parent;
  for (let depth = 0; p && isElement(p) && depth < 3; depth++, p = p.parent) {
    const id = p.attribs?.id && /^[A-Za-z][\w-]*$/.test(p.attribs.id) && !/\d{3,}/.test(p.attribs.id) ? `#${p.attribs.id}` : null;
    const pc = stableClasses(p);
    const step = id ?? (pc.length > 0 ? stepSelector(p, pc) : p.name);
    parentSteps.unshift(step);
    options.push(`${parentSteps.join(' > ')} > ${own}`);
    if (id || pc.length > 0) options.push(`${step} ${own}`);
    if (id) break;
  }
  options.push(own);
  const required = fields.filter((f) => f.coverage === 1 && f.selector).map((f) => f.selector as string);
  let best: { selector: string; score: number } | null = null;
  for (const option of [...new Set(options)]) {
    let matched: Element[];
    try {
      matched = $(option).toArray() as Element[];
    } catch {
      continue;
    }
    if (sameSet(matched, wanted)) return option;
    const extras = matched.filter((e) => !wanted.has(e));
    const hits = matched.length - extras.length;
    if (hits < members.length) continue;
    // Exclude the strays: a class only they carry, or a field they lack.
    const strayClasses = [...new Set(extras.flatMap((e) => stableClasses(e).concat((e.attribs?.class ?? '').split(/\s+/).filter((c) => /^[A-Za-z][\w-]*$/.test(c)))))];
    for (const c of strayClasses) {
      if (members.some((m) => (m.attribs?.class ?? '').split(/\s+/).includes(c))) continue;
      if (!extras.every((e) => (e.attribs?.class ?? '').split(/\s+/).includes(c))) continue;
      const refined = `${option}:not(.${c})`;
      try {
        if (sameSet($(refined).toArray() as Element[], wanted)) return refined;
      } catch {
        // not expressible
      }
    }
    for (const r of required) {
      const refined = `${option}:has(${r})`;
      try {
        if (sameSet($(refined).toArray() as Element[], wanted)) return refined;
      } catch {
        // :has with this selector not supported
      }
    }
    const score = hits / matched.length;
    if (!best || score > best.score) best = { selector: option, score };
  }
  return best && best.score >= 0.8 ? best.selector : null;
}

/** Record-container candidates of a page, best first. */
export function findCandidates($: CheerioAPI, conceptsWanted: Concept[] = []): Candidate[] {
  const groups = findGroups($).slice(0, MAX_GROUPS_ALIGNED);
  const candidates: Array<Candidate & { members: Element[] }> = [];
  for (const group of groups) {
    const fields = alignFields($, group.members);
    if (fields.length === 0) continue;
    const selector = containerSelector($, group.members, fields);
    if (!selector) continue;
    const concepts = new Set(fields.map((f) => f.concept));
    const matched = conceptsWanted.filter((c) => concepts.has(c)).length;
    const richness = 0.5 + Math.min(fields.length, 6) / 4;
    const score = group.rough * richness * (1 + (conceptsWanted.length > 0 ? matched / conceptsWanted.length : 0));
    candidates.push({ selector, count: group.members.length, score, textShare: group.share, fields, members: group.members });
  }
  // The records are the innermost repeated unit that carries the text: a group whose records each hold
  // several records of another good group (categories holding items) gives way to it.
  for (const outer of candidates) {
    for (const inner of candidates) {
      if (inner === outer || inner.count < outer.count * 2 || inner.textShare < outer.textShare * 0.6) continue;
      const contained = inner.members.filter((m) => outer.members.some((o) => contains(o, m))).length;
      if (contained >= inner.count * 0.8) outer.score *= 0.4;
    }
  }
  return candidates
    .sort((a, b) => b.score - a.score)
    .map(({ members: _members, ...c }) => c);
}

function contains(ancestor: Element, node: Element): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
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
