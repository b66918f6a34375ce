// The fields that line up across a group's records: one per structural path present in enough records,
// with its selector, what it looks like (concept) and how to read it (transform).
import type { CheerioAPI } from 'cheerio';
import type { FieldTransform } from '../../../engine/definition.js';
import type { CandidateField } from './candidate.js';
import { chooseSelector } from './field-selectors.js';
import { COMPANION, companionRows } from './grouping.js';
import { conceptOfTokens, conceptOfValues, NAME_OWNERS, type Concept } from './naming.js';
import { isElement, safeFind, signature, type Element } from './selectors.js';
import { hintsOf, RATING_CLASS, valuesOf, type ValueNode } from './values.js';

// Fields in fewer records are kept for joining with complementary ones (sale prices) and for
// explicit requests; a prompt that names nothing only gets the common ones (draft.ts).
const MIN_FIELD_COVERAGE = 0.2;
/** A key column written as labels ("Maandag:", "Dinsdag:"): this share of its records write texts of their own. */
const LABEL_LIKE_DISTINCT = 0.8;
const MAX_SECTION_VALUES = 150;

// Concepts an ancestor's class may give its text ("div.price > span"); "details", "title" or "image"
// on a wrapper says nothing about the text inside.
const WRAPPER_CONCEPTS = new Set<Concept>([
  'price',
  'rating',
  'date',
  'author',
  'location',
  'company',
  'salary',
  'reviews',
  'sku',
  'stock',
  'brand',
  'email',
  'phone',
  'address',
  'year',
  'isbn',
  'publisher',
  'duration',
  'points',
  'comments',
  'category',
]);

/** The words of the path of the link around an element inside its record (ids and numbers left out). */
function hrefWords(el: Element, scope: Element): string[] {
  for (let p: Element | null = el; p && isElement(p); p = p.parent as Element | null) {
    if (p.name === 'a' && p.attribs?.href) {
      const path = p.attribs.href.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0];
      return path.split(/[/_.-]+/).filter((w) => /^[A-Za-z]{3,}$/.test(w) && !/^(?:www|html?|php|aspx?)$/i.test(w));
    }
    if (p === scope) break;
  }
  return [];
}

/**
 * Concepts whose value may be the same on every record: one district's flats, one employer's jobs, one
 * category's posts. Not an author: "user" names menus and account widgets that every record repeats.
 */
const ENTITY_CONCEPTS = new Set<Concept>(['location', 'company', 'brand', 'publisher', 'category']);

/**
 * A value its own class or id names as an entity ("location-text", "company-name"): the same on every
 * record when the list is one district's or one employer's, and then still data, not a button or an icon.
 */
function classedAsEntity(v: ValueNode, member: Element): boolean {
  const concept = conceptOfTokens(hintsOf(v.el, member).own);
  return v.kind === 'text' && concept !== undefined && ENTITY_CONCEPTS.has(concept);
}

/**
 * The first ancestor of a value (below the record) that also holds another of the record's texts in
 * words: the words of the boxes below it name this value alone. The record when there is none.
 */
function soleWrapper(el: Element, scope: Element, texts: Element[]): Element {
  const others = texts.filter((t) => t !== el && !inside(t, el) && !inside(el, t));
  for (let p = el.parent; p && isElement(p) && p !== scope; p = p.parent) {
    const box = p;
    if (others.some((o) => inside(o, box))) return box;
  }
  return scope;
}

function inside(node: Element, ancestor: Element): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

/**
 * One classed value reached through different wrappers in different records (an obituary's
 * "div.obitPublished" inside "div.ObitSection" where it has a photo, inside a bare div where it has
 * none), or classed with a state class more in some records: paths ending in elements of one tag whose
 * classes hold one another's, never both in one record, are one field.
 */
/** Most paths of one ending joined as one value's wrappers (more are a table's or a grid's cells). */
const MAX_WRAPPED_VARIANTS = 16;
/** Share of the joined values that may have a twin of the same classes in their record. */
const MAX_REPEATED_SHARE = 0.05;

