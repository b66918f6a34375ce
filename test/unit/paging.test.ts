// The one computation of a page (src/lib/paging.ts); the schemas refuse values below 1 before it.
import { describe, expect, it } from 'vitest';
import { pageOf, requestedPage, unpagedLimit } from '../../src/lib/paging.js';

describe('paging', () => {
  it('an always-paged list: 1-based with a default of 50, clamped to its maximum', () => {
    expect(pageOf({})).toEqual({ pageIndex: 1, recordsPerPage: 50, skip: 0 });
    expect(pageOf({ pageIndex: 3, recordsPerPage: 500 }, 100)).toEqual({
      pageIndex: 3,
      recordsPerPage: 100,
      skip: 200,
    });
    expect(pageOf({ pageIndex: 2, recordsPerPage: 5000 })).toEqual({ pageIndex: 2, recordsPerPage: 1000, skip: 1000 });
  });

  it('the optional paging of the contract is on only with both parameters', () => {
    expect(requestedPage({ pageIndex: 2 })).toBeNull();
    expect(requestedPage({ recordsPerPage: 10 })).toBeNull();
    expect(requestedPage({ pageIndex: 2, recordsPerPage: 10 })).toEqual({ pageIndex: 2, recordsPerPage: 10, skip: 10 });
  });

  it('an unpaged list answers maxRecords, default 50, at most 1000', () => {
    expect(unpagedLimit(undefined)).toBe(50);
    expect(unpagedLimit(7)).toBe(7);
    expect(unpagedLimit(10_000)).toBe(1000);
  });
});
