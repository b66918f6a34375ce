import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * A small website served on 127.0.0.1 (random port) for extraction tests.
 *
 * Pages:
 * - `/catalog?page=1..3`: 10 products each (`div.product` > `a.title` "Product N" -> `/product/N`,
 *   `span.price` "$N*1.25", `span.badge` "Sale" when N is a multiple of 5), `a.next` to the following page
 *   on pages 1 and 2. `ms=X` delays the page (and is carried to the next link), `detailMs=Y` adds
 *   `?ms=Y` to product links.
 * - `/product/N[?ms=X]`: `h1.name` "Product N", `p.sku` "SKU-N", `div.description`, `a.back` (relative).
 * - `/blocked`: 403. `/status/CODE`: that status (`Retry-After: 0` on 429 and 503).
 * - `/flaky?key=K`: 500 twice per key, then a page with one product.
 * - `/hang`: never answers; the connection stays open until the client or `close()` ends it.
 * - `/redirect` -> 302 `/catalog?page=1`; `/redirect-loop?n=N` redirects forever.
 * - `/slow?ms=N`: answers after N ms.
 * - `/search?q=...`: three `div.result` echoing the query in `span.query`.
 * - `/gzip`: gzip-compressed page with two products. `/latin1`: ISO-8859-1 page ("Café").
 * - `/links`: three `div.product`: one linking `/product/1`, one linking `/blocked`, one without a link.
 * - `/transforms`: values for field transform tests.
 * - `/empty-list`: 200, a page without any `div.product` (a list selector matches nothing).
 * - `/dead-end`: 200, one product and an `a.next` link to `/status/404` (pagination stops early).
 * - `/deep?levels=N`: 200, one product followed by text in a table (which the fast parse path leaves to
 *   parse5) and N nested `div`s (costly for parse5: quadratic in N).
 * - `/deep-links?levels=N`: two `div.product`: one linking `/product/1`, one linking `/deep?levels=N`.
 */
export interface FixtureSite {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:43123 */
  url: string;
  close(): Promise<void>;
  /** Requests per path with query string (`/catalog?page=1`). */
  hits: Map<string, number>;
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** Highest `inFlight` seen since start or the last `resetMaxInFlight()`. */
  readonly maxInFlight: number;
  resetMaxInFlight(): void;
}

export const PRODUCTS_PER_PAGE = 10;
export const CATALOG_PAGES = 3;

