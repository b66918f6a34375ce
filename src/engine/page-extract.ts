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
import { isTag } from 'domutils';
import { selectXPath } from './xpath.js';

/**
 * The URL a page's relative links resolve against, as a browser resolves them: the first `<base href>` of
 * the document's head (itself resolved against the page's URL), else the page's URL. A base that is not
 * http(s) (javascript:, data:) is ignored. Only the head is read, where parsers put `<base>`.
 */
function documentBase(doc: Document, pageUrl: string): string {
  const html = doc.children.find((n) => isTag(n) && n.name === 'html');
  const head = html && isTag(html) ? html.children.find((n) => isTag(n) && n.name === 'head') : undefined;
  if (!head || !isTag(head)) return pageUrl;
  for (const el of head.children) {
    if (!isTag(el) || el.name !== 'base' || el.attribs.href === undefined) continue;
    const base = resolveUrl(el.attribs.href, pageUrl);
    return base !== null && /^https?:/i.test(base) ? base : pageUrl;
  }
  return pageUrl;
}

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
  /** Asked for by render "auto" (PageTask.autoRender): the page, served over HTTP, needs the browser. */
  needsBrowser?: boolean;
}

export interface DetailPageResult {
  record: ExtractedRecord;
  parser: ParserUsed;
  unparsedDates: number;
  needsBrowser?: boolean;
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

/** `fast: false` parses with parse5 alone: how the tests and the bench compare the two parsers. */
export function extractListPage(page: PageInput, def: ListPlan, fast = true): ListPageResult {
  if (readsJson(def)) return jsonListOf(page, def);
  const { doc, parser } = parsePage(page, fast);
  return listOf(doc, parser, page, def);
}

/** A JSON page's records (`list.jsonPath`), which never follow detail links. */
function jsonListOf(page: PageInput, def: ListPlan): ListPageResult {
  const { records, nextUrl, unparsedDates } = extractJsonListPage(page, def.list, def.next);
  const items = records.map((record) => ({ record, followUrl: null }));
  return { matches: records.length, items, nextUrl, scripted: false, parser: 'json', unparsedDates };
}

function listOf(doc: Document, parser: ParserUsed, page: PageInput, def: ListPlan): ListPageResult {
  const elements = listElements(doc, def.list);
  const tally: TransformTally = { unparsedDates: 0 };
  const items: ListItem[] = [];
  const base = documentBase(doc, page.finalUrl);
  for (const element of elements) {
    const record = extractFields(doc, element, def.list.fields, base, {}, tally);
    const followUrl = def.follow ? followUrlOf(element, def.follow, doc, base) : null;
    items.push({ record, followUrl });
  }
  const nextUrl = def.next ? nextUrlOf(def.next, doc, base) : null;
  const scripted = elements.length === 0 && selectAll(doc, 'script', doc, 1).length > 0;
  return { matches: elements.length, items, nextUrl, scripted, parser, unparsedDates: tally.unparsedDates };
}

/** The detail page's fields, read from its document root. */
export function extractDetailPage(page: PageInput, fields: FieldSpec[], fast = true): DetailPageResult {
  const { doc, parser } = parsePage(page, fast);
  return detailOf(doc, parser, page, fields);
}

function detailOf(doc: Document, parser: ParserUsed, page: PageInput, fields: FieldSpec[]): DetailPageResult {
  const tally: TransformTally = { unparsedDates: 0 };
  return {
    record: extractFields(doc, doc, fields, documentBase(doc, page.finalUrl), {}, tally),
    parser,
    unparsedDates: tally.unparsedDates,
  };
}

/** What render "auto" looks for in a page served over HTTP: the list's and detail fields' locators. */
export interface AutoRenderAsk {
  selectors: string[];
  xpaths: string[];
}

/**
 * Whether a page served over HTTP needs the browser (render "auto"): none of its locators matches in the
 * served HTML while it carries scripts, so the content is probably built by JavaScript.
 */
function needsBrowser(doc: Document, ask: AutoRenderAsk): boolean {
  if (ask.selectors.some((selector) => selectAll(doc, selector, doc, 1).length > 0)) return false;
  if (ask.xpaths.some((xpath) => selectXPath(doc, xpath, doc, 1).length > 0)) return false;
  return selectAll(doc, 'script', doc, 1).length > 0;
}

/**
 * `autoRender` (render "auto", a page served over HTTP) asks whether the page needs the browser, decided
 * on the same parse as the extraction.
 */
export type PageTask = (
  { kind: 'list'; page: PageInput; plan: ListPlan } | { kind: 'detail'; page: PageInput; fields: FieldSpec[] }
) & { autoRender?: AutoRenderAsk };
export type PageValue<T extends PageTask> = T extends { kind: 'list' } ? ListPageResult : DetailPageResult;

/** One page's work, on one parse of it. */
export function runPageTask<T extends PageTask>(task: T): PageValue<T> {
  // A JSON list page is never rendered in the browser: there is nothing for scripts to build.
  if (task.kind === 'list' && readsJson(task.plan)) return jsonListOf(task.page, task.plan) as PageValue<T>;
  const { doc, parser } = parsePage(task.page);
  const value: ListPageResult | DetailPageResult =
    task.kind === 'list' ? listOf(doc, parser, task.page, task.plan) : detailOf(doc, parser, task.page, task.fields);
  if (task.autoRender) value.needsBrowser = needsBrowser(doc, task.autoRender);
  return value as PageValue<T>;
}
