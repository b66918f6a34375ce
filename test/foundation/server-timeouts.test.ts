// The API's HTTP server over real sockets: slow or silent clients are closed by the header, request,
// keep-alive and idle timeouts, while clients that are slow for a good reason (a steady upload, a
// synchronous start that waits for its Run) are served; an oversized body gets a 413 it can read.
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../helpers/app.js';
import { catalogDefinition, createAgent, useRunEnvironment } from '../helpers/runs.js';

const h = useRunEnvironment({
  env: {
    HTTP_HEADERS_TIMEOUT_SECONDS: '1',
    HTTP_REQUEST_TIMEOUT_SECONDS: '3',
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1',
    HTTP_IDLE_TIMEOUT_SECONDS: '1',
    BODY_LIMIT_BYTES: '4096',
  },
});
let base: string;
let port: number;
beforeAll(async () => {
  await h.ctx.app.listen({ host: '127.0.0.1', port: 0 });
  port = (h.ctx.app.server.address() as net.AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

/** A raw TCP client: everything it received, and a promise settled when the server closes it. */
async function connect() {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let reset = false;
  socket.on('data', (d) => (received += d.toString('latin1')));
  const closed = new Promise<void>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') reset = true;
    });
    socket.on('close', () => resolve());
  });
  return { socket, closed, received: () => received, wasReset: () => reset };
}

/** Writes `piece` every `everyMs` until the socket closes. */
function drip(socket: net.Socket, piece: string | Buffer, everyMs: number) {
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(piece, () => undefined);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
  return timer;
}

describe('clients too slow to send their request are closed', () => {
  it('closes a client that drips its headers, with 408, while other requests are served', async () => {
    const slow = await Promise.all([connect(), connect(), connect()]);
    for (const c of slow) {
      c.socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
      drip(c.socket, 'X-Drip: a\r\n', 200);
    }
    const meanwhile = await fetch(`${base}/health/live`);
    expect(meanwhile.status).toBe(200);
    for (const c of slow) {
      await c.closed;
      expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    }
  }, 20_000);

  it('closes a client that drips its body, with 408', async () => {
    const c = await connect();
    c.socket.write(
      `POST /api/v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey ${h.org.apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":',
    );
    drip(c.socket, ' ', 200);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it('closes a connection that never sends anything', async () => {
    const c = await connect();
    await c.closed;
    expect(c.received()).not.toMatch(/^HTTP\/1\.1 2/);
  }, 20_000);

  it('closes an idle keep-alive connection after its answer', async () => {
    const c = await connect();
    c.socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.received()).toMatch(/keep-alive: timeout=1/i);
  }, 20_000);
});

describe('clients slow for a good reason are served', () => {
  it('accepts a body sent steadily for longer than the headers timeout', async () => {
    const body = JSON.stringify({ email: 'steady@example.com', name: 'Steady Sender', role: 'member' });
    const c = await connect();
    c.socket.write(
      `POST /api/v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey ${h.org.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
    );
    // Four pieces 500 ms apart: 1.5 s in all, past the 1 s headers timeout, each gap within the idle timeout.
    const pieces = [0, 1, 2, 3].map((i) => body.slice((i * body.length) / 4, ((i + 1) * body.length) / 4));
    for (const piece of pieces) {
      c.socket.write(piece);
      await new Promise((r) => setTimeout(r, 500));
    }
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 201 /);
    expect(c.received()).toContain('"email":"steady@example.com"');
  }, 20_000);

  it('answers a synchronous start that waits longer than the idle timeout', async () => {
    // Three pages 1.5 s apart: the request waits about 4.5 s with no byte on the socket.
    const agent = await createAgent(
      h.ctx.app,
      h.org.apiKey,
      h.org.spaceId,
      catalogDefinition(h.site.url, { ms: 1500 }),
      'Slow sync',
    );
    const res = await fetch(`${base}/api/v1/agent/${agent.id}/start`, {
      method: 'POST',
      headers: { ...auth(h.org.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ isRunSynchronously: true, timeout: 60 }),
    });
    expect(res.status).toBe(200);
    const records = (await res.json()) as Array<{ title: string }>;
    expect(records).toHaveLength(30);
    expect(records[29].title).toBe('Product 30');
  }, 60_000);
});

describe('an oversized body', () => {
  const size = 8 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  it.each([
    ['declares its length', `Content-Length: ${size}`, (c: Buffer) => c],
    [
      'is chunked',
      'Transfer-Encoding: chunked',
      (c: Buffer) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]),
    ],
  ])(
    'answers 413 that a client writing its whole body before it reads can read, when the body %s',
    async (_, header, frame) => {
      const c = await connect();
      // Reads nothing until its body is written, as simple clients do.
      c.socket.pause();
      c.socket.write(
        `POST /api/v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey ${h.org.apiKey}\r\n` +
          `Content-Type: application/json\r\n${header}\r\n\r\n`,
      );
      let sent = 0;
      await new Promise<void>((resolve) => {
        const pump = () => {
          while (sent < size) {
            if (c.socket.destroyed || !c.socket.writable) return resolve();
            sent += chunk.length;
            if (!c.socket.write(frame(chunk), () => undefined)) return;
          }
          resolve();
        };
        c.socket.on('drain', pump).on('close', () => resolve());
        pump();
      });
      c.socket.resume();
      await c.closed;
      expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
      expect(c.received()).toMatch(/connection: close/i);
      expect(c.received()).toContain('"errorCode":"PAYLOAD_TOO_LARGE"');
      expect(c.wasReset()).toBe(false);
    },
    20_000,
  );

  it('closes the connection of a client that never stops writing, after its 413', async () => {
    const c = await connect();
    c.socket.write(
      `POST /api/v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ApiKey ${h.org.apiKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const pump = () => {
      while (!c.socket.destroyed && c.socket.writable && c.socket.write(frame, () => undefined));
    };
    c.socket.on('drain', pump);
    pump();
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received()).toContain('"errorCode":"PAYLOAD_TOO_LARGE"');
  }, 20_000);
});
