// Text and element helpers shared by the structure readers: what a subtree says, and which elements
// never hold record content.
import { Text, type AnyNode, type ParentNode } from 'domhandler';
import { textContent } from 'domutils';
import { isElement, type Element } from './selectors.js';

const SKIP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'head',
  'iframe',
  'select',
  'option',
  'br',
  'hr',
  'meta',
  'link',
]);

export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const texts = new WeakMap<AnyNode, string>();

/**
 * The normalized text of a node and everything under it (what `normalizeText($(el).text())` gives),
 * computed once per node: the structure readers ask for the same boxes' text again and again (each
 * candidate list, each of its layout levels, each field), and on a big page reading whole subtrees over
 * and over took most of a draft's time. The tree is not changed once the readers begin.
 */
export function subtreeText(node: AnyNode): string {
  let text = texts.get(node);
  if (text === undefined) texts.set(node, (text = normalizeText(textContent(node))));
  return text;
}

/** What the length of a normalized text needs from each part of it, so that parts add up exactly. */
interface TextShape {
  /** Length of the part's text once normalized (whitespace runs made one space, the ends trimmed). */
  core: number;
  /** Whitespace before the first other character (for a part of whitespace only: whether it has any). */
  lead: boolean;
  /** Whitespace after the last other character. */
  trail: boolean;
}

const EMPTY_SHAPE: TextShape = { core: 0, lead: false, trail: false };
const shapes = new WeakMap<AnyNode, TextShape>();

function joinShapes(a: TextShape, b: TextShape): TextShape {
  if (a.core === 0)
    return {
      core: b.core,
      lead: a.lead || a.trail || b.lead,
      trail: b.core === 0 ? a.trail || b.trail || b.lead : b.trail,
    };
  if (b.core === 0) return { core: a.core, lead: a.lead, trail: a.trail || b.lead || b.trail };
  return { core: a.core + b.core + (a.trail || b.lead ? 1 : 0), lead: a.lead, trail: b.trail };
}

function shapeOf(node: AnyNode): TextShape {
  let shape = shapes.get(node);
  if (shape) return shape;
  if (node.type === 'text') {
    const data = node.data;
    const core = normalizeText(data).length;
    shape = { core, lead: /^\s/.test(data), trail: /\s$/.test(data) };
  } else {
    shape = EMPTY_SHAPE;
    // As domutils' textContent reads it: the text of every child, comments and directives aside.
    if (
      node.type === 'tag' ||
      node.type === 'script' ||
      node.type === 'style' ||
      node.type === 'root' ||
      node.type === 'cdata'
    )
      for (const c of node.children) shape = joinShapes(shape, shapeOf(c));
  }
  shapes.set(node, shape);
  return shape;
}

/**
 * The length of `subtreeText(node)`, from its parts' lengths: each node's measured once, so that asking
 * it of every box up a tree costs the tree's size once, not once per box.
 */
export function subtreeTextLength(node: AnyNode): number {
  return shapeOf(node).core;
}

export function ownText(el: Element): string {
  let text = '';
  for (const c of el.children ?? []) if (c.type === 'text') text += (c as unknown as { data: string }).data;
  return normalizeText(text);
}

export function isSkipped(el: Element): boolean {
  return SKIP_TAGS.has(el.name);
}

export function nextElement(el: Element): Element | null {
  let n = el.next;
  while (n && n.type !== 'tag') n = n.next;
  return isElement(n) ? n : null;
}

/**
 * Elements nested deeper than this are read as the text they hold: cheerio's text() recurses once per
 * level, and a page nested some thousands of levels deep (a generated or broken page) overflows the
 * stack. No record is that deep.
 */
export const MAX_DEPTH = 400;

/**
 * Replaces, in place, the content of every element at MAX_DEPTH by the text below it, collected without
 * recursion. Returns whether the page had to be changed. Linear in the page's nodes.
 */
export function flattenDeepNesting(root: AnyNode): boolean {
  let changed = false;
  const stack: Array<{ node: AnyNode; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: AnyNode; depth: number };
    const children = (node as ParentNode).children;
    if (!children) continue;
    if (depth < MAX_DEPTH) {
      for (const c of children) stack.push({ node: c, depth: depth + 1 });
      continue;
    }
    if (!children.some((c) => (c as ParentNode).children?.length)) continue;
    const text = new Text(textBelow(node));
    text.parent = node as ParentNode;
    (node as ParentNode).children = [text];
    changed = true;
  }
  return changed;
}

/** The text of a subtree, in document order, without recursion (scripts and styles left out). */
function textBelow(node: AnyNode): string {
  let text = '';
  const stack: AnyNode[] = [...((node as ParentNode).children ?? [])].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as AnyNode;
    if (n.type === 'text') text += n.data;
    else if (isElement(n) && !['script', 'style', 'template'].includes(n.name)) {
      const children = n.children ?? [];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return text;
}
