// A direct tree walk for the XPath expressions definitions use most: location paths of child (`/`) and
// descendant (`//`) steps with element names or `*`, predicates `[@a]`, `[@a='v']`, `[contains(@a,'v')]`
// and `[n]`, ending in an element, `text()` or `@name`. Such a path is evaluated the way CSS selectors are
// matched: every node below the context (or the document) is visited once in document order and tested
// from its last step back to the context, so the result is in document order without duplicates, and the
// walk stops at the first match when only one is wanted. The meaning is the `xpath` library's on the HTML
// view of xpath.ts (names and attribute names compared case-insensitively, any namespace): anything this
// module cannot read is left to the library (`walkPlan` returns null), and a differential test compares
// the two on real pages.
import type { AnyNode, Document, Element } from 'domhandler';
import { isDocument, isTag, isText } from 'domutils';

type Pred =
  { kind: 'has'; name: string } | { kind: 'eq' | 'contains'; name: string; value: string } | { kind: 'pos'; n: number };

interface Step {
  /** `/` (child) or `//` (a child of the previous step's node or of any of its descendants). */
  deep: boolean;
  /** Lower-cased element name, '*' for any element, or null for `text()`. */
  name: string | null;
  preds: Pred[];
}

export interface WalkPlan {
  absolute: boolean;
  steps: Step[];
  /** The final `@name` (lower-cased): the steps' elements give that attribute's values. */
  attribute: string | null;
}

export type WalkMatch = { node: AnyNode } | { value: string };

const NAME = /^[A-Za-z_][\w.-]*/;
const LITERAL = /^(?:'([^']*)'|"([^"]*)")/;

/** The expression's plan, or null when it is outside what this module reads. */
export function walkPlan(expression: string): WalkPlan | null {
  let rest = expression;
  let absolute = false;
  let deep = false;
  if (rest.startsWith('//')) [absolute, deep, rest] = [true, true, rest.slice(2)];
  else if (rest.startsWith('/')) [absolute, rest] = [true, rest.slice(1)];
  else if (rest.startsWith('.//')) [deep, rest] = [true, rest.slice(3)];
  else if (rest.startsWith('./')) rest = rest.slice(2);
  const steps: Step[] = [];
  let attribute: string | null = null;
  for (;;) {
    if (rest.startsWith('@')) {
      // An attribute of the context itself, or of the previous step's elements; `//@a` is left to the library.
      const name = NAME.exec(rest.slice(1));
      if (!name || deep || rest.length !== name[0].length + 1) return null;
      attribute = name[0].toLowerCase();
      break;
    }
    let name: string | null;
    if (rest.startsWith('text()')) [name, rest] = [null, rest.slice(6)];
    else if (rest.startsWith('*')) [name, rest] = ['*', rest.slice(1)];
    else {
      const m = NAME.exec(rest);
      // Axes (`child::`), prefixed names and function calls are the library's.
      if (!m || rest[m[0].length] === ':' || rest[m[0].length] === '(') return null;
      [name, rest] = [m[0].toLowerCase(), rest.slice(m[0].length)];
    }
    const preds: Pred[] = [];
    while (rest.startsWith('[')) {
      const parsed = predicate(rest);
      if (!parsed) return null;
      preds.push(parsed.pred);
      rest = parsed.rest;
    }
    steps.push({ deep, name, preds });
    if (rest === '') break;
    if (name === null) return null; // text() only ends a path
    if (rest.startsWith('//')) [deep, rest] = [true, rest.slice(2)];
    else if (rest.startsWith('/')) [deep, rest] = [false, rest.slice(1)];
    else return null;
  }
  if (steps.length === 0 && attribute === null) return null;
  return { absolute, steps, attribute };
}

function predicate(text: string): { pred: Pred; rest: string } | null {
  const end = (inner: string, pred: Pred) => {
    const r = /^\s*\]/.exec(inner);
    return r ? { pred, rest: inner.slice(r[0].length) } : null;
  };
  let s = text.slice(1).replace(/^\s+/, '');
  const pos = /^[1-9]\d{0,5}/.exec(s);
  if (pos) return end(s.slice(pos[0].length), { kind: 'pos', n: Number(pos[0]) });
  const contains = /^contains\(\s*@/.exec(s);
  if (contains) s = s.slice(contains[0].length);
  else if (s.startsWith('@')) s = s.slice(1);
  else return null;
  const name = NAME.exec(s);
  if (!name || s[name[0].length] === ':') return null;
  s = s.slice(name[0].length);
  const lower = name[0].toLowerCase();
  if (contains) {
    const m = /^\s*,\s*/.exec(s);
    if (!m) return null;
    s = s.slice(m[0].length);
    const lit = LITERAL.exec(s);
    if (!lit) return null;
    const close = /^\s*\)/.exec(s.slice(lit[0].length));
    if (!close) return null;
    return end(s.slice(lit[0].length + close[0].length), {
      kind: 'contains',
      name: lower,
      value: lit[1] ?? lit[2],
    });
  }
  const eq = /^\s*=\s*/.exec(s);
  if (!eq) return end(s, { kind: 'has', name: lower });
  s = s.slice(eq[0].length);
  const lit = LITERAL.exec(s);
  if (!lit) return null;
  return end(s.slice(lit[0].length), { kind: 'eq', name: lower, value: lit[1] ?? lit[2] });
}

