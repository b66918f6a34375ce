// Authentication and authorization of the foundation: API keys (digest lookup, revocation and
// expiry on the next request on every instance), the OAuth token endpoint and bearer tokens.
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/lib/clock.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { auth, bearer, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';

let ctx: TestContext;
let admin: Awaited<ReturnType<TestContext['bootstrap']>>;
const password = 'correct horse battery';
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  ctx = await createTestContext({ clock });
  admin = await ctx.bootstrap({ password });
});
afterAll(async () => ctx?.close());

/** Polls a condition (an event, not a timing): true within 5 s or the test fails. */
async function waitUntil(condition: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function token(email = admin.email, pw = password) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'password', username: email, password: pw },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { access_token: string; refresh_token: string; expires_in: number; token_type: string };
}

describe('API keys', () => {
  it('stores only a SHA-256 digest of the key', async () => {
    const row = await ctx.db.apiKey.findFirstOrThrow({ where: { userId: admin.userId } });
    expect(row.keyDigest).toBe(sha256Hex(admin.apiKey));
    expect(JSON.stringify(row)).not.toContain(admin.apiKey);
    expect(admin.apiKey).toMatch(/^cx_[1-9A-HJ-NP-Za-km-z]{40,}$/);
  });

  it.each([
    ['no header', {}],
    ['an unknown scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a scheme without a credential', { authorization: 'ApiKey' }],
    ['a wrong key', { authorization: 'ApiKey cx_thisisnotarealkeyatallbutlongenough' }],
    ['a garbage bearer token', { authorization: 'Bearer not.a.jwt' }],
  ])('answers %s with 401 ProblemDetails', async (_name, headers) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers });
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers['www-authenticate']).toBeDefined();
  });

  it('accepts the scheme name case-insensitively', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/users',
      headers: { authorization: `apikey ${admin.apiKey}` },
    });
    expect(res.statusCode).toBe(200);
  });

  it('revocation takes effect on the next request on every instance, even where the key is cached', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${admin.userId}/api-keys`,
      headers: auth(admin.apiKey),
      payload: { description: 'temp' },
    });
    expect(created.statusCode).toBe(201);
    const { key, id } = created.json();
    const other = await buildApp(ctx.config, { logger: false });
    await other.ready();
    try {
      // Both instances have the key cached now.
      expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) })).statusCode).toBe(200);
      expect((await other.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) })).statusCode).toBe(200);
      const revoke = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/v1/users/${admin.userId}/api-keys/${id}`,
        headers: auth(admin.apiKey),
      });
      expect(revoke.statusCode).toBe(204);
      expectProblem(
        await other.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) }),
        401,
        'UNAUTHENTICATED',
      );
      expectProblem(
        await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) }),
        401,
        'UNAUTHENTICATED',
      );
      const listed = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${admin.userId}/api-keys`,
        headers: auth(admin.apiKey),
      });
      const row = listed.json().find((k: { id: number }) => k.id === id);
      expect(row.revokedAt).not.toBeNull();
      expect(JSON.stringify(listed.json())).not.toContain(key);
    } finally {
      await other.close();
    }
  });

  it('a request served from the cache while the key is revoked elsewhere is answered 401, not from the stale cache', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${admin.userId}/api-keys`,
      headers: auth(admin.apiKey),
      payload: { description: 'race' },
    });
    const { key, id } = created.json();
    const other = await buildApp(ctx.config, { logger: false });
    await other.ready();
    const { default: pg } = await import('pg');
    const locker = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await locker.connect();
    try {
      expect((await other.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) })).statusCode).toBe(200);
      const before = other.identity.epoch.current();
      // Hold the request inside its database read: it was admitted from the cache before the
      // revocation, and its response is only sent after the replaced epoch has arrived.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "User" IN ACCESS EXCLUSIVE MODE');
      const pending = other.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) });
      const waiting =
        'SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())';
      await waitUntil(() => locker.query(waiting).then((r) => Number(r.rows[0].n) > 0));
      // Revoked on this instance (the User table is locked; the key row is not).
      await ctx.db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
      await ctx.app.identity.epoch.bump();
      await waitUntil(() => other.identity.epoch.current() !== before);
      await locker.query('COMMIT');
      expectProblem(await pending, 401, 'UNAUTHENTICATED');
      expectProblem(
        await other.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) }),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      await locker.end();
      await other.close();
    }
  });

  it('an expired key answers 401 even while cached', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${admin.userId}/api-keys`,
      headers: auth(admin.apiKey),
      payload: { expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    const { key } = created.json();
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) })).statusCode).toBe(200);
    offsetMs = 120_000;
    try {
      expectProblem(
        await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(key) }),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      offsetMs = 0;
    }
  });

  it('defaults the expiry to one year and rejects one in the past', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${admin.userId}/api-keys`,
      headers: auth(admin.apiKey),
      payload: {},
    });
    const days = (new Date(created.json().expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(366);
    const past = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${admin.userId}/api-keys`,
      headers: auth(admin.apiKey),
      payload: { expiresAt: '2020-01-01T00:00:00Z' },
    });
    expectBadRequest(past, 'VALIDATION_FAILED');
  });

  it('lets only admins manage users and keys (403), and hides other organizations (404)', async () => {
    const member = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: auth(admin.apiKey),
      payload: { email: 'member@example.com', password: 'member-password' },
    });
    expect(member.statusCode).toBe(201);
    const memberKey = (
      await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${member.json().id}/api-keys`,
        headers: auth(admin.apiKey),
        payload: {},
      })
    ).json().key;
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: auth(memberKey) }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${member.json().id}/api-keys`,
        headers: auth(memberKey),
        payload: {},
      }),
      403,
      'FORBIDDEN',
    );
    // A member lists their own keys (never the keys themselves), and no one else's.
    const own = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${member.json().id}/api-keys`,
      headers: auth(memberKey),
    });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual([expect.objectContaining({ userId: member.json().id, prefix: memberKey.slice(0, 9) })]);
    expect(own.body).not.toContain(memberKey);
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${admin.userId}/api-keys`, headers: auth(memberKey) }),
      403,
      'FORBIDDEN',
    );
    const otherOrg = await ctx.bootstrap({ org: 'Elsewhere' });
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${otherOrg.userId}`, headers: auth(admin.apiKey) }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${otherOrg.userId}/api-keys`,
        headers: auth(admin.apiKey),
      }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await ctx.app.inject({
        method: 'DELETE',
        url: `/api/v1/users/${admin.userId}/api-keys/999999`,
        headers: auth(admin.apiKey),
      }),
      404,
      'NOT_FOUND',
    );
    const dup = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: auth(admin.apiKey),
      payload: { email: 'MEMBER@example.com' },
    });
    expectProblem(dup, 409, 'CONFLICT');
  });
});

describe('OAuth 2.0 and bearer tokens', () => {
  it('issues a 15-minute ES256 access token for the password grant, usable as Bearer', async () => {
    const t = await token();
    expect(t.token_type).toBe('Bearer');
    expect(t.expires_in).toBe(900);
    const header = jose.decodeProtectedHeader(t.access_token);
    expect(header.alg).toBe('ES256');
    const jwks = (await ctx.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(header.kid);
    expect(JSON.stringify(jwks)).not.toMatch(/"d":/);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(t.access_token) });
    expect(res.statusCode).toBe(200);
  });

  it('accepts a form-encoded token request', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'password', username: admin.email, password }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it.each([
    ['a wrong password', { grant_type: 'password', username: 'x', password: 'wrong-password' }, 400, 'invalid_grant'],
    [
      'an unknown user',
      { grant_type: 'password', username: 'nobody@example.com', password: 'whatever-pw' },
      400,
      'invalid_grant',
    ],
    ['a missing password', { grant_type: 'password', username: 'x' }, 400, 'invalid_request'],
    ['no grant type', {}, 400, 'invalid_request'],
    ['an unsupported grant type', { grant_type: 'client_credentials' }, 400, 'unsupported_grant_type'],
    ['an unknown refresh token', { grant_type: 'refresh_token', refresh_token: 'cxr_nope' }, 400, 'invalid_grant'],
  ])('answers %s with an RFC 6749 error', async (_n, payload, status, error) => {
    const body = { ...payload } as Record<string, string>;
    if (body.username === 'x') body.username = admin.email;
    const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', payload: body });
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toBe(error);
    expect(typeof res.json().error_description).toBe('string');
  });

  it('rotates refresh tokens, and a replayed one ends the whole family', async () => {
    const first = await token();
    const r1 = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: first.refresh_token },
    });
    expect(r1.statusCode).toBe(200);
    const second = r1.json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const replay = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: first.refresh_token },
    });
    expect(replay.json().error).toBe('invalid_grant');
    // The stolen family is dead: the newest token no longer works either.
    const after = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'refresh_token', refresh_token: second.refresh_token },
    });
    expect(after.json().error).toBe('invalid_grant');
  });

  it('refuses a tampered token, an expired token and a token for another audience', async () => {
    const t = await token();
    const [h, p, s] = t.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url'), s].join('.');
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(forged) }),
      401,
      'UNAUTHENTICATED',
    );
    offsetMs = 16 * 60_000;
    try {
      expectProblem(
        await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(t.access_token) }),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      offsetMs = 0;
    }
    const { privateKey } = await jose.generateKeyPair('ES256');
    const foreign = await new jose.SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'foreign' })
      .setSubject(String(admin.userId))
      .setIssuer(ctx.config.jwt.issuer)
      .setAudience(ctx.config.jwt.audience)
      .setExpirationTime('5m')
      .sign(privateKey);
    expectProblem(
      await ctx.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(foreign) }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('a token from another instance verifies here (keys are shared through the database)', async () => {
    const other = await buildApp(ctx.config, { logger: false });
    await other.ready();
    try {
      const res = await other.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'password', username: admin.email, password },
      });
      const ok = await ctx.app.inject({
        method: 'GET',
        url: '/api/v1/users',
        headers: bearer(res.json().access_token),
      });
      expect(ok.statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('external issuer', () => {
  it('trusts tokens of a configured issuer and maps them to users by email', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'ext-1', alg: 'RS256' };
    const http = await import('node:http');
    const server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const app = await buildApp(
      {
        ...ctx.config,
        externalOAuth: {
          issuer: 'https://idp.example.com/',
          audience: 'cx-api',
          jwksUrl: `http://127.0.0.1:${port}/jwks`,
        },
      },
      { logger: false },
    );
    await app.ready();
    try {
      const ext = await new jose.SignJWT({ email: admin.email })
        .setProtectedHeader({ alg: 'RS256', kid: 'ext-1' })
        .setSubject('idp|123')
        .setIssuer('https://idp.example.com/')
        .setAudience('cx-api')
        .setExpirationTime('5m')
        .sign(privateKey);
      expect((await app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(ext) })).statusCode).toBe(200);
      const wrongAud = await new jose.SignJWT({ email: admin.email })
        .setProtectedHeader({ alg: 'RS256', kid: 'ext-1' })
        .setIssuer('https://idp.example.com/')
        .setAudience('someone-else')
        .setExpirationTime('5m')
        .sign(privateKey);
      expectProblem(
        await app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(wrongAud) }),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      await app.close();
      server.close();
    }
  });
});
