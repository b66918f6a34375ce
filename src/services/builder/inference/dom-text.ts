// Text and element helpers shared by the structure readers: what a subtree says, and which elements
// never hold record content.
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
