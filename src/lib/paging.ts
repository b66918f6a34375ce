// The one computation of a page of a list (docs/decisions.md, API and contract). Page numbers are 1-based and
// the query schemas already refuse values below 1 (PagingQuery in schemas/common.ts), so nothing here
// re-checks them; a page size over the list's maximum is clamped, never refused.

/** The largest page of every list but the billing history. */
export const MAX_RECORDS_PER_PAGE = 1000;
/** The page size of the lists that are always paged, when none is asked for. */
export const DEFAULT_RECORDS_PER_PAGE = 50;

export interface PageWindow {
  pageIndex: number;
  /** The page size after clamping (what the answer echoes). */
  recordsPerPage: number;
  /** Rows before the page. */
  skip: number;
}

/** A page of a list that is always paged: missing values take their defaults. */
export function pageOf(
  q: { pageIndex?: number; recordsPerPage?: number },
  max: number = MAX_RECORDS_PER_PAGE,
): PageWindow {
  const pageIndex = q.pageIndex ?? 1;
  const recordsPerPage = Math.min(q.recordsPerPage ?? DEFAULT_RECORDS_PER_PAGE, max);
  return { pageIndex, recordsPerPage, skip: (pageIndex - 1) * recordsPerPage };
}

/**
 * The contract's optional paging: on only when both pageIndex and recordsPerPage are given; one alone
 * keeps the list unpaged (a plain array).
 */
export function requestedPage(
  q: { pageIndex?: number; recordsPerPage?: number },
  max: number = MAX_RECORDS_PER_PAGE,
): PageWindow | null {
  return q.pageIndex !== undefined && q.recordsPerPage !== undefined ? pageOf(q, max) : null;
}

/** How many rows an unpaged list answers: maxRecords, default 50, clamped to the maximum. */
export function unpagedLimit(maxRecords: number | undefined, max: number = MAX_RECORDS_PER_PAGE): number {
  return Math.min(maxRecords ?? DEFAULT_RECORDS_PER_PAGE, max);
}
