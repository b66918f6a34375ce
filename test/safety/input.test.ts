// Hostile input is refused at the edge with 400 VALIDATION_FAILED naming the field,
// never reaching PostgreSQL (which would answer 500 and fail other requests batched with it).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';

let ctx: TestContext;
let org: BootstrapResult;
let agentId: number;
const definition = {
  startUrl: 'https://shop.example/',
  list: { selector: '.item', fields: [{ name: 'title', selector: 'h2' }] },
};

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(org.apiKey),
    payload: { name: 'Input', spaceId: org.spaceId, definition },
  });
  expect(res.statusCode).toBe(201);
  agentId = res.json().id;
});
afterAll(async () => ctx?.close());

const inject = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers?: Record<string, string | string[]>,
) =>
  ctx.app.inject({
    method,
    url,
    headers: headers ?? auth(org.apiKey),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

describe('strings PostgreSQL would refuse', () => {
  it.each([
    ['POST', '/api/v1/spaces', { name: 'a\u0000b' }, 'body.name must not contain NUL characters (U+0000)'],
    ['POST', '/api/v1/spaces', { name: 'a\ud800b' }, 'body.name must not contain unpaired UTF-16 surrogates'],
    ['POST', '/api/v1/users', { email: 'x\u0000@example.com' }, 'body.email must not contain NUL characters (U+0000)'],
    [
      'POST',
      '/api/v1/proxy-pools',
      { name: 'p', proxies: ['http://proxy.example:8080/\u0000'] },
      'body.proxies.0 must not contain NUL characters (U+0000)',
    ],
    [
      'PUT',
      '/api/v1/agent/{agentId}',
      { description: '\udc00' },
      'body.description must not contain unpaired UTF-16 surrogates',
    ],
    [
      'POST',
      '/api/v1/agent/{agentId}/start',
      { inputParameters: '{"q":"\u0000"}' },
      'body.inputParameters must not contain NUL characters (U+0000)',
    ],
  ] as const)('%s %s refuses it and names the field', async (method, url, payload, message) => {
    const body = expectBadRequest(
      await inject(method, url.replace('{agentId}', String(agentId)), payload),
      'VALIDATION_FAILED',
    );
    expect(body.message).toBe(message);
  });

  it('refuses a NUL in a property name inside a free-form definition', async () => {
    const body = expectBadRequest(
      await inject('POST', '/api/v1/agent', {
        name: 'x',
        spaceId: org.spaceId,
        definition: { ...definition, 'k\u0000': 1 },
      }),
      'VALIDATION_FAILED',
    );
    expect(body.message).toBe('body.definition has a property name that must not contain NUL characters (U+0000)');
  });

  it('refuses a NUL in a query string and in a path', async () => {
    expect(expectBadRequest(await inject('GET', '/api/v1/spaces/search?name=a%00b'), 'VALIDATION_FAILED').message).toBe(
      'querystring.name must not contain NUL characters (U+0000)',
    );
    expect(expectBadRequest(await inject('GET', '/api/v1/agent/search?query=%00'), 'VALIDATION_FAILED').message).toBe(
      'querystring.query must not contain NUL characters (U+0000)',
    );
    expect(expectBadRequest(await inject('GET', '/api/v1/agent/1%00'), 'VALIDATION_FAILED').message).toBe(
      'params.agentId must not contain NUL characters (U+0000)',
    );
  });

  it('refuses a NUL in the unauthenticated /oauth/token username, JSON or form-encoded, in the RFC 6749 shape', async () => {
    for (const req of [
      { payload: { grant_type: 'password', username: 'a\u0000b', password: 'x' } },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=password&username=a%00b&password=x',
      },
    ]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', ...req });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'body.username must not contain NUL characters (U+0000)',
        errorCode: 'VALIDATION_FAILED',
      });
    }
  });

  it('refuses a NUL in a refresh token', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: 'cxr_\u0000' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', errorCode: 'VALIDATION_FAILED' });
  });
});