/** The element's attribute values whose names equal `lower` ignoring case, in attribute order. */
function attributeValues(el: Element, lower: string): string[] {
  const out: string[] = [];
  for (const key in el.attribs) if (key === lower || key.toLowerCase() === lower) out.push(el.attribs[key]);
  return out;
}

function testName(node: AnyNode, name: string | null): boolean {
  if (name === null) return isText(node);
  if (!isTag(node)) return false;
  return name === '*' || node.name === name || node.name.toLowerCase() === name;
}

function predOk(node: AnyNode, step: Step, upto: number): boolean {
  for (let i = 0; i < upto; i++) {
    const pred = step.preds[i];
    switch (pred.kind) {
      case 'pos':
        if (position(node, step, i) !== pred.n) return false;
        break;
      case 'has':
        if (!isTag(node) || attributeValues(node, pred.name).length === 0) return false;
        break;
      case 'eq':
        if (!isTag(node) || !attributeValues(node, pred.name).includes(pred.value)) return false;
        break;
      case 'contains': {
        // contains() reads the string value of the first such attribute ('' without one).
        if (!isTag(node)) return false;
        const first = attributeValues(node, pred.name)[0] ?? '';
        if (!first.includes(pred.value)) return false;
      }
    }
  }
  return true;
}

/** The node's position among its parent's children that pass the step's test and its predicates before `upto`. */
function position(node: AnyNode, step: Step, upto: number): number {
  const siblings = node.parent && 'children' in node.parent ? node.parent.children : [node];
  let n = 0;
  for (const sibling of siblings) {
    if (testName(sibling, step.name) && predOk(sibling, step, upto)) n++;
    if (sibling === node) return n;
  }
  return 0;
}

const stepOk = (node: AnyNode, step: Step) => testName(node, step.name) && predOk(node, step, step.preds.length);

/** Whether `node` is reached from `context` by steps 0..i, step i selecting `node` itself. */
function chain(node: AnyNode, plan: WalkPlan, i: number, context: AnyNode): boolean {
  const step = plan.steps[i];
  if (!stepOk(node, step)) return false;
  let parent = node.parent;
  if (i === 0) {
    if (!step.deep) return parent === context;
    for (; parent; parent = parent.parent) if (parent === context) return true;
    return false;
  }
  if (!step.deep) return parent !== null && chain(parent, plan, i - 1, context);
  for (; parent; parent = parent.parent) {
    if (chain(parent, plan, i - 1, context)) return true;
    if (parent === context) return false;
  }
  return false;
}

/**
 * Evaluates a plan with `scope` as the context node: the matches in document order, at most `limit`. The
 * same as the `xpath` library gives for the expression the plan was made of.
 */
export function walk(plan: WalkPlan, scope: AnyNode, root: Document, limit: number): WalkMatch[] {
  // An absolute path starts at the document (the library's root: the context itself when it is one).
  const context = plan.absolute && !isDocument(scope) ? root : scope;
  const out: WalkMatch[] = [];
  const last = plan.steps.length - 1;
  const attribute = plan.attribute;
  const emit = (node: AnyNode): boolean => {
    if (attribute === null) out.push({ node });
    else if (isTag(node)) for (const value of attributeValues(node, attribute)) out.push({ value });
    return out.length >= limit;
  };
  if (last < 0) emit(context);
  else {
    // Below the context in document order, no deeper than the steps reach: one level per `/` step,
    // any with a `//` step. An explicit stack: a page's depth is not bounded by the call stack.
    const maxDepth = plan.steps.some((s) => s.deep) ? Infinity : plan.steps.length;
    const nodes: AnyNode[] = [];
    const depths: number[] = [];
    const push = (parent: AnyNode, depth: number) => {
      if (depth > maxDepth || !('children' in parent)) return;
      for (let i = parent.children.length - 1; i >= 0; i--) {
        nodes.push(parent.children[i]);
        depths.push(depth);
      }
    };
    push(context, 1);
    while (nodes.length > 0) {
      const node = nodes.pop()!;
      const depth = depths.pop()!;
      if (chain(node, plan, last, context) && emit(node)) break;
      push(node, depth + 1);
    }
  }
  return out.length > limit ? out.slice(0, limit) : out;
}
