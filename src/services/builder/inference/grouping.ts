// Groups of sibling subtrees with the same structural signature (record containers), scored roughly by
// count, share of the page's text, links and images, and set back in the page's navigation, chrome and
// ads (page-regions.ts); and the companion rows of records spanning two rows.
import type { CheerioAPI } from 'cheerio';
import { isSkipped, nextElement, normalizeText, subtreeText, subtreeTextLength } from './dom-text.js';
import { elementChildren, isElement, pageClasses, signature, stableClasses, type Element } from './selectors.js';
import { mergeGrouped } from './grouped-lists.js';
import { alike, mergeAlternating, mergeContinued, mergeVariants, shapeOf, withPlainSiblings } from './merge-lists.js';
import { pushTo } from './multimap.js';
import { advertising, insideChrome, insideNavigation } from './page-regions.js';
import { holdsTheOther, kindClasses, kindsOfLists, sameTagsAsMost, splitUnlike } from './record-kinds.js';
import { isTotalsRow } from './summary-rows.js';

/** The elements below `el` in document order (skipped tags and their subtrees left out), at most `cap`. */
function descendants(el: Element, cap = Infinity): Element[] {
  const out: Element[] = [];
  const stack: Element[] = [...elementChildren(el)].reverse();
  while (stack.length > 0 && out.length < cap) {
    const c = stack.pop() as Element;
    if (isSkipped(c)) continue;
    out.push(c);
    const children = elementChildren(c);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

// A record rarely holds more elements than this; larger repeated subtrees are page sections, and
// aligning their values costs seconds on a large page.
const MAX_RECORD_ELEMENTS = 400;

const MAX_SECTION_ELEMENTS = 120;

function elementCount(el: Element, cap: number): number {
  return descendants(el, cap).length;
}

/** Whether the element is, or holds, one matching the test (a link with an address, an image). */
function holds(el: Element, test: (e: Element) => boolean): boolean {
  return test(el) || descendants(el).some(test);
}
const isLink = (e: Element) => e.name === 'a' && e.attribs?.href !== undefined;
const isImage = (e: Element) => e.name === 'img';

export interface Group {
  members: Element[];
  parents: number;
  share: number;
  rough: number;
  /** Inside navigation, a header, footer, aside or sidebar (its rough score is set back by CHROME_FACTOR). */
  chrome: boolean;
  /** Short links in the site's navigation: set back twice, even when the prompt names its records. */
  navigation: boolean;
}

export const CHROME_FACTOR = 0.15;

/** Repeated sibling groups of the page, roughest score first. */
export function findGroups($: CheerioAPI): Group[] {
  const body = ($('body')[0] ?? $.root().children().first()[0]) as Element | undefined;
  if (!body) return [];
  const bodyTextLength = Math.max(1, normalizeText($(body).text()).length);
  const byKey = new Map<string, Element[]>();
  const all = descendants(body);
  // Each element's signatures are read once, though it is the parent of many: as a member, by its kind
  // (see record-kinds.ts); as a parent, by all its classes (one box's own class tells its list from others).
  const kindOf = kindClasses(all);
  const signatures = new Map<Element, string>();
  const signatureOf = (el: Element) => {
    let sig = signatures.get(el);
    if (sig === undefined) {
      const kind = kindOf(el);
      signatures.set(
        el,
        (sig = signature(
          el,
          pageClasses(el).filter((c) => kind.includes(c)),
        )),
      );
    }
    return sig;
  };
  const parentSignatures = new Map<Element, string>();
  const parentSignatureOf = (el: Element) => {
    let sig = parentSignatures.get(el);
    if (sig === undefined) parentSignatures.set(el, (sig = signature(el)));
    return sig;
  };
  const order = new Map(all.map((e, i) => [e, i]));
  for (const el of all) {
    const parent = el.parent;
    if (!isElement(parent)) continue;
    // Cells and what they hold directly are grouped per table kind: a page laid out in tables has cells
    // of every sort.
    const table = el.name === 'td' ? tableOf(el) : parent.name === 'td' ? tableOf(parent) : undefined;
    const key = `${parentSignatureOf(parent)} > ${signatureOf(el)}${table ? ` @ ${parentSignatureOf(table)}` : ''}`;
    const list = byKey.get(key);
    if (list) list.push(el);
    else byKey.set(key, [el]);
  }
  // Boxes holding most of the page's text wrap the page, whatever their names say.
  const textLengths = new Map<Element, number>();
  const wrapsPage = (p: Element) => {
    if (p.name === 'body' || p.name === 'html') return true;
    let n = textLengths.get(p);
    if (n === undefined) textLengths.set(p, (n = subtreeTextLength(p)));
    return n > bodyTextLength * 0.5;
  };
  const groups: Group[] = [];
  // Bare list items of bare lists ("ul > li") share one key across the page: the site's menus, a widget's
  // links and the article's own list of ingredients alike. Each list's own items, three or more, are also
  // a group of their own, so that the one in the main content is not lost among the others.
  const lists = [...byKey.values()].flatMap(splitUnlike);
  for (const list of [...lists]) {
    if (
      list[0].name !== 'li' ||
      /[.#[]/.test(signatureOf(list[0])) ||
      /[.#[]/.test(parentSignatureOf(list[0].parent as Element))
    )
      continue;
    const byParent = new Map<unknown, Element[]>();
    for (const el of list) pushTo(byParent, el.parent, el);
    if (byParent.size < 2) continue;
    for (const own of byParent.values()) if (own.length >= 3) lists.push(own);
    // Lists in groups under headings of their own ("For the sauce"): one list too.
    lists.push(...mergeGrouped($, [...byParent.values()]));
  }
  const nested = mergeNested(lists, signatureOf);
  const queue = withPlainSiblings(
    mergeVariants(mergeContinued(mergeAlternating(nested.lists), signatureOf), parentSignatureOf, order),
    order,
  );
  for (let elements = queue.shift(); elements; elements = queue.shift()) {
    if (elements.length < 2) continue;
    // Table cells and definition parts are fields of a record, never records; but the cells of a layout
    // table may each hold a card.
    if (['tbody', 'thead', 'html', 'body', 'head', 'th', 'dd', 'dt', 'option'].includes(elements[0].name)) continue;
    if (elements[0].name === 'td' && !cardCells(elements)) continue;
    // Members that do not share most of the group's common shape are something else (an ad, a heading row).
    const shapes = elements.map((e) => shapeOf(e));
    const frequency = new Map<string, number>();
    for (const shape of shapes) for (const path of shape) frequency.set(path, (frequency.get(path) ?? 0) + 1);
    // Common: in a strict majority of members (variants such as sale/regular prices split the rest).
    const common = [...frequency].filter(([, n]) => n > elements.length / 2).map(([p]) => p);
    const commonSet = new Set(common);
    // A classed member holding only common parts is the same record lacking optional values (an
    // ingredient without an amount), not something else.
    const optionalValues = (i: number) =>
      shapes[i].size > 0 && pageClasses(elements[i]).length > 0 && [...shapes[i]].every((p) => commonSet.has(p));
    // A classed member whose values are the common ones but not linked (an ingredient without its
    // glossary link: "<span>cocoa powder</span>" beside "<a><span>flour</span></a>") is one of them too.
    const commonUnlinked = [...new Set(common.map(unlinked).filter((p) => p !== ''))];
    const linkless = (i: number) => {
      if (pageClasses(elements[i]).length === 0 || commonUnlinked.length === 0) return false;
      const own = new Set([...shapes[i]].map(unlinked));
      return commonUnlinked.filter((p) => own.has(p)).length >= commonUnlinked.length / 2;
    };
    // A member of the same tags in the same places whose boxes are classed otherwise (a pinned thread's
    // "sticky" wrapper, the others' "nonsticky") is one of them too.
    const sameTags = sameTagsAsMost(elements);
    // A table's totals row sums the rows above it: it is not one of them.
    const shared = elements.filter(
      (e, i) =>
        (common.length === 0 ||
          common.filter((p) => shapes[i].has(p)).length >= common.length / 2 ||
          optionalValues(i) ||
          linkless(i) ||
          sameTags(i)) &&
        !isTotalsRow($, e),
    );
    const members = takingTurns(elements, shared, signatureOf) ? elements.filter((e) => !isTotalsRow($, e)) : shared;
    // The others may be records of their own (a second list sharing the same markup): grouped apart.
    if (members.length < elements.length) {
      const kept = new Set(members);
      queue.push(elements.filter((e) => !kept.has(e)));
    }
    if (members.length < 2) continue;
    if (partsOfRecords(members)) continue;
    const size = members.reduce((n, m) => n + elementCount(m, MAX_RECORD_ELEMENTS), 0) / members.length;
    if (size >= MAX_RECORD_ELEMENTS) continue;
    // Two or three large subtrees are page sections (columns, forms), not records: aligning their
    // hundreds of values would cost seconds for nothing.
    if (members.length <= 3 && size >= MAX_SECTION_ELEMENTS) continue;
    const parents = new Set(members.map((m) => m.parent)).size;
    // Not siblings: one wrapper per record, not the records (replies nested in replies are records).
    if (members.length / parents < 2 && !nested.merged.has(elements)) continue;
    // A layout wrapper around each record (li.col-md-3 > article.product): the record is the inner element.
    // Not a link: a card wrapped whole in its <a href> keeps it, since the address is one of its values.
    for (;;) {
      if (members.every(isLink)) break;
      const only = members.map((m) => elementChildren(m).filter((c) => !isSkipped(c)));
      const first = only[0][0];
      if (!first || pageClasses(first).length === 0) break;
      if (
        !only.every(
          (c, i) =>
            c.length === 1 &&
            signatureOf(c[0]) === signatureOf(first) &&
            subtreeText(c[0]).length >= subtreeText(members[i]).length * 0.95,
        )
      )
        break;
      members.splice(0, members.length, ...only.map((c) => c[0]));
    }
    const companions = companionRows($, members);
    const texts = members.map((m) =>
      companions.has(m)
        ? normalizeText(`${subtreeText(m)} ${subtreeText(companions.get(m) as Element)}`)
        : subtreeText(m),
    );
    // A member inside another (a reply in a reply) is counted once, in the outermost: shares above the
    // whole page's text would lift boxes nested in boxes over the records.
    const memberSet = new Set(members);
    const outermost = (m: Element) => {
      for (let p = m.parent; isElement(p); p = p.parent) if (memberSet.has(p)) return false;
      return true;
    };
    const textLength = texts.reduce((n, t, i) => (outermost(members[i]) ? n + t.length : n), 0);
    const withImages = members.filter((m) => holds(m, isImage)).length / members.length;
    if (textLength === 0 && withImages === 0) continue;
    const share = textLength / bodyTextLength;
    const withLinks = members.filter((m) => m.name === 'a' || holds(m, isLink)).length / members.length;
    const averageText = textLength / members.length;
    let rough = (share + 0.02) * Math.log2(members.length + 1) * (1 + 0.3 * withLinks + 0.3 * withImages);
    const chrome = insideChrome(members[0], wrapsPage);
    if (chrome) rough *= CHROME_FACTOR;
    if (advertising(members[0])) rough *= 0.3;
    if (averageText < 25 && withImages < 0.5 && elementChildren(members[0]).length <= 1) rough *= 0.3; // menus, tag clouds
    // The site's menu: short links inside its navigation (a restaurant's menu of dishes and prices is no menu).
    const navigation = chrome && withLinks === 1 && averageText < 40 && insideNavigation(members[0], wrapsPage);
    if (navigation) rough *= CHROME_FACTOR;
    groups.push({ members, parents, share, rough, chrome, navigation });
  }
  return groups.sort((a, b) => b.rough - a.rough);
}

/** A shape's path with its links' steps left out: "/a.link/span.name" -> "/span.name". */
function unlinked(path: string): string {
  return path.replace(/\/a(?:[.#[][^/]*)?(?=\/|$)/g, '');
}

/**
 * Records of one list in two shapes (an obituary with a photo, its text wrapped beside it, and one
 * without): members of one parent and one classed signature whose two shapes take turns in the list,
 * each shape at least twice, are one list; an ad or a heading row among records stands at an end or alone.
 */
function takingTurns(elements: Element[], shared: Element[], signatureOf: (el: Element) => string): boolean {
  if (shared.length < 2 || elements.length - shared.length < 2) return false;
  const sig = signatureOf(elements[0]);
  if (!/[.[]/.test(sig) || !elements.every((e) => e.parent === elements[0].parent && signatureOf(e) === sig))
    return false;
  const inShared = new Set(shared);
  // The shapes change at least three times along the list: each stands between records of the other.
  let changes = 0;
  for (let i = 1; i < elements.length; i++) if (inShared.has(elements[i]) !== inShared.has(elements[i - 1])) changes++;
  return changes >= 3;
}

/**
 * Replies within replies: classed lists of one kind whose members sit inside members of another such
 * list (li.comment in ol.children in li.comment) are one list of records at every depth, in document
 * order; grouped by parent alone they would keep only the first level. One kind: the same tag and a
 * class in common, since each depth may carry a class of its own ("depth-2" under any name).
 */
function mergeNested(
  lists: Element[][],
  signatureOf: (el: Element) => string,
): { lists: Element[][]; merged: Set<Element[]> } {
  const bySignature = kindsOfLists(
    lists.filter((list) => /[.[]/.test(signatureOf(list[0]))), // a bare tag (tr, li) nests in layouts too
  );
  const replaced = new Map<Element[], Element[]>();
  const merged = new Set<Element[]>();
  for (const same of bySignature) {
    if (same.length < 2) continue;
    const all = new Set(same.flat());
    const inside = (el: Element) => {
      for (let p = el.parent; p && isElement(p); p = p.parent) if (all.has(p)) return true;
      return false;
    };
    const roots = same.filter((list) => !list.every(inside));
    // Replies look like what they answer (like one of the first, with replies of its own or without):
    // boxes of the page's layout sharing a class name ("div.row" around the content, inside a card,
    // inside its link) are no thread.
    const replies = same.filter(
      (list) =>
        list.every(inside) &&
        roots.length === 1 &&
        roots[0].slice(0, 10).some((r) => alike(list[0], r) || holdsTheOther(list[0], r)),
    );
    if (roots.length !== 1 || replies.length === 0) continue;
    const order = documentOrder(roots[0][0].parent as Element);
    const union = [...roots[0], ...replies.flat()].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    replaced.set(roots[0], union);
    merged.add(union);
    for (const r of replies) replaced.set(r, []);
  }
  return {
    lists: lists.map((list) => replaced.get(list) ?? list).filter((list) => list.length > 0),
    merged,
  };
}

/** Positions of the elements below `root` in document order. */
function documentOrder(root: Element): Map<Element, number> {
  const order = new Map<Element, number>();
  descendants(root).forEach((el, i) => order.set(el, i));
  return order;
}

/**
 * Cells of a layout table holding one card each (a photo and a link, say a person's): records, where
 * a data table's cells are values. A data table names its columns with header cells; a layout table has none.
 */
function cardCells(cells: Element[]): boolean {
  let table: Element | null = cells[0];
  while (table && table.name !== 'table') table = isElement(table.parent) ? table.parent : null;
  if (!table || descendants(table).some((e) => e.name === 'th')) return false;
  if (cells.every((c) => holds(c, isLink) && holds(c, isImage))) return true;
  // Or each cell holds one box of the same classed kind with a link (a category's card: its name, its
  // count, "View products"): the cells lay out cards, two or three to a row, and each card is a record.
  const boxes = cells.map((c) => elementChildren(c).filter((e) => !isSkipped(e)));
  const first = boxes[0]?.[0];
  return (
    first !== undefined &&
    pageClasses(first).length > 0 &&
    boxes.every((b) => b.length === 1 && signature(b[0]) === signature(first) && holds(b[0], isLink))
  );
}

/** The table a cell belongs to (through its row and the row's section). */
function tableOf(cell: Element): Element | undefined {
  let p = cell.parent;
  for (let depth = 0; p && isElement(p) && depth < 3; depth++, p = p.parent) if (p.name === 'table') return p;
  return undefined;
}

/**
 * Parts of one record rather than records: every parent holds the same number of members and, within
 * a parent, they play different roles (a user cell and a message cell; an image link and a title link),
 * told apart by their full classes and first child.
 */
function partsOfRecords(members: Element[]): boolean {
  const byParent = new Map<unknown, Element[]>();
  for (const m of members) pushTo(byParent, m.parent, m);
  const sizes = new Set([...byParent.values()].map((g) => g.length));
  if (byParent.size < 2 || sizes.size !== 1 || members.length / byParent.size < 2) return false;
  // Stable classes only: a record's own id written as a class ("post-1886") names no role.
  const role = (m: Element) =>
    `${stableClasses(m).join(' ')}|${elementChildren(m)[0] ? signature(elementChildren(m)[0]) : ''}`;
  const groups = [...byParent.values()];
  const distinct = groups.filter((g) => new Set(g.map(role)).size === g.length).length;
  // Parts keep their roles in every parent (a label then a value); cards of a grid row whose classes
  // say each one's own category or tags differ from row to row as much as within one.
  const sameByPlace = groups[0].filter(
    (_, i) => groups.filter((g) => role(g[i]) === role(groups[0][i])).length >= groups.length * 0.8,
  ).length;
  return distinct >= byParent.size * 0.8 && sameByPlace === groups[0].length;
}

/**
 * Table records that span two rows (a title row followed by a details row, as on Hacker News): the
 * row after each record, when it is not a record itself. Used only when most records have one.
 */
export function companionRows($: CheerioAPI, members: Element[]): Map<Element, Element> {
  const companions = new Map<Element, Element>();
  if (members[0]?.name !== 'tr') return companions;
  const set = new Set(members);
  for (const m of members) {
    const next = nextElement(m);
    if (
      next &&
      next.name === 'tr' &&
      !set.has(next) &&
      signature(next) !== signature(m) &&
      normalizeText($(next).text()) !== ''
    )
      companions.set(m, next);
  }
  return companions.size >= members.length * 0.8 ? companions : new Map<Element, Element>();
}

export const COMPANION = ':scope + tr';
