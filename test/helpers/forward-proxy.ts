// A forward HTTP proxy on 127.0.0.1 for proxy-pool tests: absolute-URI requests and CONNECT tunnels
// (undici tunnels through a proxy with CONNECT). `proxied` records what went through it.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface ForwardProxy {
  port: number;
  /** Request URLs, and `CONNECT host:port` for tunnels, in the order they came. */
  proxied: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const proxied: string[] = [];
  const server = http.createServer((req, res) => {
    proxied.push(req.url ?? '');
    const upstream = http.request(req.url!, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const sockets = new Set<Duplex>();
  server.on('connect', (req, socket, head) => {
    proxied.push(`CONNECT ${req.url}`);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
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
    port: (server.address() as net.AddressInfo).port,
    proxied,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
