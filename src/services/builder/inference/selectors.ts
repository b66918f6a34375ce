// Stable CSS selectors: classes that look generated (CSS modules, CSS-in-JS hashes) or describe a
// state are never used, and a position (:nth-of-type) only when no class or attribute tells the
// elements apart.
import type { AnyNode, Element } from 'domhandler';
import { selectAll } from '../../../engine/select.js';
import { fastFind } from './fast-find.js';

export type { Element };

const STATE_CLASSES = new Set([
  'active',
  'selected',
  'current',
  'odd',
  'even',
  'first',
  'last',
  'hover',
  'focus',
  'open',
  'closed',
  'visible',
  'hidden',
  'show',
  'hide',
  'clearfix',
  'clear',
  'disabled',
  'enabled',
  'is-active',
  'is-selected',
  'in',
  'fade',
  'collapse',
  'collapsed',
  'lazy',
  'lazyload',
  'lazyloaded',
  'loaded',
  'js',
  'no-js',
  'featured',
  'highlight',
  'highlighted',
  'new',
  'sale',
  'sponsored-hidden',
  // A record's relations, which vary between records of one list: a comment having replies, by a user.
  'parent',
  'has-children',
  'has-replies',
  'byuser',
  'bypostauthor',
  // A thread's or message's state, which varies between records of one list: pinned to the top, locked,
  // much read, not read yet (forums of every make write it so).
  'sticky',
  'nonsticky',
  'non-sticky',
  'pinned',
  'unpinned',
  'lock',
  'locked',
  'hot',
  'read',
  'unread',
  // Values written as classes ("star-rating Three") differ between records of one list.
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'half',
]);

/**
 * A class that marks a state, a variant, a position or a value (active, odd, a BEM modifier, depth-2,
 * stars_5): it differs between records of one list, so it neither groups them nor selects them.
 */
export function isStateClass(name: string): boolean {
  if (STATE_CLASSES.has(name.toLowerCase())) return true;
  if (name.includes('--')) return true; // a BEM modifier varies between records of one list
  if (/(?:depth|level|lvl|indent|nested)[-_]?\d+$/i.test(name)) return true; // a reply's depth: depth-1, depth-2
  if (/(?:^|[-_])(?:alt|alternate|odd|even|stripe|striped)$/i.test(name)) return true; // zebra rows: li.job-alt
  if (/(?:star|rating|score)[\w-]*\d/i.test(name)) return true; // a value written as a class: stars_5, a-star-small-4-5
  if (/^[a-z]{1,3}[-_]?\d+$/i.test(name)) return true; // a value or a position written as a short class: r45, s5, n-12
  return false;
}

/**
 * A class a build tool generated (CSS modules, CSS-in-JS hashes) or one not worth quoting (Tailwind's
 * "md:flex"): the same on every element of one build of the page, so it tells a page's records from its
 * other boxes, but the next build of the site names them anew, so no selector the Agent keeps uses it.
 */
export function isGeneratedClass(name: string): boolean {
  if (!/^[A-Za-z_-][A-Za-z0-9_-]*$/.test(name)) return true; // Tailwind "md:flex", escapes: not worth quoting
  if (/^(css|sc|jsx|emotion|styled|svelte|chakra|mui|tw)-[A-Za-z0-9]+/i.test(name) && /\d/.test(name)) return true;
  if (/^(css|sc|jsx|svelte)-[a-z0-9]{5,}$/i.test(name)) return true;
  if (/__[A-Za-z0-9_-]{5,}$/.test(name) && /\d/.test(name.split('__').pop() ?? '')) return true; // CSS modules: Card_title__3xYz1
  if (/_[A-Za-z0-9]{5,}$/.test(name) && /[0-9]/.test(name) && /[A-Z]/.test(name)) return true;
  const digits = (name.match(/\d/g) ?? []).length;
  if (name.length >= 6 && digits >= 3 && digits / name.length > 0.25) return true; // "x7f3a9c"
  if (/^[a-z]{1,2}[A-Z0-9][A-Za-z0-9]{3,}$/.test(name) && /\d/.test(name)) return true; // "aB3xY"
  return false;
}

/** A class name that a build tool generated, or that changes with state: not a stable hook. */
export function isUnstableClass(name: string): boolean {
  return isStateClass(name) || isGeneratedClass(name);
}

// A page repeats a few hundred class attributes over thousands of elements: each is read once. The
// arrays are shared, so callers never change them.
const classCache = new Map<string, string[]>();
const CLASS_CACHE_MAX = 20_000;

export function stableClasses(el: Element): string[] {
  const cls = el.attribs?.class;
  if (!cls) return [];
  let stable = classCache.get(cls);
  if (!stable) {
    if (classCache.size >= CLASS_CACHE_MAX) classCache.clear();
    stable = [...new Set(cls.split(/\s+/).filter((c) => c !== '' && !isUnstableClass(c)))].sort();
    classCache.set(cls, stable);
  }
  return stable;
}

