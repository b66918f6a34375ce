// The work done on one page once a renderer has supplied it: parse, extract the records, find the
// detail links and the next page. Pure and synchronous: its input and output are plain data, so it
// can run wherever the crawl loop chooses, whatever produced the page.
import type { AgentDefinition, AgentField } from './definition.js';
import { extractFields, resolveUrl, type ExtractedRecord } from './extract.js';
import type { FetchedPage } from './page.js';
import { parseHtml } from './parse.js';

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
}

export type PageInput = Pick<FetchedPage, 'finalUrl' | 'body' | 'contentType'>;
/** The parts of a definition a list page needs. */
export type ListPlan = Pick<AgentDefinition, 'list' | 'next' | 'follow'>;

export function extractListPage(page: PageInput, def: ListPlan): ListPageResult {
  const $ = parseHtml(page);
  const elements = $(def.list.selector);
  const items: ListItem[] = [];
  if (elements.length > 0) {
    for (const element of elements.toArray()) {
      const scope = $(element);
      const record = extractFields($, scope, def.list.fields, page.finalUrl);
      let followUrl: string | null = null;
      if (def.follow) {
        const link = scope.is(def.follow.selector) ? scope : scope.find(def.follow.selector).first();
        const href = link.attr('href');
        followUrl = href === undefined ? null : resolveUrl(href, page.finalUrl);
      }
      items.push({ record, followUrl });
    }
  }
  let nextUrl: string | null = null;
  if (def.next) {
    const href = $(def.next.selector).first().attr('href');
    nextUrl = href === undefined ? null : resolveUrl(href, page.finalUrl);
  }
  return { matches: elements.length, items, nextUrl, scripted: elements.length === 0 && $('script').length > 0 };
}

/** The detail page's fields, read from its document root. */
export function extractDetailPage(page: PageInput, fields: AgentField[]): ExtractedRecord {
  const $ = parseHtml(page);
  return extractFields($, $.root(), fields, page.finalUrl);
}

export type PageTask =
  { kind: 'list'; page: PageInput; plan: ListPlan } | { kind: 'detail'; page: PageInput; fields: AgentField[] };
export type PageValue<T extends PageTask> = T extends { kind: 'list' } ? ListPageResult : ExtractedRecord;

export function runPageTask<T extends PageTask>(task: T): PageValue<T> {
  const value =
    task.kind === 'list' ? extractListPage(task.page, task.plan) : extractDetailPage(task.page, task.fields);
  return value as PageValue<T>;
}
