// The cookie jar of one Run: RFC 6265 rules (domain and path matching, expiry, Secure, host-only,
// public suffixes) by tough-cookie, shared by every page and input of the Run, over HTTP (each hop of a
// request, redirects included, sends and stores cookies) and in the browser (the jar's cookies go into
// the page's context before it navigates and come back after it rendered).
import { Cookie, CookieJar } from 'tough-cookie';
import type { RequestCookie } from './definition-requests.js';
import type { BrowserCookie } from './page.js';

/** What the HTTP client needs of a cookie jar: the Cookie header for a hop, and the hop's Set-Cookie. */
export interface CookieSession {
  header(url: URL): string;
  store(url: URL, setCookie: string | string[] | undefined): void;
}

const SAME_SITE: Record<string, BrowserCookie['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None' };

export class RunCookieJar implements CookieSession {
  readonly #jar = new CookieJar(undefined, { looseMode: true, allowSpecialUseDomain: true });
  /** Nothing was ever stored: a Run on a site that sets no cookie pays nothing per hop (a lookup costs ~20 µs). */
  #empty = true;

  /** The Cookie header for a request to `url` (empty when no cookie applies). */
  header(url: URL): string {
    return this.#empty ? '' : this.#jar.getCookieStringSync(url.href);
  }

  /** A response's Set-Cookie headers; a cookie the rules refuse (another site's domain) is dropped. */
  store(url: URL, setCookie: string | string[] | undefined): void {
    if (setCookie === undefined) return;
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) this.#set(line, url.href);
  }

  /** The definition's initial cookies; without a domain a cookie belongs to `startUrl`'s host alone. */
  addInitial(cookies: RequestCookie[], startUrl: string): void {
    for (const c of cookies) {
      const host = c.domain?.replace(/^\./, '');
      const url = host ? `http://${host.includes(':') ? `[${host}]` : host}/` : startUrl;
      const domain = c.domain ? `; Domain=${c.domain}` : '';
      this.#set(`${c.name}=${c.value}; Path=${c.path ?? '/'}${domain}`, url);
    }
  }

  #set(cookie: string, url: string): void {
    if (this.#jar.setCookieSync(cookie, url, { ignoreError: true })) this.#empty = false;
  }

  /** Every cookie of the jar, as a browser context takes them. */
  toBrowser(): BrowserCookie[] {
    const now = Date.now();
    if (this.#empty) return [];
    return (this.#jar.serializeSync()?.cookies ?? []).flatMap((json) => {
      const c = Cookie.fromJSON(json);
      const expiry = c?.expiryTime();
      if (!c?.domain || (expiry !== undefined && expiry <= now)) return [];
      return [
        {
          name: c.key,
          value: c.value,
          domain: c.hostOnly ? c.domain : `.${c.domain}`,
          path: c.path ?? '/',
          expires: expiry === undefined || !Number.isFinite(expiry) ? -1 : Math.floor(expiry / 1000),
          httpOnly: c.httpOnly,
          secure: c.secure,
          sameSite: SAME_SITE[String(c.sameSite).toLowerCase()] ?? 'Lax',
        },
      ];
    });
  }

  /** The cookies of a browser context after a page rendered: new and changed ones replace the jar's. */
  fromBrowser(cookies: BrowserCookie[]): void {
    for (const c of cookies) {
      const host = c.domain.replace(/^\./, '');
      const parts = [`${c.name}=${c.value}`, `Path=${c.path}`];
      if (c.domain.startsWith('.')) parts.push(`Domain=${host}`);
      if (c.expires > 0) parts.push(`Expires=${new Date(c.expires * 1000).toUTCString()}`);
      if (c.httpOnly) parts.push('HttpOnly');
      if (c.secure) parts.push('Secure');
      parts.push(`SameSite=${c.sameSite}`);
      const url = `${c.secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}${c.path}`;
      this.#set(parts.join('; '), url);
    }
  }
}
