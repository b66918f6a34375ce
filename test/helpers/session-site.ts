import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site behind a login, served on 127.0.0.1 (random port), for the tests of requests and sessions.
 *
 * - `GET /login`: a form (`form#login`, action `/session`, POST) with a hidden `csrf` token tied to a
 *   `pre` cookie it sets, `username`, `password` and a submit button. `?next=/x` is kept in the form.
 * - `POST /session`: the form's target. Right token and credentials (`USER` / `PASSWORD`): a `sid`
 *   cookie (HttpOnly) and 302 to `/account`; otherwise 200 with the form again and "Invalid password".
 * - `GET /account`: with a session, `a.logout`; without, 302 to `/login`.
 * - `GET /list?page=1|2`: with a session, three `div.item` (`a` -> `/item/N`, `span.name`), page 1 has
 *   `a.next`; without, 302 to `/login`. `GET /item/N`: with a session `h1` "Item N", else 403.
 * - `POST /search` (form `q`) and `POST /api/search` (JSON `{q}`): three `div.result` echoing `q`.
 * - `GET /gated`: 403 unless `X-Api-Key: KEY`. `GET /consent`: 403 unless the cookie `consent=yes`.
 * - `POST /session-away`: like `/session` but answers 307 to the URL in `?to=` (a private hop).
 * - `GET /login-away?to=URL`: a login form whose action is `/session-away?to=URL`.
 * - `GET /login-multipart`: the login form with `enctype="multipart/form-data"`, action
 *   `/session-multipart`, which answers 415 to anything but a multipart body.
 */
export interface SessionSite {
  url: string;
  port: number;
  /** Every request: method, path with query, headers and body. */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

export const SITE_USER = 'ada';
export const SITE_PASSWORD = 'correct horse battery';
export const SITE_KEY = 'key-123';

function page(body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
}

function cookiesOf(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** The fields of a multipart/form-data body (RFC 7578), by the boundary its Content-Type names. */
function multipartFields(contentType: string, body: string): URLSearchParams {
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1] ?? '';
  const fields = new URLSearchParams();
  for (const part of body.split(`--${boundary}`).slice(1, -1)) {
    const [head, ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (name !== undefined) fields.append(name, rest.join('\r\n\r\n').replace(/\r\n$/, ''));
  }
  return fields;
}

const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export async function startSessionSite(): Promise<SessionSite> {
  const requests: SessionSite['requests'] = [];
  const tokens = new Map<string, string>(); // pre cookie -> csrf token
  const sessions = new Set<string>();

  const loginForm = (
    res: http.ServerResponse,
    req: http.IncomingMessage,
    action: string,
    notice = '',
    enctype = '',
  ) => {
    let pre = cookiesOf(req).pre;
    if (!pre || !tokens.has(pre)) pre = randomBytes(8).toString('hex');
    const token = randomBytes(8).toString('hex');
    tokens.set(pre, token);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': `pre=${pre}; Path=/` });
    res.end(
      page(
        `${notice}<form id="search" action="/search" method="post"><input name="q"></form>` +
          `<form id="login" action="${escape(action)}" method="post"${enctype && ` enctype="${enctype}"`}>` +
          `<input type="hidden" name="csrf" value="${token}">` +
          `<input name="username"><input type="password" name="password">` +
          `<input type="checkbox" name="remember" value="1" checked>` +
          `<button type="submit" name="go" value="in">Log in</button></form>`,
      ),
    );
  };

  const logIn = (req: http.IncomingMessage, body: string): boolean => {
    const type = req.headers['content-type'] ?? '';
    const form = type.startsWith('multipart/form-data') ? multipartFields(type, body) : new URLSearchParams(body);
    const pre = cookiesOf(req).pre;
    return (
      pre !== undefined &&
      tokens.get(pre) === form.get('csrf') &&
      form.get('username') === SITE_USER &&
      form.get('password') === SITE_PASSWORD &&
      form.get('remember') === '1' &&
      form.get('go') === 'in'
    );
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // robots.txt (fetched by every Run that respects it) has no rules here and is not recorded.
      if (req.url === '/robots.txt') return res.writeHead(404).end('not found');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const signedIn = sessions.has(cookiesOf(req).sid ?? '');
      const html = (status: number, content: string) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page(content));
      const toLogin = () => res.writeHead(302, { location: '/login' }).end();
      switch (`${req.method} ${url.pathname}`) {
        case 'GET /login':
          return loginForm(res, req, '/session');
        case 'GET /login-multipart':
          return loginForm(res, req, '/session-multipart', '', 'multipart/form-data');
        case 'GET /login-away':
          return loginForm(res, req, `/session-away?to=${encodeURIComponent(url.searchParams.get('to') ?? '')}`);
        case 'POST /session-multipart':
          if (!(req.headers['content-type'] ?? '').startsWith('multipart/form-data'))
            return html(415, 'multipart only');
        // falls through: a multipart login is checked as any other
        case 'POST /session':
        case 'POST /session-away': {
          if (!logIn(req, body)) return loginForm(res, req, '/session', '<p class="error">Invalid password</p>');
          const sid = randomBytes(8).toString('hex');
          sessions.add(sid);
          const location = url.pathname === '/session-away' ? (url.searchParams.get('to') ?? '/') : '/account';
          res.writeHead(url.pathname === '/session-away' ? 307 : 302, {
            location,
            'set-cookie': `sid=${sid}; Path=/; HttpOnly`,
          });
          return res.end();
        }
        case 'GET /account':
          return signedIn ? html(200, '<a class="logout" href="/logout">Log out</a>') : toLogin();
        case 'GET /list': {
          if (!signedIn) return toLogin();
          const n = Number(url.searchParams.get('page') ?? '1');
          const items = [1, 2, 3].map((i) => (n - 1) * 3 + i);
          const next = n === 1 ? '<a class="next" href="/list?page=2">next</a>' : '';
          return html(
            200,
            items
              .map((i) => `<div class="item"><a href="/item/${i}"><span class="name">Item ${i}</span></a></div>`)
              .join('') + next,
          );
        }
        case 'POST /search':
        case 'POST /api/search': {
          const q =
            url.pathname === '/search'
              ? new URLSearchParams(body).get('q')
              : ((JSON.parse(body || '{}') as { q?: string }).q ?? null);
          const kind = req.headers['content-type'] ?? '';
          return html(
            200,
            [1, 2, 3]
              .map(
                (i) =>
                  `<div class="result"><span class="q">${escape(String(q))} ${i}</span><span class="type">${escape(kind)}</span></div>`,
              )
              .join(''),
          );
        }
        case 'GET /gated':
          if (req.headers['x-api-key'] !== SITE_KEY) return html(403, 'forbidden');
          return html(200, '<div class="item"><span class="name">Gated</span></div>');
        case 'GET /consent':
          if (cookiesOf(req).consent !== 'yes') return html(403, 'forbidden');
          return html(200, '<div class="item"><span class="name">Consented</span></div>');
        default:
          if (url.pathname.startsWith('/item/')) {
            if (!signedIn) return html(403, 'forbidden');
            return html(200, `<h1>Item ${url.pathname.slice(6)}</h1>`);
          }
          return html(404, 'not found');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
