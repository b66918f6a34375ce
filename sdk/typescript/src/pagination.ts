// Paging: a list answers a plain array unless both pageIndex and recordsPerPage are sent, so the SDK
// always sends both and turns the page into `Page<T>`; `iterate` walks the pages until the total.
import type { CallOptions } from './http.js';
import type { Page } from './types.js';

export interface PageQuery {
  /** 1-based page number (default 1). */
  pageIndex?: number;
  /** Page size (default 100, at most 1000). */
  recordsPerPage?: number;
}

export const DEFAULT_PAGE_SIZE = 100;

/** Every item of every page from `query.pageIndex` on, fetching a page when the previous one is used up. */
export async function* iteratePages<T>(
  fetchPage: (pageIndex: number, recordsPerPage: number, opts: CallOptions) => Promise<Page<T>>,
  query: PageQuery,
  opts: CallOptions,
): AsyncGenerator<T, void, undefined> {
  const size = query.recordsPerPage ?? DEFAULT_PAGE_SIZE;
  for (let pageIndex = query.pageIndex ?? 1; ; pageIndex++) {
    const page = await fetchPage(pageIndex, size, opts);
    yield* page.items;
    if (page.items.length < size || (pageIndex - 1) * size + page.items.length >= page.totalRecordCount) return;
  }
}
