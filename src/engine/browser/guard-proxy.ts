// A local forward proxy that every request of a Run's browser context goes through (documents, redirects,
// subresources, XHR, WebSockets), so the browser obeys the same SSRF rule as the HTTP path: the address a
// connection is opened to is the address that was checked (no window for DNS rebinding). It also chains
// to the Run's proxy pool, counts the bytes received and asks the browser for a per-Run credential, so
// nothing else on the machine can borrow it to reach private addresses.
import { randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isPrivateAddress, TargetRefusedError } from '../ssrf.js';

export interface GuardProxyOptions {
  allowPrivateTargets: boolean;
  /** The Run's proxy (http: only); the guard connects to it instead of to targets. */
  upstreamProxyUrl?: string;
  /** Which resolved addresses are refused; defaults to the SSRF guard's rule. */
  isRefusedAddress?: (address: string, port: number) => boolean;
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
  readonly refusals = new Map<string, TargetRefusedError>();
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  readonly #credential = { username: 'run', password: randomBytes(18).toString('base64url') };
  readonly #upstream: URL | null;
  readonly #isRefused: (address: string, port: number) => boolean;

  constructor(private readonly options: GuardProxyOptions) {
    this.#upstream = options.upstreamProxyUrl ? new URL(options.upstreamProxyUrl) : null;
    if (this.#upstream && this.#upstream.protocol !== 'http:') {
      throw new TypeError(`a browser Run's proxy must be an http proxy, not ${this.#upstream.protocol}`);
    }
    this.#isRefused = options.allowPrivateTargets
      ? () => false
      : (options.isRefusedAddress ?? ((address) => isPrivateAddress(address)));
    this.#server = createServer((req, res) => void this.#forward(req, res));
    this.#server.on(
      'connect',
      (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.#tunnel(req, socket, head),
    );
    // A WebSocket over plain HTTP comes as an upgrade only without CONNECT; Chromium tunnels them, so refuse.
    this.#server.on('upgrade', (_req, socket: Duplex) => socket.destroy());
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
  }

  async start(): Promise<GuardProxyEndpoint> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    // '<-loopback>' removes Chromium's implicit bypass of localhost: loopback targets must meet the guard too.
    return { server: `http://127.0.0.1:${port}`, ...this.#credential, bypass: '<-loopback>' };
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

  #authorized(req: IncomingMessage): boolean {
    const expected = `Basic ${Buffer.from(`${this.#credential.username}:${this.#credential.password}`).toString('base64')}`;
    return req.headers['proxy-authorization'] === expected;
  }

  /** The checked address to connect to: the first address of the host, refused if any is private. */
  async #resolve(host: string, port: number): Promise<string> {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    const addresses = isIP(bare)
      ? [bare]
      : (await dnsLookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    const refused = addresses.find((address) => this.#isRefused(address, port));
    if (refused !== undefined) {
      const error = new TargetRefusedError(`host ${bare}`, refused);
      this.refusals.set(bare, error);
      this.options.onRefused?.(error);
      throw error;
    }
    return addresses[0];
  }

  /** Opens the connection that carries a request: to the target's checked address, or to the Run's proxy. */
  async #open(host: string, port: number): Promise<Socket> {
    const target = this.#upstream ? null : await this.#resolve(host, port);
    const upstream = this.#upstream;
    const socket = upstream
      ? connect({
          host: await this.#resolve(upstream.hostname, Number(upstream.port || 80)),
          port: Number(upstream.port || 80),
        })
      : connect({ host: target!, port });
    this.#track(socket);
    socket.on('data', (chunk: Buffer) => (this.receivedBytes += chunk.length));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
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
    socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}\r\n`);
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
    if (!this.#authorized(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="run"\r\n\r\n');
      return;
    }
    const [host, portText] = splitHostPort(req.url ?? '');
    try {
      const upstream = await this.#open(host, Number(portText || 443));
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
    if (!this.#authorized(req)) {
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
      const socket = await this.#open(url.hostname, Number(url.port || 80));
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
