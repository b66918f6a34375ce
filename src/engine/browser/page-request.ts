// A page request in Chromium beyond a plain navigation: the definition's method, headers and body put on
// the page's main navigation (by routing it), a login form filled and submitted, and the context's
// cookies handed back for the Run's jar.
import type { Cookie, Page, Route } from 'playwright-core';
import type { BrowserCookie, PageRequest } from '../page.js';

/** How long a submitted form may take to navigate before the page is read as it is (a form sent by script). */
const SUBMIT_NAVIGATION_MS = 10_000;

/**
 * A route handler giving the page's first main-frame navigation the request's method, headers and body;
 * every other request falls through to the context's handler (blocked resources). Null for a plain GET.
 */
export function requestRoute(page: Page, request: PageRequest): ((route: Route) => Promise<void>) | null {
  const plain = request.method === 'GET' && request.body === undefined && Object.keys(request.headers).length === 0;
  if (plain) return null;
  let used = false;
  return (route) => {
    const r = route.request();
    if (used || !r.isNavigationRequest() || r.frame() !== page.mainFrame()) return route.fallback();
    used = true;
    const headers = { ...r.headers() };
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    return route.fallback({ method: request.method, headers, postData: request.body });
  };
}

const quoted = (text: string) => text.replace(/["\\]/g, '\\$&');

/** Fills the named fields and submits their form (a click on `submit`, else Enter in the last field). */
export async function fillForm(page: Page, fill: NonNullable<PageRequest['fill']>, left: () => number): Promise<void> {
  const names = Object.keys(fill.fields);
  for (const name of names)
    await page
      .locator(`[name="${quoted(name)}"]`)
      .first()
      .fill(fill.fields[name], { timeout: left() });
  const navigated = page
    .waitForNavigation({ waitUntil: 'load', timeout: Math.min(SUBMIT_NAVIGATION_MS, left()) })
    .catch(() => null);
  if (fill.submit !== undefined) await page.locator(fill.submit).first().click({ timeout: left() });
  else
    await page
      .locator(`[name="${quoted(names[names.length - 1])}"]`)
      .first()
      .press('Enter', { timeout: left() });
  await navigated;
  await page.waitForLoadState('load', { timeout: left() });
}

/** A context's cookies as the engine keeps them. */
export function browserCookies(cookies: Cookie[]): BrowserCookie[] {
  return cookies.map(({ name, value, domain, path, expires, httpOnly, secure, sameSite }) => ({
    name,
    value,
    domain,
    path,
    expires,
    httpOnly,
    secure,
    sameSite,
  }));
}
