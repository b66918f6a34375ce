// A local forward proxy that every request of a Run's browser context goes through (documents, redirects,
// subresources, XHR, WebSockets), so the browser obeys the same SSRF rule as the HTTP path (resolvePublic):
// every target is checked, with or without the Run's proxy; without one, the address a connection is
// opened to is the address that was checked (no window for DNS rebinding); with one, the proxy is checked
// the same way and reached over http or https, and the target is tunnelled through it with CONNECT. It
// counts the bytes received and asks the browser for a per-Run credential, so nothing else on the machine
// can borrow it to reach private addresses.
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
import { assertProxyProtocol, resolvePublic, TargetRefusedError, type Hop, type TargetPolicy } from '../ssrf.js';

export interface GuardProxyOptions extends TargetPolicy {
  /** The Run's proxy (the proxy rule of ssrf.ts: http: or https:); the guard tunnels targets through it. */
  upstreamProxyUrl?: string;
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
  /** The Run's proxy was refused: every request fails for that reason, whatever its target. */
  #proxyRefusal: TargetRefusedError | null = null;
  readonly #server: Server;
  readonly #sockets = new Set<Duplex>();
  readonly #credential = { username: 'run', password: randomBytes(18).toString('base64url') };
  readonly #upstream: URL | null;

  constructor(private readonly options: GuardProxyOptions) {
    this.#upstream = options.upstreamProxyUrl ? new URL(options.upstreamProxyUrl) : null;
    if (this.#upstream) assertProxyProtocol(this.#upstream);
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

  /** Why a request for `host` was refused: the Run's proxy, or that target; undefined when it was not. */
  refusalFor(host: string): TargetRefusedError | undefined {
    return this.#proxyRefusal ?? this.#refusals.get(host);
  }

  /** resolvePublic for one hop; a refusal is remembered (refusalFor) and reported. */
  async #check(hop: URL | Hop, role: 'target' | 'proxy'): Promise<string> {
    try {
      return (await resolvePublic(hop, this.options, role))[0].address;
    } catch (error) {
      if (error instanceof TargetRefusedError) {
        if (role === 'proxy') this.#proxyRefusal = error;
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
  async #open(host: string, port: number): Promise<Socket> {
    const target = await this.#check({ hostname: host, port }, 'target');
    const upstream = this.#upstream;
    let socket: Socket;
    if (upstream) {
      const address = await this.#check(upstream, 'proxy');
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
      const socket = await this.#open(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80));
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
