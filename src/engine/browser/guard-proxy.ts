// A local forward proxy that every request of a Run's browser context goes through (documents, redirects,
// subresources, XHR, WebSockets), so the browser obeys the same SSRF rule as the HTTP path (resolvePublic):
// every target is checked, with or without the Run's proxy; without one, the address a connection is
// opened to is the address that was checked (no window for DNS rebinding); with one, the proxy is checked
// the same way and reached over http or https, and the target is tunnelled through it with CONNECT. With a
// proxy pool, the credential a browser context presents names the proxy of the pool its requests go
// through (one context per proxy: the browser source rotates pages over them). It counts the bytes
// received and asks the browser for a per-Run credential, so nothing else on the machine can borrow it to
// reach private addresses.
import { randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { parseProxyUrl } from '../proxy-rotation.js';
import { resolvePublic, TargetRefusedError, type Hop, type TargetPolicy } from '../ssrf.js';

export interface GuardProxyOptions extends TargetPolicy {
  /** The Run's proxy (the proxy rule of ssrf.ts: http: or https:); the guard tunnels targets through it. */
  upstreamProxyUrl?: string;
  /** The Run's proxy pool (its own proxy first), replacing upstreamProxyUrl: a context per proxy. */
  upstreamProxyPool?: string[];
  onRefused?: (error: TargetRefusedError) => void;
}

export interface GuardProxyEndpoint {
  server: string;
  username: string;
  password: string;
  bypass: string;
}

const HOP_HEADERS = ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive'];

export class GuardProxy {
  receivedBytes = 0;
  /** `host` of every target refused, with the refusal, so a refused document can be reported as such. */
  readonly #refusals = new Map<string, TargetRefusedError>();
  /** A proxy of the Run's pool (by index) was refused: every request through it fails for that reason. */
  readonly #proxyRefusals = new Map<number, TargetRefusedError>();
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  readonly #password = randomBytes(18).toString('base64url');
  /** The Run's proxies; empty when requests go straight to their targets. */
  readonly #upstreams: URL[];

  constructor(private readonly options: GuardProxyOptions) {
    const pool = options.upstreamProxyPool ?? (options.upstreamProxyUrl ? [options.upstreamProxyUrl] : []);
    this.#upstreams = pool.map(parseProxyUrl);
    this.#server = createServer((req, res) => void this.#forward(req, res));
    this.#server.on(
      'connect',
      (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#tunnel(req, socket, head),
    );
    // A WebSocket over plain HTTP comes as an upgrade only without CONNECT; Chromium tunnels them, so refuse.
    this.#server.on('upgrade', (_req, socket: Duplex) => socket.destroy());
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
  }

  /** Listens; the endpoint's credential sends requests through the first proxy of the pool (or direct). */
  async start(): Promise<GuardProxyEndpoint> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    // '<-loopback>' removes Chromium's implicit bypass of localhost: loopback targets must meet the guard too.
    return { server: `http://127.0.0.1:${port}`, ...this.credentialOf(0), bypass: '<-loopback>' };
  }

  /** The credential of a context whose requests go through the pool's proxy `index`. */
  credentialOf(index: number): { username: string; password: string } {
    return { username: `p${index}`, password: this.#password };
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** The index of the pool's proxy the request's credential names (0 without a pool), or null when refused. */
  #authorized(req: IncomingMessage): number | null {
    const header = req.headers['proxy-authorization'] ?? '';
    if (!header.startsWith('Basic ')) return null;
    const match = /^p(\d+):(.*)$/s.exec(Buffer.from(header.slice(6), 'base64').toString('utf8'));
    if (!match || match[2] !== this.#password) return null;
    const index = Number(match[1]);
    return index < Math.max(1, this.#upstreams.length) ? index : null;
  }

  /**
   * Why a request for `host` through the pool's proxy `index` was refused: that proxy, or the target;
   * undefined when it was not.
   */
  refusalFor(host: string, index = 0): TargetRefusedError | undefined {
    return this.#proxyRefusals.get(index) ?? this.#refusals.get(host);
  }

  /** resolvePublic for one hop; a refusal is remembered (refusalFor) and reported. */
  async #check(hop: URL | Hop, role: 'target' | 'proxy', index = 0): Promise<string> {
    try {
      return (await resolvePublic(hop, this.options, role))[0].address;
    } catch (error) {
      if (error instanceof TargetRefusedError) {
        if (role === 'proxy') this.#proxyRefusals.set(index, error);
        else this.#refusals.set(hop.hostname, error);
        this.options.onRefused?.(error);
      }
      throw error;
    }
  }

  /**
   * Opens the connection that carries a request. The target is checked in every case; without a Run's
   * proxy the connection goes to the target's checked address, with one to the proxy's checked address
   * (over TLS for an https proxy), then through a CONNECT tunnel to the target.
   */
  async #open(host: string, port: number, index: number): Promise<Socket> {
    const target = await this.#check({ hostname: host, port }, 'target');
    const upstream = this.#upstreams[index] ?? null;
    let socket: Socket;
    if (upstream) {
      const address = await this.#check(upstream, 'proxy', index);
      const proxyPort = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
      socket =
        upstream.protocol === 'https:'
          ? tlsConnect({
              host: address,
              port: proxyPort,
              ...(isIP(upstream.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: upstream.hostname }),
            })
          : connect({ host: address, port: proxyPort });
    } else socket = connect({ host: target, port });
    this.#track(socket);
    socket.on('data', (chunk: Buffer) => (this.receivedBytes += chunk.length));
    await new Promise<void>((resolve, reject) => {
      socket.once(upstream?.protocol === 'https:' ? 'secureConnect' : 'connect', resolve);
      socket.once('error', reject);
    });
    if (upstream) await this.#upstreamConnect(socket, upstream, host, port);
    return socket;
  }

  /** CONNECT through the Run's proxy, with its credentials; resolves once it answered 200. */
  async #upstreamConnect(socket: Socket, upstream: URL, host: string, port: number): Promise<void> {
    const auth = upstream.username
      ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`).toString('base64')}\r\n`
      : '';
    const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
    const head = await new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) {
          socket.off('data', onData);
          resolve(text);
        }
      };
      socket.on('data', onData);
      socket.once('error', reject);
    });
    if (!/^HTTP\/1\.[01] 200/.test(head)) throw new Error(`the proxy answered ${head.split('\r\n')[0]}`);
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.#track(client);
    const index = this.#authorized(req);
    if (index === null) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="run"\r\n\r\n');
      return;
    }
    const [host, portText] = splitHostPort(req.url ?? '');
    try {
      const upstream = await this.#open(host, Number(portText || 443), index);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    } catch (error) {
      client.end(`HTTP/1.1 ${error instanceof TargetRefusedError ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
    }
  }

  /** A plain-HTTP request (absolute URI): sent over a connection opened by #open. */
  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const index = this.#authorized(req);
    if (index === null) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="run"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new TypeError('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const headers = { ...req.headers };
    for (const name of HOP_HEADERS) delete headers[name];
    try {
      const socket = await this.#open(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80), index);
      const upstream = httpRequest({
        createConnection: () => socket,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, connection: 'close' },
      });
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    } catch (error) {
      res.writeHead(error instanceof TargetRefusedError ? 403 : 502, { 'content-type': 'text/plain' }).end();
    }
  }
}

function splitHostPort(authority: string): [string, string] {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  return match ? [match[1].replace(/^\[|\]$/g, ''), match[2] ?? ''] : [authority, ''];
}