export function productPrice(n: number): string {
  return `$${(n * 1.25).toFixed(2)}`;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${title}</title></head><body>\n${body}\n</body></html>\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function productHtml(n: number, linkSuffix = ''): string {
  const badge = n % 5 === 0 ? '<span class="badge">Sale</span>' : '';
  return `<div class="product"><a class="title" href="/product/${n}${linkSuffix}">Product ${n}</a><span class="price">${productPrice(n)}</span>${badge}</div>`;
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const hits = new Map<string, number>();
  const flakyCounters = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    // robots.txt, fetched by every Run that respects it (the default), has no rules here (404) and is
    // not counted: the counts are the pages'.
    if (target === '/robots.txt') {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page('Not found', '<h1>Not found</h1>'));
    }
    hits.set(target, (hits.get(target) ?? 0) + 1);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);

    const url = new URL(target, 'http://fixture.local');
    const send = (status: number, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(body);
    };
    const delayMs = Number(url.searchParams.get('ms') ?? 0);
    const respond = (fn: () => void) => (delayMs > 0 ? later(delayMs, fn) : fn());
    const path = url.pathname;

    if (path === '/catalog') {
      const pageNumber = Number(url.searchParams.get('page') ?? '1');
      if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > CATALOG_PAGES) {
        return send(404, page('Not found', '<p>No such page</p>'));
      }
      const detailMs = url.searchParams.get('detailMs');
      const linkSuffix = detailMs ? `?ms=${detailMs}` : '';
      // `per`: products on the page (a Run whose records outgrow what a run holds in memory).
      const per = Math.min(Math.max(Number(url.searchParams.get('per') ?? PRODUCTS_PER_PAGE) || 1, 1), 50_000);
      const first = (pageNumber - 1) * per + 1;
      const products = Array.from({ length: per }, (_, i) => productHtml(first + i, linkSuffix)).join('\n');
      const nextParams = new URLSearchParams(url.searchParams);
      nextParams.set('page', String(pageNumber + 1));
      const next =
        pageNumber < CATALOG_PAGES ? `<a class="next" href="/catalog?${nextParams.toString()}">Next</a>` : '';
      return respond(() =>
        send(200, page(`Catalog page ${pageNumber}`, `<div class="catalog">\n${products}\n</div>\n${next}`)),
      );
    }

    const product = path.match(/^\/product\/(\d+)$/);
    if (product) {
      const n = Number(product[1]);
      return respond(() =>
        send(
          200,
          page(
            `Product ${n}`,
            `<h1 class="name">Product ${n}</h1><p class="sku">SKU-${n}</p>` +
              `<div class="description">  Product ${n} is a fine product.  </div><a class="back" href="../catalog?page=1">Back</a>`,
          ),
        ),
      );
    }

    if (path === '/blocked') return send(403, page('Forbidden', '<h1>Access denied</h1>'));

    const status = path.match(/^\/status\/(\d{3})$/);
    if (status) {
      const code = Number(status[1]);
      const headers = code === 429 || code === 503 ? { 'retry-after': '0' } : {};
      return send(code, page(`Status ${code}`, `<h1>Status ${code}</h1>`), headers);
    }

    if (path === '/flaky') {
      const key = url.searchParams.get('key') ?? '';
      const count = (flakyCounters.get(key) ?? 0) + 1;
      flakyCounters.set(key, count);
      if (count <= 2) return send(500, page('Error', '<h1>Internal error</h1>'));
      return send(200, page('Flaky', productHtml(1)));
    }

    if (path === '/hang') return; // Never answers.
    if (path === '/huge') {
      // More than the engine accepts in one answer (16 MB), sent in 1 MB chunks.
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      for (let i = 0; i < 17; i++) res.write(chunk);
      return res.end();
    }

    if (path === '/redirect') {
      res.writeHead(302, { location: '/catalog?page=1' });
      return res.end();
    }
    if (path === '/redirect-loop') {
      const n = Number(url.searchParams.get('n') ?? 0);
      res.writeHead(302, { location: `/redirect-loop?n=${n + 1}` });
      return res.end();
    }

    if (path === '/slow') return respond(() => send(200, page('Slow', productHtml(1))));

    if (path === '/search') {
      const q = url.searchParams.get('q') ?? '';
      const results = [1, 2, 3]
        .map((n) => `<div class="result"><span class="query">${escapeHtml(q)}</span> <span class="n">${n}</span></div>`)
        .join('\n');
      return send(200, page(`Search ${escapeHtml(q)}`, results));
    }

    if (path === '/gzip') {
      const body = zlib.gzipSync(page('Compressed', [productHtml(1), productHtml(2)].join('\n')));
      return send(200, body, { 'content-encoding': 'gzip' });
    }

    if (path === '/latin1') {
      const body = Buffer.from(
        page('Latin-1', '<div class="product"><a class="title" href="/product/1">Café</a></div>').replace(
          'utf-8',
          'iso-8859-1',
        ),
        'latin1',
      );
      return send(200, body, { 'content-type': 'text/html; charset=iso-8859-1' });
    }

    if (path === '/links') {
      const items = [
        '<div class="product"><a class="title" href="/product/1">Good link</a></div>',
        '<div class="product"><a class="title" href="/blocked">Blocked link</a></div>',
        '<div class="product"><span class="title">No link</span></div>',
      ];
      return send(200, page('Links', items.join('\n')));
    }

    if (path === '/transforms') {
      return send(
        200,
        page(
          'Transforms',
          `<div class="item" data-id="item-1">
  <span class="name">
    Widget   </span>
  <span class="price">EUR 1,234.50 incl. tax</span>
  <span class="none">n/a</span>
  <a class="link" href="../docs/widget?x=1#top">Docs</a>
  <img class="pic" src="/img/widget.png">
  <div class="rich"><b>Bold</b> &amp; plain</div>
</div>`,
        ),
      );
    }

    if (path === '/empty-list') return send(200, page('Redesigned', '<main><section class="items"></section></main>'));

    if (path === '/dead-end')
      return send(200, page('Dead end', `${productHtml(1)}\n<a class="next" href="/status/404">Next</a>`));

    if (path === '/deep') {
      const levels = Number(url.searchParams.get('levels') ?? 0);
      const nested = `${'<div>'.repeat(levels)}${'</div>'.repeat(levels)}`;
      return send(200, page('Deep', `${productHtml(1)}\n<table>x</table>${nested}`));
    }
    if (path === '/deep-links') {
      const levels = Number(url.searchParams.get('levels') ?? 0);
      const deep = `<div class="product"><a class="title" href="/deep?levels=${levels}">Deep</a></div>`;
      return send(200, page('Deep links', `${productHtml(1)}\n${deep}`));
    }

    send(404, page('Not found', '<h1>Not found</h1>'));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    resetMaxInFlight() {
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging and keep-alive connections would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

/** An Agent definition that reads the catalog (10 products a page, up to 10 pages by its next link). */
export function catalogDefinition(siteUrl: string, opts: { format?: 'csv' | 'json' | 'ndjson'; ms?: number } = {}) {
  return {
    startUrl: `${siteUrl}/catalog?page=1${opts.ms ? `&ms=${opts.ms}` : ''}`,
    list: {
      selector: 'div.product',
      fields: [
        { name: 'title', selector: 'a.title' },
        { name: 'price', selector: 'span.price' },
        { name: 'url', selector: 'a.title', attribute: 'href', transform: 'absoluteUrl' },
      ],
    },
    next: { selector: 'a.next', maxPages: 10 },
    export: { format: opts.format ?? 'csv' },
  };
}
