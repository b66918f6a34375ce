// A preview's wait for a rendered page (the Agent Builder's, see BrowserSourceOptions.settleWithinMs):
// the page's load and a quiet network, each only until a deadline, after which the page is read as it is.
import type { Page } from 'playwright-core';

// Playwright's own TimeoutError, told by its name: playwright-core is loaded only when a browser starts (pool.ts).
const isPlaywrightTimeout = (error: unknown) => error instanceof Error && error.name === 'TimeoutError';

/** The page's load, then a quiet network, each waited for until `withinMs` has passed, not beyond. */
export async function settleBriefly(page: Page, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (const state of ['load', 'networkidle'] as const) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    try {
      await page.waitForLoadState(state, { timeout: left });
    } catch (error) {
      if (!isPlaywrightTimeout(error)) throw error;
      return;
    }
  }
}
