// Text and element helpers shared by the structure readers: what a subtree says, and which elements
// never hold record content.
import { Text, type AnyNode, type ParentNode } from 'domhandler';
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