function joinWrappedVariants($: CheerioAPI, byKey: Map<string, { nodes: Map<Element, ValueNode> }>): void {
  // The element is the record's only one of its kind: a class repeated in a record (a link in the text,
  // a reply's author below the comment's) is no single value to join.
  // Each record's count of elements per signature, read once (records of large pages hold hundreds).
  const counts = new Map<Element, Map<string, number>>();
  const only = (member: Element, el: Element) => {
    let byTag = counts.get(member);
    if (!byTag) {
      byTag = new Map();
      for (const e of $(member).find('*').toArray()) {
        if (!isElement(e)) continue;
        const sig = signature(e);
        byTag.set(sig, (byTag.get(sig) ?? 0) + 1);
      }
      counts.set(member, byTag);
    }
    return byTag.get(signature(el)) === 1;
  };
  // Grouped by the element's tag and kind of value; joined when one's classes hold the other's (a state
  // class more: "li.authorTxt.oaBlock" on open-access records, "li.authorTxt" on the others).
  const endOf = (key: string) => {
    const end = key.slice(key.lastIndexOf('/') + 1);
    const m = end.match(/^([a-z][\w-]*)((?:\.[^.|[{]+)+)[^|]*\|(.*)$/);
    return m ? { group: `${m[1]}|${m[3]}`, classes: m[2].slice(1).split('.') } : undefined;
  };
  const ends = new Map<string, string[]>();
  const byEnd = new Map<string, string[]>();
  for (const key of byKey.keys()) {
    const end = key.startsWith('+') ? undefined : endOf(key);
    if (!end) continue; // a classed element's value only
    ends.set(key, end.classes);
    const keys = byEnd.get(end.group);
    if (keys) keys.push(key);
    else byEnd.set(end.group, [key]);
  }
  // Or one class each of their own beside the ones they share, under the same path: a value's state class
  // ("i.star.stars-4" in one record, "i.star.stars-5" in the next; "div.score.good", "div.score.fair").
  const parentOf = (key: string) => key.slice(0, key.lastIndexOf('/'));
  const related = (a: string, b: string) => {
    const [x, y] = [ends.get(a) ?? [], ends.get(b) ?? []];
    const [small, large] = x.length <= y.length ? [x, y] : [y, x];
    if (small.length > 0 && small.every((c) => large.includes(c))) return true;
    const shared = x.filter((c) => y.includes(c)).length;
    return shared > 0 && x.length === y.length && shared === x.length - 1 && parentOf(a) === parentOf(b);
  };
  // Records of no two keys in common (never both in one record), the smaller map read.
  const apart = (a: Map<Element, ValueNode>, b: Map<Element, ValueNode>) => {
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    for (const m of small.keys()) if (large.has(m)) return false;
    return true;
  };
  for (const keys of byEnd.values()) {
    // Many paths ending alike are a table's or a grid's cells, not a value's few wrappers.
    if (keys.length < 2 || keys.length > MAX_WRAPPED_VARIANTS) continue;
    keys.sort((a, b) => byKey.get(b)!.nodes.size - byKey.get(a)!.nodes.size);
    for (const head of keys) {
      const nodes = byKey.get(head)?.nodes;
      if (!nodes) continue;
      for (const key of keys) {
        const more = key === head ? undefined : byKey.get(key)?.nodes;
        if (!more || !related(head, key) || !apart(nodes, more)) continue;
        // A record or two holding a second one (a quoted earlier review's stars) do not part the rest.
        const repeated = [...nodes, ...more].filter(([m, v]) => !only(m, v.el)).length;
        if (repeated > (nodes.size + more.size) * MAX_REPEATED_SHARE) continue;
        for (const [m, v] of more) nodes.set(m, v);
        byKey.delete(key);
      }
    }
  }
}

/** The alternative texts of a field's images in the first records that have one, normalised. */
function altTexts(members: Element[], nodes: Map<Element, ValueNode>): string[] {
  return members
    .flatMap((m) => {
      const alt = nodes.get(m)?.el.attribs?.alt?.replace(/\s+/g, ' ').trim();
      return alt ? [alt] : [];
    })
    .slice(0, 20);
}

/** Fields that line up across the records of a group. */
export function alignFields($: CheerioAPI, members: Element[]): CandidateField[] {
  const byKey = new Map<string, { nodes: Map<Element, ValueNode> }>();
  const add = (member: Element, v: ValueNode) => {
    let entry = byKey.get(v.key);
    if (!entry) byKey.set(v.key, (entry = { nodes: new Map() }));
    if (!entry.nodes.has(member)) entry.nodes.set(member, v);
  };
  const companions = companionRows($, members);
  // Each record's text values, to tell a box around one value from a box around several (see soleWrapper).
  const textsOf = new Map<Element, Element[]>();
  for (const member of members) {
    const own = valuesOf($, member);
    // Words only: a bare number beside the value (a rating's scale, "7.7" and "10") is part of it.
    textsOf.set(
      member,
      own.filter((v) => v.kind === 'text' && /\p{L}/u.test(v.value)).map((v) => v.el),
    );
    for (const v of own) add(member, v);
    const companion = companions.get(member);
    // Keyed under '+': their selectors are found relative to the companion row, then prefixed.
    if (companion)
      for (const v of valuesOf($, companion)) add(member, { ...v, key: `+${v.key}`, order: v.order + 1000 });
  }
  // A handful of members holding well over a hundred distinct values are page sections, not records.
  if (members.length <= 6 && byKey.size > MAX_SECTION_VALUES) return [];
  joinWrappedVariants($, byKey);
  const fields: CandidateField[] = [];
  for (const [key, { nodes }] of byKey) {
    const coverage = nodes.size / members.length;
    if (coverage < MIN_FIELD_COVERAGE) continue;
    const values = members.filter((m) => nodes.has(m)).map((m) => (nodes.get(m) as ValueNode).value);
    const distinct = new Set(values).size;
    // Texts written as labels ("Maandag:") are labels unless nearly every record writes its own.
    const labelLike = [...nodes.values()].every((v) => v.labelLike);
    if (labelLike && (values.length < 3 || distinct < values.length * LABEL_LIKE_DISTINCT)) continue;
    // The same on every record: a button, an icon; unless labelled or shaped like data (one posting date),
    // or a picture described differently in each record (a default avatar, its alt the person's name).
    const labelled = (nodes.values().next().value as ValueNode).label !== undefined;
    const described = new Set(altTexts(members, nodes)).size > 1;
    const property = (nodes.values().next().value as ValueNode).el.attribs?.itemprop !== undefined;
    if (
      values.length >= 3 &&
      distinct === 1 &&
      !labelled &&
      !property &&
      !described &&
      conceptOfValues(values) === undefined &&
      !classedAsEntity(nodes.values().next().value as ValueNode, members[0])
    )
      continue;
    const first = nodes.values().next().value as ValueNode;
    const attribute = first.kind === 'text' ? undefined : first.attribute;
    // A term is a label when every record writes the same one; a term that varies ("<dt>40 gr</dt>
    // <dd>ontbijtspek</dd>", a quantity before its ingredient) is a value, no hook for a selector.
    const label = [...nodes.values()].every((v) => v.label === first.label) ? first.label : undefined;
    const viaCompanion = key.startsWith('+');
    let selector: string | undefined | null;
    if (viaCompanion) {
      const rows = members.filter((m) => companions.has(m));
      const targets = new Map([...nodes].map(([m, v]) => [companions.get(m) as Element, v.el]));
      const inner = chooseSelector(
        $,
        rows.map((m) => companions.get(m) as Element),
        targets,
        label,
        attribute,
      );
      selector =
        inner === null ? null : inner === undefined ? COMPANION : `${COMPANION} ${inner.replace(/^:scope > /, '> ')}`;
      // The combined selector must find the same element from the record itself.
      if (selector && !rows.every((m) => !nodes.has(m) || safeFind(m, selector as string, 1)?.[0] === nodes.get(m)?.el))
        selector = null;
    } else {
      selector = chooseSelector($, members, new Map([...nodes].map(([m, v]) => [m, v.el])), label, attribute);
    }
    if (selector === null) continue;
    const scopeOf = (m: Element) => (viaCompanion ? (companions.get(m) as Element) : m);
    const scope = scopeOf(members.find((m) => nodes.has(m)) as Element);
    const hinted = hintsOf(first.el, scope);
    const firstMember = [...nodes.keys()][0];
    const sole = viaCompanion
      ? hinted
      : hintsOf(first.el, soleWrapper(first.el, scope, textsOf.get(firstMember) ?? []));
    const numericOnly = first.kind === 'text' && values.every((v) => /^[\d.,#\s]+$/.test(v));
    // A bare number inside a link is named by where the link goes ("70,186" -> /moby/stargazers).
    const linkWords = numericOnly ? hrefWords(first.el, scope) : [];
    const ownHints = [...linkWords, ...hinted.own];
    const tokens = [...linkWords, ...hinted.all];
    const textValues = first.kind === 'text' || first.kind === 'attribute' ? values : [];
    // Markup names: the element's own first; an ancestor's ("td.title > span.rank") only for value-like concepts.
    // Only from ancestors around this value alone: a box around a shop's name and address ("header.place")
    // names the two together, not the name.
    const fromAncestors = conceptOfTokens([...linkWords, ...sole.all].slice(ownHints.length));
    const fromOwn = conceptOfTokens(first.label ? [first.label, ...ownHints] : ownHints);
    // A bare "name" ("scrname", "name") is the name of whatever the box around it is: a user's box makes
    // it the author, not the record's title.
    const whoseName =
      fromOwn === 'title' &&
      !first.label &&
      ownHints.some((h) => /name$/i.test(h)) &&
      fromAncestors !== undefined &&
      NAME_OWNERS.has(fromAncestors)
        ? fromAncestors
        : undefined;
    const fromMarkup =
      (linkWords.length > 0 ? conceptOfTokens(linkWords) : undefined) ??
      whoseName ??
      fromOwn ??
      (fromAncestors && WRAPPER_CONCEPTS.has(fromAncestors) ? fromAncestors : undefined);
    const concept =
      first.kind === 'link'
        ? 'link'
        : first.kind === 'image'
          ? 'image'
          : (conceptOfValues(textValues) ??
            // Text is never a link or an image, whatever its class says ("organic__url-text").
            (fromMarkup === 'link' || fromMarkup === 'image' || (numericOnly && fromMarkup === 'title')
              ? undefined
              : fromMarkup));
    const transform: FieldTransform | undefined = labelLike
      ? ['trim', { replace: '\\s*:$', with: '' }]
      : first.kind === 'link' || first.kind === 'image'
        ? 'absoluteUrl'
        : first.attribute === 'class'
          ? ['trim', { regex: RATING_CLASS, group: 1, flags: 'i' }]
          : first.unit ||
              concept === 'price' ||
              concept === 'rating' ||
              concept === 'reviews' ||
              concept === 'points' ||
              concept === 'rank' ||
              concept === 'comments'
            ? values.every((v) => /\d/.test(v))
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
      ...(first.kind === 'image' ? { alts: altTexts(members, nodes) } : {}),
    });
  }
  // A text field that only repeats a deeper field's text (an <a> inside an <h2> whose own text is
  // blank is never a field; a <span> inside a <p> that adds a few words may be) is kept: both can be
  // wanted; naming picks one per concept.
  return fields.sort((a, b) => a.order - b.order);
}
