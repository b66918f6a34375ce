// PostgreSQL LISTEN on a connection of its own, kept open: reconnects with a growing delay (1 s doubling
// to 30 s) while the database is away. What listens must not depend on it alone: a notification sent
// while the connection was down is lost, so callers keep a periodic fallback.
import pg from 'pg';

export interface NotificationListener {
  close(): Promise<void>;
}

export function listenForNotifications(opts: {
  databaseUrl: string;
  channel: string;
  onNotify: () => void;
  onError: (err: Error) => void;
}): NotificationListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new TypeError(`not a channel name: ${opts.channel}`);
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = 1_000;
  let timer: NodeJS.Timeout | null = null;

  const connect = async () => {
    timer = null;
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl });
    client = c;
    c.on('notification', (n) => n.channel === opts.channel && opts.onNotify());
    c.on('error', (err) => {
      opts.onError(err);
      reconnect(c);
    });
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${opts.channel}`);
      retryMs = 1_000;
      // Events committed while no connection listened are relayed now rather than at the next tick.
      opts.onNotify();
    } catch (err) {
      opts.onError(err as Error);
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client) => {
    if (closed || client !== c || timer) return;
    client = null;
    c.end().catch(() => undefined);
    timer = setTimeout(() => void connect(), retryMs);
    retryMs = Math.min(30_000, retryMs * 2);
  };
  void connect();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
