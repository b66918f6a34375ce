// A webhook receiver on 127.0.0.1: records every request and verifies its signature with the
// `standardwebhooks` package, the way a user's endpoint would. Answers are scripted per test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: any };
  /** When the request's body had arrived (Date.now()). */
  at: number;
}

type Answer = (req: Received, res: http.ServerResponse) => void;
export const answer =
  (status: number, headers: Record<string, string> = {}, body = 'ok'): Answer =>
  (_req, res) => {
    res.writeHead(status, headers).end(body);
  };

export async function startReceiver() {
  const received: Received[] = [];
  const script = new Map<string, Answer[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers as Record<string, string>,
        body,
        json: JSON.parse(body || 'null'),
        at: Date.now(),
      };
      received.push(r);
      const next = script.get(r.path)?.shift();
      (next ?? answer(200))(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    url: (path: string) => `${base}${path}`,
    /** The next answers at `path`, in order; 200 after them. */
    script(path: string, ...answers: Answer[]) {
      script.set(path, [...(script.get(path) ?? []), ...answers]);
    },
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies with `Webhook.verify` (throws on a bad signature); returns the payload. */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, r.headers);
}
