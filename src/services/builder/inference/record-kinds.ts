// Records of one kind whatever their class names say, for grouping.ts: the classes that say what an
// element is (less those naming the one element, an id or slug written as a class, and those marking a
// state some records have and others lack), lists of one kind at every depth of a thread, and records
// alike by their insides or their tags where their classes differ. Sites write ids and states in words
// of their own, so they are told by how the page uses them, not by what they say.
import { isSkipped } from './dom-text.js';
import { alike, shapeOf } from './merge-lists.js';
import { pushTo } from './multimap.js';
import { namesAdvert } from './page-regions.js';
import { elementChildren, isElement, pageClasses, signature, type Element } from './selectors.js';

/** Siblings compared for their kind at most: a long list of rows is compared by its first ones. */
const MAX_KIND_SIBLINGS = 300;

/**
 * Each element's kind classes:
 * - a class no other element of the page carries, beside classes that others carry too, names one element
 *   (a post's own id or slug, "post-8812", "entry-my-first-trip"), not a kind: left out. An element
 *   classed by its own names alone (a page's columns, "filterbox" beside "productlist") keeps them;
 * - a class that, among siblings of one tag sharing a class, some carry and others lack marks a state or
 *   a variant ("threadbit hot lock" beside "threadbit", "Item Alt" beside "Item"): left out everywhere;
 *   but a class naming an ad ("result ad") says the entry is another kind, so it stays.
 */
export function kindClasses(all: Element[]): (el: Element) => string[] {
  const uses = new Map<string, number>();
  for (const el of all) for (const c of pageClasses(el)) uses.set(c, (uses.get(c) ?? 0) + 1);
  const onceUsed = (c: string) => (uses.get(c) ?? 0) <= 1;
  const sharedOf = (el: Element) => {
    const classes = pageClasses(el);
    return classes.every(onceUsed) ? classes : classes.filter((c) => !onceUsed(c));
  };
  // A class that some siblings of one kind carry and others lack marks a state wherever it is used (a
  // list whose every item is "separator-top" beside one where the first item is not).
  const states = new Set<string>();
  const parents = new Set(all.map((e) => e.parent).filter(isElement));
  for (const parent of parents) {
    const byTag = new Map<string, Element[]>();
    for (const c of elementChildren(parent)) if (!isSkipped(c)) pushTo(byTag, c.name, c);
    for (const siblings of byTag.values()) {
      const classes = siblings.slice(0, MAX_KIND_SIBLINGS).map(sharedOf);
      for (const own of classes) {
        if (own.length < 2) continue;
        const kin = classes.filter((other) => other.some((c) => own.includes(c)));
        if (kin.length < 2) continue;
        const core = own.filter((c) => kin.every((other) => other.includes(c)));
        if (core.length > 0) for (const c of own) if (!core.includes(c) && !namesAdvert(c)) states.add(c);
      }
    }
  }
  const kinds = new Map<string, string[]>();
  return (el) => {
    const own = sharedOf(el);
    const key = own.join(' ');
    let kind = kinds.get(key);
    if (kind === undefined) {
      const lasting = own.filter((c) => !states.has(c));
      kinds.set(key, (kind = lasting.length > 0 ? lasting : own));
    }
    return kind;
  };
}

/**
 * A list of one kind split where its members are classed differently and built differently: elements
 * told apart only by a class of their own or a state are records alike only when their insides are
 * (a product beside a product; not a page's "back to top" box beside its news box).
 */
export function splitUnlike(list: Element[]): Element[][] {
  const byClasses = new Map<string, Element[]>();
  for (const el of list) pushTo(byClasses, signature(el), el);
  if (byClasses.size < 2) return [list];
  const parts = [...byClasses.values()].sort((a, b) => b.length - a.length);
  const head = parts[0][0];
  const joined = new Set(parts.filter((p) => p === parts[0] || alike(p[0], head) || holdsTheOther(p[0], head)).flat());
  const rest = parts.filter((p) => !joined.has(p[0]));
  return [list.filter((e) => joined.has(e)), ...rest];
}

/** Paths a record's shape needs for one shape holding the other to say they are alike. */
const MIN_HELD_PATHS = 4;

/**
 * One of two elements holds nearly all the other's inside, and more (a comment with its replies beside
 * one without any; a product with a former price beside one without).
 */
export function holdsTheOther(a: Element, b: Element): boolean {
  const [x, y] = [shapeOf(a), shapeOf(b)];
  const [small, large] = x.size <= y.size ? [x, y] : [y, x];
  if (small.size < MIN_HELD_PATHS) return false;
  return [...small].filter((p) => large.has(p)).length >= small.size * 0.8;
}

/** Tags read alone tell records apart only in a record of some structure (not a paragraph and its span). */
const MIN_TAG_PATHS = 4;

/**
 * Whether a member has the tags of most members in the same places, nearly all of them and nearly
 * nothing else (read from the tags alone, classes left out).
 */
export function sameTagsAsMost(elements: Element[]): (i: number) => boolean {
  let shapes: Set<string>[] | undefined;
  let common: Set<string> | undefined;
  return (i) => {
    if (!shapes || !common) {
      shapes = elements.map((e) => shapeOf(e, (c) => c.name));
      const frequency = new Map<string, number>();
      for (const shape of shapes) for (const path of shape) frequency.set(path, (frequency.get(path) ?? 0) + 1);
      common = new Set([...frequency].filter(([, n]) => n > elements.length / 2).map(([p]) => p));
    }
    const own = shapes[i];
    const shared = [...own].filter((p) => (common as Set<string>).has(p)).length;
    return common.size >= MIN_TAG_PATHS && shared >= common.size * 0.8 && shared >= own.size * 0.8;
  };
}

/** Classed lists gathered by kind: one tag, and a class shared with another list of the kind. */
export function kindsOfLists(lists: Element[][]): Element[][][] {
  const byTag = new Map<string, Element[][]>();
  for (const list of lists) pushTo(byTag, list[0].name, list);
  const kinds: Element[][][] = [];
  for (const same of byTag.values()) {
    const left = [...same];
    while (left.length > 0) {
      const kind = [left.shift() as Element[]];
      const classes = new Set(pageClasses(kind[0][0]));
      for (let grew = true; grew;) {
        grew = false;
        for (let i = 0; i < left.length; i++) {
          if (!pageClasses(left[i][0]).some((c) => classes.has(c))) continue;
          for (const c of pageClasses(left[i][0])) classes.add(c);
          kind.push(...left.splice(i--, 1));
          grew = true;
        }
      }
      kinds.push(kind);
    }
  }
  return kinds;
}
