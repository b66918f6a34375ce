// XPath 1.0 on the engine's own tree (domhandler nodes, as parse5 or the fast path built them), by the
// `xpath` library. That library walks a W3C DOM (nodeName, attributes.item(k), ownerElement, ...), which
// domhandler's nodes only partly are; each node it visits is seen through a small view object made on
// first use and kept per node, so the tree itself is never changed or copied. Expressions are parsed once.
import { createRequire } from 'node:module';
import { isDirective } from 'domhandler';
import { isDocument, isTag, isText, isComment } from 'domutils';
import type { AnyNode, Document } from './select.js';
import { walk, walkPlan, type WalkPlan } from './xpath-walk.js';

/** What an XPath step selected: a tree node (element, text, document) or an attribute's value. */
export type XPathMatch = { node: AnyNode } | { value: string };

const DOCUMENT_TYPE = 10;

class AttrView {
  readonly nodeType = 2;
  readonly localName: string;
  readonly nodeName: string;
  readonly namespaceURI = null;
  readonly prefix = null;
  readonly childNodes = [];
  readonly firstChild = null;
  readonly nextSibling = null;
  readonly previousSibling = null;
  readonly parentNode = null;
  constructor(
    readonly name: string,
    readonly value: string,
    readonly ownerElement: NodeView,
  ) {
    this.localName = name;
    this.nodeName = name;
  }
  get nodeValue(): string {
    return this.value;
  }
  get ownerDocument(): NodeView {
    return this.ownerElement.ownerDocument;
  }
}

/** A W3C-DOM-shaped view of one domhandler node, enough for the `xpath` library. */
class NodeView {
  #children: NodeView[] | null = null;
  #attributes: { length: number; item(k: number): AttrView } | null = null;
  constructor(
    readonly node: AnyNode,
    readonly views: Views,
  ) {}
  get nodeType(): number {
    // domhandler's own numbers, but the doctype (a "directive" in this tree) is not an element.
    return isDirective(this.node) ? DOCUMENT_TYPE : this.node.nodeType;
  }
  get nodeName(): string {
    const n = this.node;
    if (isTag(n)) return n.name;
    if (isText(n)) return '#text';
    if (isComment(n)) return '#comment';
    if (isDocument(n)) return '#document';
    return '#other';
  }
  get localName(): string | null {
    return isTag(this.node) ? this.node.name : null;
  }
  // HTML elements count as in no namespace, as browsers' XPath on HTML documents reads unprefixed names.
  readonly namespaceURI = null;
  readonly prefix = null;
  get nodeValue(): string | null {
    const n = this.node;
    return isText(n) || isComment(n) ? n.data : null;
  }
  get parentNode(): NodeView | null {
    return this.node.parent ? this.views.of(this.node.parent) : null;
  }
  get ownerDocument(): NodeView {
    return this.views.of(this.views.root);
  }
  get childNodes(): NodeView[] {
    const n = this.node;
    this.#children ??= 'children' in n ? n.children.map((c) => this.views.of(c)) : [];
    return this.#children;
  }
  // Walks go child by child (firstChild, nextSibling): no array of views is made for them.
  get firstChild(): NodeView | null {
    const n = this.node;
    return 'children' in n && n.children.length > 0 ? this.views.of(n.children[0]) : null;
  }
  get lastChild(): NodeView | null {
    const n = this.node;
    return 'children' in n && n.children.length > 0 ? this.views.of(n.children[n.children.length - 1]) : null;
  }
  get nextSibling(): NodeView | null {
    return this.node.next ? this.views.of(this.node.next) : null;
  }
  get previousSibling(): NodeView | null {
    return this.node.prev ? this.views.of(this.node.prev) : null;
  }
  get attributes(): { length: number; item(k: number): AttrView } | null {
    const n = this.node;
    if (!isTag(n)) return null;
    if (!this.#attributes) {
      const list = Object.entries(n.attribs).map(([k, v]) => new AttrView(k, v, this));
      this.#attributes = { length: list.length, item: (k: number) => list[k] };
    }
    return this.#attributes;
  }
}

/** The views of one document's nodes, each made once. */
class Views {
  readonly #made = new WeakMap<AnyNode, NodeView>();
  constructor(readonly root: Document) {}
  of(node: AnyNode): NodeView {
    let view = this.#made.get(node);
    if (!view) {
      view = new NodeView(node, this);
      this.#made.set(node, view);
    }
    return view;
  }
}