/**
 * A record's own id written as a class ("post-1886", "mbrName_686D3331C671D65DC578CD147CF323DA"): a word
 * and a number or a long hex run. Each record carries its own, so it tells no kind of box.
 */
export function isIdClass(name: string): boolean {
  return /[-_:](?:\d{3,}|[0-9A-Fa-f]{16,})$/.test(name);
}

/** Attributes that name what an element is, kept in its signature (they outlive hashed classes). */
const SIGNATURE_ATTRIBUTES = ['data-testid', 'data-test', 'data-qa', 'itemprop', 'data-component-type'];

const pageClassCache = new Map<string, string[]>();

/**
 * The classes that say what an element is on this page: its stable ones and those a build generated
 * (see isGeneratedClass), less those marking a state and a record's own id. A build names one kind of box
 * alike all over one page, so its classes tell a page's records from its other boxes. For comparing the
 * page's elements with each other (grouping records, telling one kind of box from another), never for a
 * selector.
 */
export function pageClasses(el: Element): string[] {
  const cls = el.attribs?.class;
  if (!cls) return [];
  // An attribute naming what the element is (a test id) says it better than generated classes, which
  // may also differ between its instances (styles computed per record).
  if (SIGNATURE_ATTRIBUTES.some((a) => el.attribs[a])) return stableClasses(el);
  let kept = pageClassCache.get(cls);
  if (!kept) {
    if (pageClassCache.size >= CLASS_CACHE_MAX) pageClassCache.clear();
    kept = [...new Set(cls.split(/\s+/).filter((c) => c !== '' && !isStateClass(c) && !isIdClass(c)))].sort();
    pageClassCache.set(cls, kept);
  }
  return kept;
}

export function isElement(node: AnyNode | null | undefined): node is Element {
  return !!node && (node.type === 'tag' || node.type === 'script' || node.type === 'style');
}

/**
 * Tag plus the page's classes (or those given, see pageClasses) and naming attributes: elements with the
 * same signature look alike on this page. A comparison, not a selector.
 */
export function signature(el: Element, classes = pageClasses(el)): string {
  const base = classes.length > 0 ? `${el.name}.${classes.join('.')}` : el.name;
  const attrs = SIGNATURE_ATTRIBUTES.filter((a) => el.attribs?.[a]).map((a) => `[${a}=${el.attribs[a]}]`);
  return attrs.length > 0 ? `${base}${attrs.join('')}` : base;
}

/** The simplest form of one step: tag with its classes, e.g. `div.card`. */
export function stepSelector(el: Element, classes = stableClasses(el)): string {
  return classes.length > 0 ? `${el.name}.${classes.join('.')}` : el.name;
}

/**
 * The stems of build-generated class names ("IngredientsGroup_item__48J1c" -> "IngredientsGroup_item"):
 * the hash changes with every build of the site, the stem does not, so `[class*="IngredientsGroup_item__"]`
 * is a hook where no stable class is left. Short stems ("root", "item") would match too much.
 */
export function classStems(el: Element): string[] {
  const stems = (el.attribs?.class ?? '')
    .split(/\s+/)
    .map((c) => c.match(/^([A-Za-z][\w-]*?)__[A-Za-z0-9_+-]{4,}$/)?.[1])
    .filter((c): c is string => c !== undefined && c.length >= 8 && !c.includes('--') && /[a-z]/.test(c));
  return [...new Set(stems)].sort();
}

/** A step for an element: its stable classes, else its class stems, else its tag. */
export function hookSelector(el: Element): string {
  const classes = stableClasses(el);
  if (classes.length > 0) return stepSelector(el, classes);
  const stems = classStems(el);
  return stems.length > 0 ? `${el.name}${stems.map((s) => `[class*=${cssString(`${s}__`)}]`).join('')}` : el.name;
}

export function cssString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * `$(scope).find(selector)` as the engine reads it at run time (its selection compiles a selector once
 * rather than per record, which the builder's thousands of tries rely on); null for a selector that
 * does not parse. `limit` stops at that many matches.
 */
export function safeFind(scope: Element, selector: string, limit = Infinity): Element[] | null {
  let root: AnyNode = scope;
  while (root.parent) root = root.parent;
  if (root.type !== 'root') return null;
  const fast = fastFind(scope, selector, limit);
  if (fast) return fast;
  try {
    return selectAll(scope, selector, root, limit);
  } catch {
    return null;
  }
}

export function elementChildren(el: Element): Element[] {
  return (el.children ?? []).filter((c): c is Element => c.type === 'tag');
}

/** 1-based position among the parent's children of the same tag (for :nth-of-type). */
export function nthOfType(el: Element): number {
  const parent = el.parent;
  if (!parent || !('children' in parent)) return 1;
  let n = 0;
  for (const c of parent.children) {
    if (c.type === 'tag' && c.name === el.name) n++;
    if (c === el) return n;
  }
  return 1;
}

/** Attributes whose value names what an element is (schema.org, data hooks, test ids). */
export const NAMING_ATTRIBUTES = [
  'itemprop',
  'data-field',
  'data-testid',
  'data-test',
  'data-qa',
  'data-name',
  'name',
  'property',
];
