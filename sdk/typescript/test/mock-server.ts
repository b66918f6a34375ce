// A scripted HTTP server for the SDK's unit tests: each request is recorded and answered by the test's
// handler, so retries, redirects and time-outs can be provoked exactly.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: Recorded, res: http.ServerResponse, n: number) => void;

export interface MockServer {
  url: string;
  requests: Recorded[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startMockServer(): Promise<MockServer> {
  let handler: Handler = (_req, res) => res.writeHead(500).end();
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      requests.push(rec);
      handler(rec, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    handle(h) {
      handler = h;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = status >= 400 && status !== 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': type, ...headers }).end(JSON.stringify(body));
}

export const problem = (status: number, errorCode: string, detail: string, requestId = 'req-problem') => ({
  type: 'about:blank',
  title: http.STATUS_CODES[status],
  status,
  detail,
  instance: '/x',
  errorCode,
  requestId,
});
