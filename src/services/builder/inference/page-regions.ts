// Where on the page a group stands: inside the site's navigation, inside its chrome (header, footer,
// sidebar) or in an ad. Read from landmark tags and roles, from the words of class names and ids, and
// from the page's one `<main>` (what stands beside it is not the content); a box holding most of the
// page's text is its wrapper whatever it is called. Used by grouping.ts to set back groups that are not
// the page's content.
import type { AnyNode } from 'domhandler';
import { isElement, type Element } from './selectors.js';

/**
 * The words of an element's class, id (and role): class names are compounds written in every style
 * ("secondSubNav", "main_menu", "site-footer", "jsNavMenu"), so they are split at case changes, hyphens
 * and underscores before their words are read.
 */
function namingWords(el: Element, withRole = true): string[] {
  return wordsOf(`${el.attribs?.class ?? ''} ${el.attribs?.id ?? ''} ${withRole ? (el.attribs?.role ?? '') : ''}`);
}

function wordsOf(names: string): string[] {
  return names
    .split(/[\s_-]+|(?<=[a-z])(?=[A-Z])/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}
const NAVIGATION_WORDS = new Set(['nav', 'navbar', 'navigation', 'menu', 'menubar']);
/** A masthead is the page's header. */
const CHROME_WORDS = new Set([
  'breadcrumb',
  'breadcrumbs',
  'footer',
  'header',
  'masthead',
  'sidebar',
  'pagination',
  'pager',
  // ARIA's landmark roles for a header, a footer and a sidebar.
  'banner',
  'contentinfo',
  'complementary',
]);
const AD_WORDS = new Set(['ad', 'ads', 'advert', 'advertisement', 'sponsored', 'promoted', 'adslot']);

/** Inside the site's navigation (a `nav`, a menu): links to its sections, never records of a page. */
export function insideNavigation(el: Element, wrapsPage: (p: Element) => boolean): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) {
    if (wrapsPage(p)) continue;
    if (p.name === 'nav') return true;
    if (namingWords(p).some((w) => NAVIGATION_WORDS.has(w))) return true;
  }
  return false;
}

/**
 * Inside navigation, a header, footer or sidebar; a box holding most of the page's text is its wrapper
 * whatever its name (`div#nav-menu-top` around the whole content).
 */
export function insideChrome(el: Element, wrapsPage: (p: Element) => boolean): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) {
    if (wrapsPage(p)) continue;
    if (['nav', 'header', 'footer', 'aside'].includes(p.name)) return true;
    if (namingWords(p).some((w) => NAVIGATION_WORDS.has(w) || CHROME_WORDS.has(w))) return true;
  }
  return outsideMain(el);
}

const mainElements = new WeakMap<AnyNode, Element | null>();

/** The page's one main element (`<main>` or `role="main"`), null when it has none or several. */
function mainOf(el: Element): Element | null {
  let root: AnyNode = el;
  while (root.parent) root = root.parent;
  let main = mainElements.get(root);
  if (main === undefined) {
    const found: Element[] = [];
    const stack: AnyNode[] = [root];
    while (stack.length > 0 && found.length < 2) {
      const node = stack.pop() as AnyNode;
      if (isElement(node) && (node.name === 'main' || node.attribs?.role === 'main')) found.push(node);
      else if ('children' in node) for (const child of node.children) stack.push(child);
    }
    mainElements.set(root, (main = found.length === 1 ? found[0] : null));
  }
  return main;
}

/**
 * Beside the page's main element, which its author marked as the content: neither inside it nor around
 * it (a sidebar's link lists beside `<main>`, whatever their classes are called).
 */
function outsideMain(el: Element): boolean {
  const main = mainOf(el);
  if (!main) return false;
  for (let p: AnyNode | null = el; p; p = p.parent) if (p === main) return false;
  for (let p: AnyNode | null = main.parent; p; p = p.parent) if (p === el) return false;
  return true;
}

/** A class naming an ad ("ad", "sponsored-result", "adSlot"): a kind of entry, never a state of a record. */
export function namesAdvert(cls: string): boolean {
  return wordsOf(cls).some((w) => AD_WORDS.has(w));
}

/** Ads: the element or a near ancestor is classed as one ("ad", "ads", "sponsored", "promoted"). */
export function advertising(el: Element): boolean {
  let p: Element | null = el;
  for (let depth = 0; p && isElement(p) && depth < 4; depth++, p = p.parent as Element | null) {
    if (namingWords(p, false).some((w) => AD_WORDS.has(w))) return true;
  }
  return false;
}