describe('integers follow the API contract types', () => {
  it.each([
    ['POST', '/api/v1/agent/{agentId}/start', { proxyPoolId: 2147483648 }, 'body.proxyPoolId must be <= 2147483647'],
    ['POST', '/api/v1/agent/{agentId}/start', { proxyPoolId: -2147483649 }, 'body.proxyPoolId must be >= -2147483648'],
    ['POST', '/api/v1/spaces/{spaceId}/run-all', { proxyPoolId: 2147483648 }, 'body.proxyPoolId must be <= 2147483647'],
    ['PUT', '/api/v1/agent/{agentId}', { proxyPoolId: 9007199254740993 }, 'body.proxyPoolId must be <= 2147483647'],
    ['POST', '/api/v1/agent', { name: 'x', spaceId: 2147483648, definition }, 'body.spaceId must be <= 2147483647'],
    ['POST', '/api/v1/agent/{agentId}/start', { timeout: 2147483648 }, 'body.timeout must be <= 2147483647'],
  ] as const)('%s %s refuses %j', async (method, url, payload, message) => {
    const path = url.replace('{agentId}', String(agentId)).replace('{spaceId}', String(org.spaceId));
    expect(expectBadRequest(await inject(method, path, payload), 'VALIDATION_FAILED').message).toBe(message);
  });

  it("a proxyPoolId above int32 from one organization does not fail another organization's concurrent requests", async () => {
    const other = await ctx.bootstrap();
    const [bad, ...good] = await Promise.all([
      inject('POST', `/api/v1/agent/${agentId}/start`, { proxyPoolId: 2147483648 }),
      ...Array.from({ length: 5 }, () => inject('GET', '/api/v1/spaces', undefined, auth(other.apiKey))),
    ]);
    expectBadRequest(bad, 'VALIDATION_FAILED');
    for (const res of good) expect(res.statusCode).toBe(200);
  });

  it.each(['0x1', '+1', '1.0', '01', '1e0', ' 1', '2147483648'])('refuses the id %j in a path', async (id) => {
    const body = expectBadRequest(await inject('GET', `/api/v1/agent/${encodeURIComponent(id)}`), 'VALIDATION_FAILED');
    expect(body.message).toMatch(/^params\.agentId /);
  });

  it.each(['0x2', '+2', '2.0'])('refuses the non-canonical integer %j in a query', async (value) => {
    const body = expectBadRequest(
      await inject('GET', `/api/v1/agent/${agentId}/runs?maxRecords=${encodeURIComponent(value)}`),
      'VALIDATION_FAILED',
    );
    expect(body.message).toBe('querystring.maxRecords must be an integer written in decimal digits (e.g. 12)');
  });

  it('accepts canonical ids', async () => {
    expect((await inject('GET', `/api/v1/agent/${agentId}`)).statusCode).toBe(200);
  });
});

describe('paging', () => {
  it.each([
    [`/api/v1/agent/{agentId}/runs?pageIndex=0&recordsPerPage=10`, 'querystring.pageIndex must be >= 1'],
    [`/api/v1/agent/{agentId}/runs?pageIndex=1&recordsPerPage=0`, 'querystring.recordsPerPage must be >= 1'],
    [`/api/v1/agent/{agentId}/runs?maxRecords=-1`, 'querystring.maxRecords must be >= 1'],
    [
      `/api/v1/agent/{agentId}/runs?pageIndex=2147483648&recordsPerPage=10`,
      'querystring.pageIndex must be <= 2147483647',
    ],
    ['/api/v1/agent/all?pageIndex=-1&recordsPerPage=10', 'querystring.pageIndex must be >= 1'],
    [
      '/api/v1/agent/all?pageIndex=1&recordsPerPage=abc',
      'querystring.recordsPerPage must be an integer written in decimal digits (e.g. 12)',
    ],
    ['/api/v1/agent/search?query=a&maxRecords=0', 'querystring.maxRecords must be >= 1'],
  ])('%s answers 400', async (url, message) => {
    expect(
      expectBadRequest(await inject('GET', url.replace('{agentId}', String(agentId))), 'VALIDATION_FAILED').message,
    ).toBe(message);
  });

  it('the last possible page answers an empty page', async () => {
    const res = await inject('GET', `/api/v1/agent/${agentId}/runs?pageIndex=2147483647&recordsPerPage=1000`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ runs: [], totalRecordCount: 0 });
    const agents = await inject('GET', '/api/v1/agent/all?pageIndex=2147483647&recordsPerPage=1000');
    expect(agents.statusCode).toBe(200);
    expect(agents.json()).toMatchObject({ agents: [] });
  });
});

describe('credentials', () => {
  it('refuses two Authorization headers, even when both are valid', async () => {
    // Sent over a real socket: Node keeps both headers in rawHeaders, which is what the check reads
    // (an injected request carries no raw headers).
    const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const url = new URL('/api/v1/spaces', address);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.end(
          `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ApiKey ${org.apiKey}\r\n` +
            `Authorization: ApiKey ${org.apiKey}\r\nConnection: close\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_FAILED' });
    expect(body.message).toBe(
      'headers.authorization must be sent once; the request has several Authorization headers.',
    );
  });

  it('answers 401 for an API key or token holding a NUL', async () => {
    for (const header of [`ApiKey cx_${'a'.repeat(30)}\u0000`, 'Bearer a.b\u0000.c']) {
      const res = await inject('GET', '/api/v1/spaces', undefined, { authorization: header });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, errorCode: 'UNAUTHENTICATED' });
    }
  });
});
