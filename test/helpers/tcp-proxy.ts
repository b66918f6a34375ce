// A TCP proxy in front of PostgreSQL for outage drills: the shared server cannot be stopped, so a
// process pointed at the proxy sees the database go away (connections cut, new ones refused) and
// come back when the test says.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Cuts every connection and refuses new ones. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();
  const proxy: TcpProxy = {
    get port() {
      return port;
    },
    async stop() {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      if (s) await new Promise((resolve) => s.close(resolve));
    },
    start: listen,
    close: () => proxy.stop(),
  };
  return proxy;
}
