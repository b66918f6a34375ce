// The work done on one page once a renderer has supplied it: parse, extract the records, find the
// detail links and the next page. Pure and synchronous: its input and output are plain data, so it
// can run wherever the crawl loop chooses, whatever produced the page.
import type { FieldSpec } from './definition-fields.js';
import type { AgentDefinition } from './definition.js';
import { readsJson } from './definition-language.js';
import { extractFields, linkOfMatch, resolveUrl, type ExtractedRecord, type TransformTally } from './extract.js';
import { extractJsonListPage } from './json-page.js';
import type { FetchedPage } from './page.js';
import { parsePage, type ParserUsed } from './parse.js';
import { attrOf, matches, selectAll, selectFirst, type AnyNode, type Document } from './select.js';
import { selectXPath } from './xpath.js';

/** A link's target (resolved), when there is a link with an href. */
function linkOf(link: AnyNode | undefined, baseUrl: string): string | null {
  const href = link === undefined ? undefined : attrOf(link, 'href');
  return href === undefined ? null : resolveUrl(href, baseUrl);
}

export interface ListItem {
  record: ExtractedRecord;
  /** The detail page to follow; null when the definition follows links and this record has none. */
  followUrl: string | null;
}

export interface ListPageResult {
  /** Elements the list selector matched; items are extracted only when there are any. */
  matches: number;
  items: ListItem[];
  /** The next list page (resolved), when the definition paginates and the page links one. */
  nextUrl: string | null;
  /** The list matched nothing and the page carries scripts: the list may be built by JavaScript. */
  scripted: boolean;
  parser: ParserUsed;
  /** Dates that did not parse (counted in the Run's evidence). */
  unparsedDates: number;
}

export interface DetailPageResult {
  record: ExtractedRecord;
  parser: ParserUsed;
  unparsedDates: number;
}

export type PageInput = Pick<FetchedPage, 'finalUrl' | 'body' | 'contentType'>;
/** The parts of a definition a list page needs. */
export type ListPlan = Pick<AgentDefinition, 'list' | 'next' | 'follow' | 'responseType'>;

/** The list's records: elements its selector matches, or nodes its XPath selects. */
function listElements(doc: Document, list: ListPlan['list']): AnyNode[] {
  if (list.xpath === undefined) return selectAll(doc, list.selector!, doc);
  return selectXPath(doc, list.xpath, doc).flatMap((m) => ('node' in m ? [m.node] : []));
}

function followUrlOf(element: AnyNode, follow: NonNullable<ListPlan['follow']>, doc: Document, base: string) {
  if (follow.xpath !== undefined) return linkOfMatch(selectXPath(element, follow.xpath, doc, 1)[0], base);
  const selector = follow.selector!;
  return linkOf(matches(element, selector) ? element : selectFirst(element, selector, doc), base);
}

function nextUrlOf(next: NonNullable<ListPlan['next']>, doc: Document, base: string): string | null {
  if (next.xpath !== undefined) return linkOfMatch(selectXPath(doc, next.xpath, doc, 1)[0], base);
  return linkOf(selectAll(doc, next.selector!, doc, 1)[0], base);
}

export function extractListPage(page: PageInput, def: ListPlan, fastParse = true): ListPageResult {
  if (readsJson(def)) {
    const { records, nextUrl, unparsedDates } = extractJsonListPage(page, def.list, def.next);
    const items = records.map((record) => ({ record, followUrl: null }));
    return { matches: records.length, items, nextUrl, scripted: false, parser: 'json', unparsedDates };
  }
  const { doc, parser } = parsePage(page, fastParse);
  const elements = listElements(doc, def.list);
  const tally: TransformTally = { unparsedDates: 0 };
  const items: ListItem[] = [];
  for (const element of elements) {
    const record = extractFields(doc, element, def.list.fields, page.finalUrl, {}, tally);
    const followUrl = def.follow ? followUrlOf(element, def.follow, doc, page.finalUrl) : null;
    items.push({ record, followUrl });
  }
  const nextUrl = def.next ? nextUrlOf(def.next, doc, page.finalUrl) : null;
  const scripted = elements.length === 0 && selectAll(doc, 'script', doc, 1).length > 0;
  return { matches: elements.length, items, nextUrl, scripted, parser, unparsedDates: tally.unparsedDates };
}

/** The detail page's fields, read from its document root. */
export function extractDetailPage(page: PageInput, fields: FieldSpec[], fastParse = true): DetailPageResult {
  const { doc, parser } = parsePage(page, fastParse);
  const tally: TransformTally = { unparsedDates: 0 };
  return {
    record: extractFields(doc, doc, fields, page.finalUrl, {}, tally),
    parser,
    unparsedDates: tally.unparsedDates,
  };
}

/** `fastParse: false` keeps every page on the standard parser (ENGINE_FAST_PARSE=false). */
export type PageTask = (
  { kind: 'list'; page: PageInput; plan: ListPlan } | { kind: 'detail'; page: PageInput; fields: FieldSpec[] }
) & { fastParse?: boolean };
export type PageValue<T extends PageTask> = T extends { kind: 'list' } ? ListPageResult : DetailPageResult;

export function runPageTask<T extends PageTask>(task: T): PageValue<T> {
  const value =
    task.kind === 'list'
      ? extractListPage(task.page, task.plan, task.fastParse)
      : extractDetailPage(task.page, task.fields, task.fastParse);
  return value as PageValue<T>;
}
