// Lists of elements that are one list of records though their markup differs a little: zebra rows
// taking turns under one parent, and variants of one record classed by their kind, state or place in a
// grid row. Used by grouping.ts before the groups are scored.
import { isSkipped } from './dom-text.js';
import { advertising } from './page-regions.js';
import { elementChildren, isElement, pageClasses, signature, type Element } from './selectors.js';
import { pushTo } from './multimap.js';

/** The paths of tags and classes below an element, four levels deep: what its records look like. */
export function shapeOf(el: Element, step: (e: Element) => string = signature): Set<string> {
  const shape = new Set<string>();
  const visit = (node: Element, prefix: string, depth: number) => {
    if (depth > 4 || shape.size > 60) return;
    for (const c of elementChildren(node)) {
      if (isSkipped(c)) continue;
      const path = `${prefix}/${step(c)}`;
      shape.add(path);
      visit(c, path, depth + 1);
    }
  };
  visit(el, '', 1);
  return shape;
}

/**
 * Zebra rows: two lists of one tag under the same parents whose members alternate (tr.odd, tr.even under
 * any names) are one list; each list alone would hold every other record.
 */
export function mergeAlternating(lists: Element[][]): Element[][] {
  const byParent = new Map<unknown, Element[][]>();
  for (const list of lists) {
    if (list.length < 2) continue;
    const key = list[0].parent;
    pushTo(byParent, key, list);
  }
  const merged = new Map<Element[], Element[]>();
  for (const siblings of byParent.values()) {
    for (let i = 0; i < siblings.length; i++) {
      for (let j = i + 1; j < siblings.length; j++) {
        const [a, b] = [siblings[i], siblings[j]];
        if (merged.has(a) || merged.has(b) || a[0].name !== b[0].name || !alike(a[0], b[0])) continue;
        const union = alternating(a, b);
        if (union) merged.set(a, union).set(b, []);
      }
    }
  }
  return lists.map((list) => merged.get(list) ?? list).filter((list) => list.length > 0);
}

/**
 * Variants of one record: elements of one tag under parents alike, sharing a stable class, whose other
 * classes differ (a listing's kind or state, `a.item.house.for-sale` beside `a.item.plot.coming`; a
 * grid's first and last card of each row, `li.card.alpha` ... `li.card.omega`) are one list, in page
 * order; grouped by their full signature each variant would be a list of its own, a part of the records.
 */
export function mergeVariants(
  lists: Element[][],
  signatureOf: (el: Element) => string,
  order: Map<Element, number>,
): Element[][] {
  const byParent = new Map<string, Element[][]>();
  for (const list of lists) {
    const parent = list[0].parent;
    if (!isElement(parent)) continue;
    const key = signatureOf(parent);
    if (!list.every((m) => isElement(m.parent) && signatureOf(m.parent) === key)) continue;
    pushTo(byParent, key, list);
  }
  const merged = new Map<Element[], Element[]>();
  for (const siblings of byParent.values()) {
    if (siblings.length < 2) continue;
    // Largest first: each list not yet taken leads a cluster of the variants sharing one of its classes.
    const taken = new Set<Element[]>();
    for (const head of [...siblings].sort((a, b) => b.length - a.length)) {
      if (taken.has(head)) continue;
      taken.add(head);
      // Links each classed for its own role (a footer's help, feedback and settings) are no variants;
      // table rows have rules of their own (zebra rows, two-row records).
      if (head.length < 2 || head[0].name === 'tr') continue;
      const shared = (list: Element[]) => {
        const classes = pageClasses(head[0]).filter((c) => list.every((m) => pageClasses(m).includes(c)));
        return classes.length > 0 && head.every((m) => classes.every((c) => pageClasses(m).includes(c)));
      };
      // Entries classed as ads among the records (`li.result.ad`) are not one of their kinds: apart, the
      // list's selector can leave them out.
      const adverts = advertising(head[0]);
      const variants = siblings.filter(
        (list) =>
          list === head ||
          (!taken.has(list) &&
            list[0].name === head[0].name &&
            shared(list) &&
            alike(list[0], head[0]) &&
            advertising(list[0]) === adverts),
      );
      if (variants.length < 2) continue;
      for (const list of variants) taken.add(list);
      const union = variants.flat().sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
      for (const list of variants) merged.set(list, []);
      merged.set(head, union);
    }
  }
  return lists.map((list) => merged.get(list) ?? list).filter((list) => list.length > 0);
}

/** Same inner structure (most paths shared): zebra rows, not a question and its answer taking turns. */
export function alike(a: Element, b: Element): boolean {
  return overlap(shapeOf(a), shapeOf(b)) >= 0.5;
}

/** The share of the larger shape's paths the other shape holds too. */
function overlap(x: Set<string>, y: Set<string>): number {
  const shared = [...x].filter((p) => y.has(p)).length;
  return shared / Math.max(1, x.size, y.size);
}

