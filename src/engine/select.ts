// Reading a parsed page: CSS selection and values, exactly as cheerio's `$(sel)`, `.find(sel).first()`,
// `.is(sel)`, `.text()`, `.attr(name)` and `.html()` give them, but on the document itself. cheerio's
// `load()` builds a new class per page, which pins every page's tree until a full collection (a third of
// a page's CPU went to the garbage collector); this module calls the same libraries cheerio calls
// (cheerio-select, domutils, parse5's serializer) with the same options, and compiles each selector once
// where its meaning cannot depend on the element it is searched from (see `compiled`).
import { select, some } from 'cheerio-select';
import { compile } from 'css-select';
import { parse, SelectorType, type Selector } from 'css-what';
import type { AnyNode, Document, Element } from 'domhandler';
import { find, hasChildren, isDocument, isTag, textContent } from 'domutils';
import { serializeOuter } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';

export type { AnyNode, Document, Element };

/** What cheerio passes to cheerio-select for a document loaded with its defaults. */
function options(context: AnyNode[], root: Document) {
  return {
    context,
    root,
    xmlMode: undefined,
    lowerCaseTags: undefined,
    lowerCaseAttributeNames: undefined,
    pseudos: undefined,
    quirksMode: undefined,
  };
}

/** cheerio's test for selectors searched from the scope itself rather than from its children. */
const CONTEXT_SELECTOR = /^\s*(?:[+~]|:scope\b)/;
/** cheerio-select's positional filters, which it evaluates outside css-select. */
const POSITIONAL = new Set(['first', 'last', 'eq', 'nth', 'gt', 'lt', 'even', 'odd']);
const TRAVERSAL = new Set<string>([
  SelectorType.Adjacent,
  SelectorType.Child,
  SelectorType.Descendant,
  SelectorType.Parent,
  SelectorType.Sibling,
  SelectorType.ColumnCombinator,
]);

type Query = ReturnType<typeof compile<AnyNode, Element>>;
/** A selector's compiled query for each kind of scope, or null where it must be compiled per search. */
interface Compiled {
  fromRoot: Query | null;
  fromElement: Query | null;
}
const cache = new Map<string, Compiled>();
const CACHE_SIZE = 512;

/**
 * cheerio-select compiles a selector against the elements it searches from: it prefixes `:scope` when
 * they are elements (a list element), and `:scope` itself names them. Searched from the document, a
 * selector without `:scope` or positional filters compiles to the same query whatever the document.
 * Searched from an element, so does one made of compound selectors only (no combinator, no selector
 * inside a pseudo-class): every candidate is a descendant of the element, so the `:scope` prefix holds.
 */
function compiled(selector: string): Compiled {
  let entry = cache.get(selector);
  if (entry) return entry;
  let tokens: Selector[][] | null = null;
  try {
    tokens = parse(selector);
  } catch {
    // Left to cheerio-select, which throws the same error.
  }
  const query =
    tokens && tokens.length > 0 && !CONTEXT_SELECTOR.test(selector) && !contextual(tokens) ? build(selector) : null;
  entry = { fromRoot: query, fromElement: tokens && compound(tokens) ? query : null };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(selector, entry);
  return entry;
}

const isTraversal = (t: Selector) => TRAVERSAL.has(t.type);
const nested = (t: Selector): Selector[][] | null =>
  t.type === SelectorType.Pseudo && Array.isArray(t.data) ? t.data : null;

/** Whether the selector's meaning depends on what it is searched from: `:scope`, a leading combinator, a positional filter. */
function contextual(tokens: Selector[][]): boolean {
  return tokens.some(
    (rule) =>
      (rule.length > 0 && isTraversal(rule[0])) ||
      rule.some(
        (t) =>
          (t.type === SelectorType.Pseudo && (t.name === 'scope' || POSITIONAL.has(t.name))) ||
          contextual(nested(t) ?? []),
      ),
  );
}

/** Compound selectors only: no combinator and no selector inside a pseudo-class. */
const compound = (tokens: Selector[][]): boolean =>
  tokens.every((rule) => !rule.some((t) => isTraversal(t) || nested(t)));

function build(selector: string): Query | null {
  try {
    return compile<AnyNode, Element>(selector, { xmlMode: undefined });
  } catch {
    return null;
  }
}

/** `$(selector)` / `$(scope).find(selector)`: the matches below `scope`, in document order. */
export function selectAll(scope: AnyNode, selector: string, root: Document, limit = Infinity): Element[] {
  const query = scope === root ? compiled(selector).fromRoot : compiled(selector).fromElement;
  const children = hasChildren(scope) ? scope.children : [];
  if (query) {
    // cheerio-select's `:scope` prefix, kept: a match is reached from the element through elements
    // only (not through a template's content, say).
    const test =
      scope !== root && scope.parent && isTag(scope.parent) ? (el: AnyNode) => query(el) && reaches(el, scope) : query;
    return find(test, children, true, limit) as Element[];
  }
  const elems = CONTEXT_SELECTOR.test(selector) ? [scope] : children;
  return select(selector, elems, options([scope], root), limit === 1 ? Infinity : limit);
}

function reaches(el: AnyNode, scope: AnyNode): boolean {
  for (let at: AnyNode | null = el; at; at = at.parent && isTag(at.parent) ? at.parent : null)
    if (at === scope) return true;
  return false;
}

/** `$(scope).find(selector).first()`, or the scope itself without a selector. */
export function selectFirst(scope: AnyNode, selector: string | undefined, root: Document): AnyNode | undefined {
  if (!selector) return scope;
  return selectAll(scope, selector, root, 1)[0];
}

/** `$(node).is(selector)`. */
export function matches(node: AnyNode, selector: string): boolean {
  if (!isTag(node)) return false;
  // cheerio-select compiles it without a context: the same query as from the document.
  const query = compiled(selector).fromRoot;
  return query ? query(node) : some([node], selector, {});
}

/** `.text()`: the text of the node and its descendants. */
export const textOf = (node: AnyNode): string => textContent(node);

/** `.html()`: the node's content serialized as the HTML standard does; null when it has none. */
export function htmlOf(node: AnyNode): string | null {
  if (!hasChildren(node)) return null;
  let html = '';
  for (const child of node.children) {
    // cheerio renders a document among them (a template's content) as its children.
    const parts = isDocument(child) ? child.children : [child];
    for (const part of parts) html += serializeOuter(part as never, { treeAdapter: adapter });
  }
  return html;
}

/** Attributes cheerio reports by their name when present (the DOM's boolean attributes). */
const BOOLEAN_ATTRIBUTE =
  /^(?:autofocus|autoplay|async|checked|controls|defer|disabled|hidden|loop|multiple|open|readonly|required|scoped|selected)$/i;

/** `.attr(name)`, with cheerio's defaults for an option's and a checkbox's value. */
export function attrOf(node: AnyNode, name: string): string | undefined {
  if (!isTag(node)) return undefined;
  if (Object.hasOwn(node.attribs, name)) return BOOLEAN_ATTRIBUTE.test(name) ? name : node.attribs[name];
  if (node.name === 'option' && name === 'value') return textContent(node.children);
  if (node.name === 'input' && (node.attribs.type === 'radio' || node.attribs.type === 'checkbox') && name === 'value')
    return 'on';
  return undefined;
}
