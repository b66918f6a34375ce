// The operator's view: CLI commands, configuration errors, and the server and worker processes
// starting and shutting down gracefully on SIGTERM.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, type TestDatabase } from '../helpers/db.js';
import { clearRedisPrefix, testConfig } from '../helpers/app.js';
import { freePort, runNode, startNode, waitFor } from '../helpers/process.js';

let env: Record<string, string>;
let database: TestDatabase;
let empty: TestDatabase;
beforeAll(async () => {
  const t = await testConfig();
  env = t.env;
  database = t.database;
  empty = await createEmptyDatabase();
});
afterAll(async () => {
  await clearRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
  await database?.drop();
  await empty?.drop();
  if (env?.STORAGE_DIR) fs.rmSync(env.STORAGE_DIR, { recursive: true, force: true });
});

describe('cli', () => {
  it('migrate applies the migrations to an empty database, then finds nothing to do', async () => {
    const first = await runNode(['src/cli.ts', 'migrate'], { ...env, DATABASE_URL: empty.url });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
    const second = await runNode(['src/cli.ts', 'migrate'], { ...env, DATABASE_URL: empty.url });
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  });

  it('bootstrap prints exactly one JSON object with a working key; create-api-key and grant-credits work', async () => {
    const res = await runNode(
      [
        'src/cli.ts',
        'bootstrap',
        '--org',
        'Acme',
        '--email',
        'Ops@Acme.test',
        '--password',
        'very-secret-pw',
        '--credits',
        '250',
      ],
      env,
    );
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out).sort()).toEqual(['apiKey', 'email', 'organizationId', 'spaceId', 'userId']);
    expect(out.email).toBe('ops@acme.test');
    expect(out.apiKey).toMatch(/^cx_/);
    expect(res.stderr).not.toContain(out.apiKey);

    const again = await runNode(
      ['src/cli.ts', 'bootstrap', '--org', 'Acme', '--email', 'ops@acme.test', '--password', 'very-secret-pw'],
      env,
    );
    // Refused, not misused: the reason alone, without the usage text.
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim()).toBe('error: a user with email ops@acme.test already exists');

    const nobody = await runNode(['src/cli.ts', 'create-api-key', '--email', 'nobody@acme.test'], env);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr.trim()).toBe('error: no user with email nobody@acme.test');

    const key = await runNode(['src/cli.ts', 'create-api-key', '--email', 'ops@acme.test'], env);
    expect(key.code, key.stderr).toBe(0);
    expect(JSON.parse(key.stdout).apiKey).toMatch(/^cx_/);

    const grant = await runNode(
      ['src/cli.ts', 'grant-credits', '--org', String(out.organizationId), '--amount', '50'],
      env,
    );
    expect(grant.code, grant.stderr).toBe(0);
    expect(JSON.parse(grant.stdout)).toMatchObject({
      organizationId: out.organizationId,
      amount: 50,
      availableCredits: 300,
    });

    const bad = await runNode(['src/cli.ts', 'grant-credits', '--org', 'x', '--amount', '5'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: grant-credits needs --org ID\nusage: ');
    const unknown = await runNode(['src/cli.ts', 'credits', '--org', '1', '--verbose'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--verbose'");
    expect(unknown.stderr).toContain('usage: ');
  });

  it('names, in its usage text, the command that runs it where it runs', async () => {
    const direct = await runNode(['src/cli.ts'], { ...env, npm_lifecycle_event: '' });
    expect(direct.code).toBe(2);
    // The tests run the compiled copy of the sources when global-setup made one (process-build.ts).
    const build = process.env.CXS_TEST_BUILD;
    const ran = build
      ? `node ${path.relative(process.cwd(), path.join(build, 'cli.js'))}`
      : 'node --import tsx src/cli.ts';
    expect(direct.stderr).toContain(`usage: ${ran} <command> [options]`);
    const viaNpm = await runNode(['src/cli.ts', 'nope'], { ...env, npm_lifecycle_event: 'cli' });
    expect(viaNpm.code).toBe(2);
    expect(viaNpm.stderr).toContain('error: unknown command nope\nusage: npm run cli -- <command> [options]');
  });

  it('a bad configuration value stops with a clear message and exit code 1', async () => {
    const res = await runNode(['src/cli.ts', 'migrate'], { ...env, PORT: 'eighty' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('PORT must be an integer');
    const srv = await runNode(['src/server.ts'], { ...env, RATE_LIMIT_MAX: '0' });
    expect(srv.code).toBe(1);
    expect(srv.stderr).toContain('RATE_LIMIT_MAX must be between');
    const timeouts = await runNode(['src/server.ts'], {
      ...env,
      HTTP_HEADERS_TIMEOUT_SECONDS: '40',
      HTTP_REQUEST_TIMEOUT_SECONDS: '30',
    });
    expect(timeouts.code).toBe(1);
    expect(timeouts.stderr).toContain(
      'HTTP_HEADERS_TIMEOUT_SECONDS (40) must not exceed HTTP_REQUEST_TIMEOUT_SECONDS (30)',
    );
  });
});

describe('server and worker processes', () => {
  it('the server answers, then on SIGTERM closes gracefully and exits 0', async () => {
    const port = await freePort();
    const srv = startNode(['src/server.ts'], { ...env, PORT: String(port), LOG_LEVEL: 'info' });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 30_000);
      for (const probe of ['live', 'ready', 'live', 'ready'])
        expect((await fetch(`http://127.0.0.1:${port}/health/${probe}`)).status).toBe(200);
      // Health probes that answer 200 write no line; the request after them does (lines are written in
      // order). A probe that failed while the server was starting (a slow readiness check on a loaded
      // machine answers 503) is logged, as a failure should be.
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/users`)).status).toBe(401);
      await waitFor(async () => srv.output().includes('"route":"/api/v1/users"'), 30_000);
      expect(srv.output()).not.toMatch(/"route":"\/health\/[a-z]+","statusCode":200/);
      srv.child.kill('SIGTERM');
      expect(await srv.exited).toBe(0);
      expect(srv.output()).toContain('shutting down');
    } finally {
      srv.child.kill('SIGKILL');
    }
  });

  it('the worker starts its queues and exits 0 on SIGTERM', async () => {
    const w = startNode(['src/worker.ts'], { ...env, LOG_LEVEL: 'info' });
    try {
      await waitFor(async () => w.output().includes('worker started'), 30_000);
      w.child.kill('SIGTERM');
      const code = await w.exited;
      expect(code, w.output()).toBe(0);
    } finally {
      w.child.kill('SIGKILL');
    }
  });
});