/**
 * The same tags in the same places, nearly all of them, whatever their classes: records whose inner box
 * is classed for a state (a pinned thread's "sticky" wrapper, the others' "nonsticky") are records alike.
 */
function sameTags(a: Element, b: Element): boolean {
  const tag = (e: Element) => e.name;
  return overlap(shapeOf(a, tag), shapeOf(b, tag)) >= 0.8;
}

/**
 * Both lists' members in document order when, under every parent, they take turns; null otherwise.
 * Read from the members' places among their siblings: walking every parent's children for each pair
 * of lists cost, for a record of hundreds of values, the square of its values times its records.
 */
function alternating(a: Element[], b: Element[]): Element[] | null {
  if (Math.abs(a.length - b.length) > new Set(a.map((m) => m.parent)).size) return null;
  const side = new Map<Element, number>([...a.map((m) => [m, 0] as const), ...b.map((m) => [m, 1] as const)]);
  // Parents in the order their first member comes in the lists, each with its members.
  const byParent = new Map<unknown, Element[]>();
  for (const m of side.keys()) if (m.type === 'tag') pushTo(byParent, m.parent, m);
  const union: Element[] = [];
  for (const members of byParent.values()) {
    members.sort((x, y) => placeOf(x) - placeOf(y));
    let last = -1;
    for (const m of members) {
      const s = side.get(m) as number;
      if (s === last) return null;
      last = s;
      union.push(m);
    }
  }
  return union.length === side.size ? union : null;
}

/** Each node's index among its parent's children, counted once per parent. */
const places = new WeakMap<object, number>();

function placeOf(el: Element): number {
  let place = places.get(el);
  if (place === undefined) {
    (el.parent?.children ?? [el]).forEach((c, i) => places.set(c, i));
    place = places.get(el) ?? 0;
  }
  return place;
}

/**
 * A list continued in the next box: records of one classed kind filling two sibling boxes of one tag, one
 * right after the other (a forum's pinned threads in `ol.stickies`, then the others in `ol.threads`; a
 * list laid out in two columns), are one list in page order. Boxes holding anything besides the records,
 * or records of another shape, stay apart.
 */
export function mergeContinued(lists: Element[][], signatureOf: (el: Element) => string): Element[][] {
  const byParent = new Map<Element, Element[]>();
  for (const list of lists) {
    const parent = list[0].parent;
    if (!isElement(parent) || !list.every((m) => m.parent === parent)) continue;
    if (!/[.[]/.test(signatureOf(list[0]))) continue; // a bare tag (li, tr) fills menus too
    const children = elementChildren(parent).filter((c) => !isSkipped(c));
    if (children.length !== list.length) continue;
    byParent.set(parent, list);
  }
  const merged = new Map<Element[], Element[]>();
  for (const [parent, list] of byParent) {
    if (merged.has(list)) continue;
    let union = list;
    for (let next = nextBox(parent); next && byParent.has(next); next = nextBox(next)) {
      const more = byParent.get(next) as Element[];
      if (next.name !== parent.name || !sameKind(more[0], list[0])) break;
      if (!alike(more[0], list[0]) && !sameTags(more[0], list[0])) break;
      union = [...union, ...more];
      merged.set(more, []);
    }
    if (union !== list) merged.set(list, union);
  }
  return lists.map((list) => merged.get(list) ?? list).filter((list) => list.length > 0);
}

/**
 * Records of one kind in two boxes: the same tag and a class in common, though the boxes may mark their
 * records' state differently (every pinned thread "hot", none of the others).
 */
function sameKind(a: Element, b: Element): boolean {
  const classes = pageClasses(b);
  return a.name === b.name && pageClasses(a).some((c) => classes.includes(c));
}

/** The next element after `el` among its siblings (scripts and styles left out). */
function nextBox(el: Element): Element | null {
  for (let n = el.next; n; n = n.next) if (isElement(n) && !isSkipped(n)) return n;
  return null;
}

/**
 * Items of one list, some with a modifier class and the others with none (`<li class="no-space">`
 * beside `<li>` in a recipe's ingredients): the classed ones alone are part of the list. When every
 * element of their tag under their parents is either one of them or a plain element of the same inner
 * structure, the plain ones join them, in page order.
 */
export function withPlainSiblings(lists: Element[][], order: Map<Element, number>): Element[][] {
  return lists.map((list) => {
    if (list.length < 2 || list[0].name === 'tr' || pageClasses(list[0]).length === 0) return list;
    const members = new Set(list);
    const parents = new Set(list.map((m) => m.parent));
    const plain: Element[] = [];
    for (const parent of parents) {
      if (!isElement(parent)) return list;
      for (const c of elementChildren(parent)) {
        if (c.name !== list[0].name || members.has(c) || isSkipped(c)) continue;
        if (pageClasses(c).length > 0 || (c.attribs?.class ?? '').trim() !== '' || !alike(c, list[0])) return list;
        plain.push(c);
      }
    }
    if (plain.length === 0) return list;
    return [...list, ...plain].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  });
}
