// How long the search for a page's records may take. Each step of the search is linear or bounded in
// the page's size, but a page of a kind never seen may still hold more structures than the caps
// foresee: past the budget the search stops taking optional steps (aligning one more group, seeking a
// selector for one more candidate, following detail pages) and the best draft found by then is used.

/** The search's time before it stops taking optional steps: a person waits for the draft. */
export const SEARCH_BUDGET_MS = 3_000;

export interface SearchBudget {
  /**
   * Whether the time is spent. Asked before an optional step only, so that `true` means the step is
   * left out: the search was cut short.
   */
  spent(): boolean;
  /** Whether some step was left out because the time was spent. */
  readonly cut: boolean;
  readonly ms: number;
}

/** A budget of `ms` from now, read on `now` (milliseconds; injected so that tests need no timing). */
export function searchBudget(ms = SEARCH_BUDGET_MS, now: () => number = () => performance.now()): SearchBudget {
  const end = now() + ms;
  let cut = false;
  return {
    ms,
    spent() {
      if (now() < end) return false;
      cut = true;
      return true;
    },
    get cut() {
      return cut;
    },
  };
}

/** No limit: the search takes every step (the default outside a session). */
export const UNLIMITED: SearchBudget = { ms: Infinity, spent: () => false, cut: false };

/** The session's note when the search was cut short. */
export function cutShortNote(budget: SearchBudget): string {
  return `The search for the page's records was cut short after ${budget.ms / 1000} s (its time limit on a large page): the draft is the best found by then.`;
}
