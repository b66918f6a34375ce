// The work done on one page once a renderer has supplied it: parse, extract the records, find the
// detail links and the next page. Pure and synchronous: its input and output are plain data, so it
// can run wherever the crawl loop chooses, whatever produced the page.
import type { AgentDefinition, AgentField } from './definition.js';
import { extractFields, resolveUrl, type ExtractedRecord } from './extract.js';
import type { FetchedPage } from './page.js';
import { parsePage, type ParserUsed } from './parse.js';
import { attrOf, matches, selectAll, selectFirst, type AnyNode, type Document } from './select.js';

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
  /** Asked for by render "auto" (PageTask.autoRender): the page, served over HTTP, needs the browser. */
  needsBrowser?: boolean;
}

export interface DetailPageResult {
  record: ExtractedRecord;
  parser: ParserUsed;
  needsBrowser?: boolean;
}

export type PageInput = Pick<FetchedPage, 'finalUrl' | 'body' | 'contentType'>;
/** The parts of a definition a list page needs. */
export type ListPlan = Pick<AgentDefinition, 'list' | 'next' | 'follow'>;

/** `fast: false` parses with parse5 alone: how the tests and the bench compare the two parsers. */
export function extractListPage(page: PageInput, def: ListPlan, fast = true): ListPageResult {
  const { doc, parser } = parsePage(page, fast);
  return listOf(doc, parser, page, def);
}

function listOf(doc: Document, parser: ParserUsed, page: PageInput, def: ListPlan): ListPageResult {
  const elements = selectAll(doc, def.list.selector, doc);
  const items: ListItem[] = [];
  for (const element of elements) {
    const record = extractFields(doc, element, def.list.fields, page.finalUrl);
    let followUrl: string | null = null;
    if (def.follow) {
      const link = matches(element, def.follow.selector) ? element : selectFirst(element, def.follow.selector, doc);
      followUrl = linkOf(link, page.finalUrl);
    }
    items.push({ record, followUrl });
  }
  const nextUrl = def.next ? linkOf(selectAll(doc, def.next.selector, doc, 1)[0], page.finalUrl) : null;
  const scripted = elements.length === 0 && selectAll(doc, 'script', doc, 1).length > 0;
  return { matches: elements.length, items, nextUrl, scripted, parser };
}

/** The detail page's fields, read from its document root. */
export function extractDetailPage(page: PageInput, fields: AgentField[], fast = true): DetailPageResult {
  const { doc, parser } = parsePage(page, fast);
  return { record: extractFields(doc, doc, fields, page.finalUrl), parser };
}

/**
 * Whether a page served over HTTP needs the browser (render "auto"): none of `selectors` matches in the
 * served HTML while it carries scripts, so the content is probably built by JavaScript.
 */
function needsBrowser(doc: Document, selectors: string[]): boolean {
  if (selectors.some((selector) => selectAll(doc, selector, doc, 1).length > 0)) return false;
  return selectAll(doc, 'script', doc, 1).length > 0;
}

/**
 * `autoRender` (render "auto", a page served over HTTP) asks whether the page needs the browser, decided
 * on the same parse as the extraction.
 */
export type PageTask = (
  { kind: 'list'; page: PageInput; plan: ListPlan } | { kind: 'detail'; page: PageInput; fields: AgentField[] }
) & { autoRender?: { selectors: string[] } };
export type PageValue<T extends PageTask> = T extends { kind: 'list' } ? ListPageResult : DetailPageResult;

/** One page's work, on one parse of it. */
export function runPageTask<T extends PageTask>(task: T): PageValue<T> {
  const { doc, parser } = parsePage(task.page);
  const value: ListPageResult | DetailPageResult =
    task.kind === 'list'
      ? listOf(doc, parser, task.page, task.plan)
      : { record: extractFields(doc, doc, task.fields, task.page.finalUrl), parser };
  if (task.autoRender) value.needsBrowser = needsBrowser(doc, task.autoRender.selectors);
  return value as PageValue<T>;
}
