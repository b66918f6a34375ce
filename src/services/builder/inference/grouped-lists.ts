// A list in groups: records of one kind split into boxes that each hold a group's heading and its part of
// the list (<li><h3>For the sauce</h3><ul><li>…</li></ul></li>, often the first group without a heading),
// the boxes siblings one after the other. The groups are one list of records in page order. A box holding
// a link besides its list is a menu entry with its submenu, not a group.
import type { CheerioAPI } from 'cheerio';
import { isSkipped, normalizeText } from './dom-text.js';
import { elementChildren, isElement, signature, type Element } from './selectors.js';

/** The longest text of a group's heading ("Für den Teig:", "Smør- og tomatcurry:"). */
const GROUP_HEADING_MAX_LENGTH = 60;
/** The fewest records of a list in groups. */
const MIN_RECORDS = 3;

const children = (el: Element) => elementChildren(el).filter((c) => !isSkipped(c));

/** A group's heading: an h1-h6, or a short text without a link (a label in <p>, <strong>, <span>...). */
function headsGroup($: CheerioAPI, el: Element): boolean {
  if (el.name === 'a' || $(el).find('a[href], ul, ol, table, img').length > 0) return false;
  const text = normalizeText($(el).text());
  return text !== '' && text.length <= GROUP_HEADING_MAX_LENGTH;
}

/**
 * The box of a part of a list: the element holding the list's parent and, before it, nothing but a
 * group's heading; null when the parent holds anything but the records or the box anything else.
 */
function groupBox($: CheerioAPI, part: Element[]): Element | null {
  const parent = part[0].parent;
  if (!isElement(parent) || !part.every((m) => m.parent === parent)) return null;
  if (children(parent).length !== part.length) return null;
  const box = parent.parent;
  if (!isElement(box) || box.name === 'body') return null;
  const inBox = children(box);
  const at = inBox.indexOf(parent);
  if (at !== inBox.length - 1 || at > 1) return null;
  return inBox.slice(0, at).every((h) => headsGroup($, h)) ? box : null;
}

/**
 * The lists in groups among `parts` (each the records of one parent, in page order): each run of two or
 * more sibling boxes of one tag holding parts of one kind, merged in page order.
 */
export function mergeGrouped($: CheerioAPI, parts: Element[][]): Element[][] {
  const byBox = new Map<Element, Element[]>();
  for (const part of parts) {
    const box = groupBox($, part);
    if (box) byBox.set(box, part);
  }
  const merged: Element[][] = [];
  const taken = new Set<Element>();
  for (const [box, part] of byBox) {
    if (taken.has(box)) continue;
    const kind = signature(part[0]);
    const listTag = part[0].parent && isElement(part[0].parent) ? part[0].parent.name : '';
    let union = part;
    let boxes = 1;
    for (let next = nextBox(box); next && byBox.has(next); next = nextBox(next)) {
      const more = byBox.get(next) as Element[];
      const moreTag = isElement(more[0].parent) ? more[0].parent.name : '';
      if (next.name !== box.name || signature(more[0]) !== kind || moreTag !== listTag) break;
      union = [...union, ...more];
      taken.add(next);
      boxes++;
    }
    if (boxes >= 2 && union.length >= MIN_RECORDS) merged.push(union);
  }
  return merged;
}

function nextBox(el: Element): Element | null {
  for (let n = el.next; n; n = n.next) if (isElement(n) && !isSkipped(n)) return n;
  return null;
}
