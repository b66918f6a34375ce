// A site on 127.0.0.1 that measures how it is crawled: when each request started and ended, the most
// requests in flight at once (robots.txt left out), and what robots.txt it serves. `/list?n=&ms=` lists n
// items linking to `/item/<i>?ms=`, each answered after ms milliseconds; `busyOnce` answers the first
// request for one path 429 with Retry-After.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  start: number;
  end: number;
  userAgent: string;
  /** The port the request came from: tells which proxy's tunnel carried it (CountingProxy.ports). */
  remotePort: number;
}

export interface PoliteSite {
  url: string;
  port: number;
  /** Every request but robots.txt, in the order they came. */
  seen: SeenRequest[];
  /** robots.txt requests. */
  robotsHits: number;
  readonly maxInFlight: number;
  /** robots.txt: its text (200), a status, or null for 404. */
  robots: string | number | null;
  /** A path whose first request answers 429 with `Retry-After: <seconds>`. */
  busyOnce?: { path: string; seconds: number; answeredAt?: number };
  reset(): void;
  close(): Promise<void>;
}

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

export async function startPoliteSite(robots: string | number | null = null): Promise<PoliteSite> {
  let inFlight = 0;
  const site = {
    seen: [] as SeenRequest[],
    robotsHits: 0,
    maxInFlight: 0,
    robots,
    busyOnce: undefined as PoliteSite['busyOnce'],
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/robots.txt') {
      site.robotsHits++;
      const r = site.robots;
      if (typeof r === 'string') return res.writeHead(200, { 'content-type': 'text/plain' }).end(r);
      return res.writeHead(typeof r === 'number' ? r : 404).end('no robots');
    }
    const entry: SeenRequest = {
      path: `${url.pathname}${url.search}`,
      start: Date.now(),
      end: 0,
      userAgent: req.headers['user-agent'] ?? '',
      remotePort: req.socket.remotePort ?? 0,
    };
    site.seen.push(entry);
    inFlight++;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    const send = (status: number, body: string, headers: http.OutgoingHttpHeaders = {}) => {
      setTimeout(
        () => {
          entry.end = Date.now();
          inFlight--;
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
        },
        Number(url.searchParams.get('ms') ?? 0),
      );
    };
    const busy = site.busyOnce;
    if (busy && busy.answeredAt === undefined && url.pathname === busy.path) {
      busy.answeredAt = Date.now();
      entry.end = busy.answeredAt;
      inFlight--;
      return res.writeHead(429, { 'retry-after': String(busy.seconds) }).end('slow down');
    }
    if (url.pathname === '/list') {
      const n = Number(url.searchParams.get('n') ?? 4);
      const ms = url.searchParams.get('ms') ?? '0';
      const items = Array.from(
        { length: n },
        (_, i) => `<li class="item"><a class="name" href="/item/${i + 1}?ms=${ms}">Item ${i + 1}</a></li>`,
      );
      return send(200, page(`<ul>${items.join('')}</ul>`));
    }
    const item = /^\/item\/(\d+)$/.exec(url.pathname);
    if (item) return send(200, page(`<p class="sku">sku-${item[1]}</p>`));
    send(404, page('<h1>Not found</h1>'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(site, {
    url: `http://127.0.0.1:${port}`,
    port,
    reset() {
      site.seen.length = 0;
      site.robotsHits = 0;
      site.maxInFlight = 0;
      site.busyOnce = undefined;
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  });
}

/** The Agent the polite site is crawled with: its list, and each item's detail page. */
export function politeDefinition(siteUrl: string, query = 'n=4', extra: Record<string, unknown> = {}) {
  return {
    startUrl: `${siteUrl}/list?${query}`,
    list: { selector: 'li.item', fields: [{ name: 'name', selector: 'a.name' }] },
    follow: { selector: 'a.name', fields: [{ name: 'sku', selector: '.sku' }] },
    ...extra,
  };
}

/** Gaps in milliseconds between the starts of consecutive requests. */
export function startGaps(seen: SeenRequest[]): number[] {
  const starts = seen.map((s) => s.start).sort((a, b) => a - b);
  return starts.slice(1).map((t, i) => t - starts[i]);
}

/** A banning site for a proxy: every request answers 403 with a block page. */
export async function startBanSite(): Promise<{ port: number; hits: number; close(): Promise<void> }> {
  const state = { hits: 0 };
  const server = http.createServer((_req, res) => {
    state.hits++;
    res.writeHead(403, { 'content-type': 'text/html' }).end(page('<h1>Access denied</h1>'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return Object.assign(state, {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  });
}

/** A proxy the sites have banned: what goes through it (tunnelled or not) is answered 403 "Access denied". */
export async function startBanningProxy(): Promise<{ port: number; proxied: string[]; close(): Promise<void> }> {
  const ban = await startBanSite();
  const proxied: string[] = [];
  const sockets = new Set<import('node:stream').Duplex>();
  const server = http.createServer((req, res) => {
    proxied.push(req.url ?? '');
    res.writeHead(403, { 'content-type': 'text/html' }).end(page('<h1>Access denied</h1>'));
  });
  server.on('connect', (req, socket, head) => {
    proxied.push(`CONNECT ${req.url}`);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const upstream = net.connect(ban.port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    proxied,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await ban.close();
    },
  };
}

/**
 * A forward proxy that tunnels CONNECT to the target and keeps the local port of each tunnel's
 * upstream socket, so a site can tell which proxy carried each request (SeenRequest.remotePort).
 */
export async function startCountingProxy(): Promise<{ port: number; ports: Set<number>; close(): Promise<void> }> {
  const ports = new Set<number>();
  const sockets = new Set<import('node:stream').Duplex>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket, head) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      ports.add(upstream.localPort ?? 0);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    ports,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