const viewsByDocument = new WeakMap<Document, Views>();
/** The library's parsed expression (its type declarations omit `parse`). */
interface Parsed {
  evaluate(options: { node: unknown; isHtml: boolean }): unknown;
}
// Loaded without the library's type declarations: they reference the DOM library, which would give every
// file of the program the DOM's Headers and ReadableStream in place of Node's. Only `parse` is used.
const require = createRequire(import.meta.url);
const parseXPath = (require('xpath') as { parse: (this: void, expression: string) => Parsed }).parse;
const compiled = new Map<string, Parsed>();
const CACHE_SIZE = 512;

/**
 * A step after `//` that is a name test with attribute-only predicates (`//h1`, `//tr[@class='brand']`), up
 * to where the path goes on (`/`, `|`, `)`, `]`, whitespace or the end).
 */
const SIMPLE_STEP = /^[A-Za-z_][\w.-]*(?:\[@[A-Za-z_][\w.-]*(?:\s*=\s*(?:'[^']*'|"[^"]*"))?\])*(?=$|[/|)\]\s])/;

/**
 * The same expression with `//X` written `/descendant::X` where X is a SIMPLE_STEP. XPath defines `//` as
 * `/descendant-or-self::node()/`, and for a step without positional predicates both select the same nodes in
 * the same order; the library evaluates the second form in one walk instead of collecting every node of the
 * page first (two to three times faster on a 14 KB page). Quoted strings are left alone.
 */
export function descendantForm(expression: string): string {
  let out = '';
  for (let i = 0; i < expression.length;) {
    const c = expression[i];
    if (c === "'" || c === '"') {
      const end = expression.indexOf(c, i + 1);
      const stop = end < 0 ? expression.length : end + 1;
      out += expression.slice(i, stop);
      i = stop;
    } else if (c === '/' && expression[i + 1] === '/' && SIMPLE_STEP.test(expression.slice(i + 2))) {
      out += '/descendant::';
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The parsed expression (cached); throws the library's error for one that does not parse. */
export function compileXPath(expression: string): Parsed {
  let parsed = compiled.get(expression);
  if (!parsed) {
    parsed = parseXPath(descendantForm(expression));
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
    compiled.set(expression, parsed);
  }
  return parsed;
}

interface XPathResult {
  toArray?: () => Array<NodeView | AttrView>;
  stringValue(): string;
}

/**
 * Evaluates `expression` with `scope` as the context node: the nodes it selects in document order (at most
 * `limit`), attributes as their values; an expression giving a string, number or boolean gives that text.
 */
export function selectXPath(scope: AnyNode, expression: string, root: Document, limit = Infinity): XPathMatch[] {
  const plan = planOf(expression);
  if (plan) return walk(plan, scope, root, limit);
  return libraryXPath(scope, expression, root, limit);
}

const plans = new Map<string, WalkPlan | null>();

/** The expression's direct walk (xpath-walk.ts), or null when only the library reads it; cached. */
function planOf(expression: string): WalkPlan | null {
  let plan = plans.get(expression);
  if (plan === undefined) {
    plan = walkPlan(expression);
    if (plans.size >= CACHE_SIZE) plans.delete(plans.keys().next().value!);
    plans.set(expression, plan);
  }
  return plan;
}

/** `selectXPath` by the `xpath` library alone (the differential test compares the two). */
export function libraryXPath(scope: AnyNode, expression: string, root: Document, limit = Infinity): XPathMatch[] {
  let views = viewsByDocument.get(root);
  if (!views) {
    views = new Views(root);
    viewsByDocument.set(root, views);
  }
  const result = compileXPath(expression).evaluate({ node: views.of(scope), isHtml: true }) as XPathResult;
  if (typeof result.toArray !== 'function') return [{ value: result.stringValue() }];
  const nodes = result.toArray();
  const out: XPathMatch[] = [];
  for (let i = 0; i < nodes.length && out.length < limit; i++) {
    const n = nodes[i];
    out.push(n instanceof AttrView ? { value: n.value } : { node: n.node });
  }
  return out;
}

/** Null when the expression is valid XPath 1.0 (checked by evaluating it on an empty document), else why not. */
export function xpathProblem(expression: string, probe: Document): string | null {
  try {
    libraryXPath(probe, expression, probe, 1);
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

/**
 * Whether the expression's cost is provably about linear in the page: at most one `//`, no `following::` or
 * `preceding::` axis, and no path inside a predicate (which would be evaluated once per candidate node).
 */
export function boundedXPath(expression: string): boolean {
  if (expression.split('//').length > 2 || /(?:following|preceding)::/.test(expression)) return false;
  let depth = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth > 0 && (c === '/' || expression.startsWith('::', i))) return false;
  }
  return true;
}
