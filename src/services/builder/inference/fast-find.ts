// The selectors the builder offers for a value told apart by its position, read without the cost the
// engine's selection has on them. The selection counts an element's earlier siblings each time it
// tests `:nth-of-type`, and compiles a selector searched from `:scope` anew for every record: on records
// of hundreds of like siblings (a post's links, a card of 120 boxes) choosing each value's selector cost
// the square of the siblings, for every record. Here each parent's children are counted once and the
// paths are walked from the record down. What is found is what the engine finds (a test checks it).
import { isTag, type AnyNode, type Element } from 'domhandler';
import { pushTo } from './multimap.js';

/** `tag:nth-of-type(n)`, found anywhere below the record. */
const NTH_OF_TYPE = /^([a-z][a-z0-9-]*):nth-of-type\((\d+)\)$/;
/** One step of a path: `tag`, `tag.class.class` or `tag:nth-of-type(n)` (plain class names only). */
const STEP = /^([a-z][a-z0-9-]*)(?:((?:\.[A-Za-z_][\w-]*)+)|:nth-of-type\((\d+)\))?$/;
const PATH = ':scope > ';
/** `tag.class` or `tag.class.class`, found anywhere below the record. */
const CLASSED = /^([a-z][a-z0-9-]*)((?:\.[A-Za-z_][\w-]*)+)$/;

type Test = (el: Element) => boolean;

/** The matches of `selector` below `scope` as the engine's selection gives them; undefined for other selectors. */
export function fastFind(scope: Element, selector: string, limit: number): Element[] | undefined {
  if (!scope.parent || !isTag(scope.parent)) return undefined;
  const nth = NTH_OF_TYPE.exec(selector);
  if (nth) return below(scope, stepTest(nth[1], undefined, nth[2]), limit);
  const classed = CLASSED.exec(selector);
  if (classed) return byClass(scope, classed[1], classed[2], limit);
  if (!selector.startsWith(PATH)) return undefined;
  const tests: Test[] = [];
  for (const step of selector.slice(PATH.length).split(' > ')) {
    const m = STEP.exec(step);
    if (!m) return undefined;
    tests.push(stepTest(m[1], m[2], m[3]));
  }
  // Searched from `:scope`, the engine's selection gives every match when asked for one.
  return path(scope, tests, limit === 1 ? Infinity : limit);
}

function stepTest(tag: string, classes: string | undefined, nth: string | undefined): Test {
  const wanted = classes ? classes.slice(1).split('.') : [];
  const n = nth === undefined ? undefined : Number(nth);
  return (el) => {
    if (el.name !== tag) return false;
    if (n !== undefined && positionOfType(el) !== n) return false;
    if (wanted.length === 0) return true;
    const own = classesOf(el);
    return wanted.every((c) => own.includes(c));
  };
}

/** Each element's 1-based position among its parent's elements of its name, counted once per parent. */
const typePositions = new WeakMap<AnyNode, number>();

function positionOfType(el: Element): number {
  let position = typePositions.get(el);
  if (position === undefined) {
    const counts = new Map<string, number>();
    for (const c of el.parent?.children ?? [el]) {
      if (!isTag(c)) continue;
      const n = (counts.get(c.name) ?? 0) + 1;
      counts.set(c.name, n);
      typePositions.set(c, n);
    }
    position = typePositions.get(el) ?? 1;
  }
  return position;
}

/** The elements below `scope` passing `test`, in document order, reached through elements only. */
function below(scope: Element, test: Test, limit: number): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...scope.children].reverse();
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (test(node)) out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}

/** The elements at the end of a path of children from `scope`, each step passing its test, in document order. */
function path(scope: Element, tests: Test[], limit: number): Element[] {
  const out: Element[] = [];
  const walk = (el: Element, depth: number) => {
    for (const c of el.children) {
      if (out.length >= limit) return;
      if (!isTag(c) || !tests[depth](c)) continue;
      if (depth === tests.length - 1) out.push(c);
      else walk(c, depth + 1);
    }
  };
  walk(scope, 0);
  return out;
}

const classesOf = (el: Element) => (el.attribs.class ?? '').split(/\s+/);

/**
 * A record's elements by tag and class, for records searched more than once: each value's selector is
 * tried on every record, and walking a record of hundreds of classed values to find each one cost the
 * square of its values. Null once a record has been searched (walked) once.
 */
const classIndexes = new WeakMap<Element, Map<string, Element[]> | null>();

function byClass(scope: Element, tag: string, classes: string, limit: number): Element[] {
  const [first, ...rest] = classes.slice(1).split('.');
  const index = classIndexes.get(scope);
  if (index === undefined) {
    classIndexes.set(scope, null);
    return below(scope, stepTest(tag, classes, undefined), limit);
  }
  const found = (index ?? indexed(scope)).get(`${tag}.${first}`) ?? [];
  const out: Element[] = [];
  for (const el of found) {
    if (out.length >= limit) break;
    if (rest.length === 0 || rest.every((c) => classesOf(el).includes(c))) out.push(el);
  }
  return out;
}

function indexed(scope: Element): Map<string, Element[]> {
  const index = new Map<string, Element[]>();
  for (const el of below(scope, () => true, Infinity))
    for (const c of new Set(classesOf(el))) if (c !== '') pushTo(index, `${el.name}.${c}`, el);
  classIndexes.set(scope, index);
  return index;
}
