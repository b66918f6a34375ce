// Proxies that count what clients send: in front of PostgreSQL the statements (protocol messages
// Execute 'E' and simple Query 'Q') and the round trips (Sync 'S' and 'Q'), in front of Redis the
// commands: how many round trips a request or a Run costs.
import net from 'node:net';

export interface StatementCounter {
  /** The database URL that goes through the proxy. */
  url: string;
  count(): number;
  close(): Promise<void>;
}

/** The statement counter, which also counts round trips: each Sync 'S' and each simple Query 'Q'. */
export interface PgCounter extends StatementCounter {
  roundTrips(): number;
}

export async function startStatementCounter(databaseUrl: string): Promise<PgCounter> {
  let statements = 0;
  let roundTrips = 0;
  const counter = await startCountingProxy(
    databaseUrl,
    5432,
    () => {
      let buf = Buffer.alloc(0);
      let started = false;
      return (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        for (;;) {
          if (!started) {
            // The startup message has no type byte.
            if (buf.length < 4) break;
            const len = buf.readInt32BE(0);
            if (buf.length < len) break;
            buf = buf.subarray(len);
            started = true;
            continue;
          }
          if (buf.length < 5) break;
          const len = buf.readInt32BE(1);
          if (buf.length < len + 1) break;
          const type = String.fromCharCode(buf[0]);
          if (type === 'E' || type === 'Q') statements++;
          if (type === 'S' || type === 'Q') roundTrips++;
          buf = buf.subarray(len + 1);
        }
      };
    },
    () => statements,
  );
  return { ...counter, roundTrips: () => roundTrips };
}

/** Counts the commands Redis clients send (RESP arrays), whatever connection sends them. */
export async function startRedisCommandCounter(redisUrl: string): Promise<StatementCounter> {
  let commands = 0;
  return startCountingProxy(
    redisUrl,
    6379,
    () => {
      let buf = '';
      return (chunk: Buffer) => {
        buf += chunk.toString('latin1');
        // Commands are arrays of bulk strings: *<n>\r\n then n times $<len>\r\n<bytes>\r\n.
        for (;;) {
          const head = /^\*(\d+)\r\n/.exec(buf);
          if (!head) break;
          let at = head[0].length;
          let whole = true;
          for (let i = 0; i < Number(head[1]); i++) {
            const bulk = /^\$(\d+)\r\n/.exec(buf.slice(at, at + 24));
            if (!bulk || buf.length < at + bulk[0].length + Number(bulk[1]) + 2) {
              whole = false;
              break;
            }
            at += bulk[0].length + Number(bulk[1]) + 2;
          }
          if (!whole) break;
          commands++;
          buf = buf.slice(at);
        }
      };
    },
    () => commands,
  );
}

async function startCountingProxy(
  serviceUrl: string,
  defaultPort: number,
  newParser: () => (chunk: Buffer) => void,
  count: () => number,
): Promise<StatementCounter> {
  const target = new URL(serviceUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
    sockets.add(client).add(upstream);
    const parse = newParser();
    client.on('data', (chunk) => {
      parse(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(serviceUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
