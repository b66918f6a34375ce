// Helpers for Run tests: a real worker process, agents over HTTP, and polling a Run to an end.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { auth, createTestContext } from './app.js';
import { startFixtureSite } from './fixture-site.js';
import { startNode, waitFor } from './process.js';

export async function startWorker(env: Record<string, string>) {
  const w = startNode(['src/worker.ts'], { ...env, LOG_LEVEL: env.WORKER_LOG_LEVEL ?? 'info' });
  try {
    await waitFor(async () => w.output().includes('worker started'), 30_000);
  } catch (error) {
    // A worker that did not start in time is not left running (it would hold jobs of later tests).
    w.child.kill('SIGKILL');
    throw new Error(`the worker did not start in 30 s: ${String(error)}\n${w.output().slice(-2000)}`);
  }
  return {
    ...w,
    async stop() {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      w.child.kill('SIGTERM');
      const timer = setTimeout(() => w.child.kill('SIGKILL'), 10_000);
      await w.exited;
      clearTimeout(timer);
    },
  };
}

export async function createAgent(
  app: FastifyInstance,
  key: string,
  spaceId: number,
  definition: unknown,
  name = 'Agent',
) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(key),
    payload: { name, spaceId, definition },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string };
}

/** Starts Agent `agentId` through the API (no body) and returns the new Run's id; the start must be accepted (202). */
export async function startRun(app: FastifyInstance, key: string, agentId: number): Promise<number> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agentId}/start`,
    headers: auth(key),
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().id as number;
}

export const TERMINAL = [6, 8, 9, 10, 11];

export async function waitForRun(
  app: FastifyInstance,
  key: string,
  agentId: number,
  runId: number,
  until: (run: any) => boolean = (r) => TERMINAL.includes(r.status),
  timeoutMs = 30_000,
) {
  return waitFor(
    async () => {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/agent/${agentId}/run/${runId}/status`,
        headers: auth(key),
      });
      const run = res.json();
      return until(run) ? run : null;
    },
    timeoutMs,
    100,
  );
}

/** The fixture site's catalog Agent (moved next to the site so that benches can use it without vitest). */
export { catalogDefinition } from './fixture-site.js';

/**
 * The usual environment of a Run test file: the app on its own database, the fixture site, a real
 * worker process and a bootstrapped organization, set up before the file's tests and torn down after.
 */
export function useRunEnvironment(opts: { env?: Record<string, string> } = {}) {
  const h = {} as {
    ctx: import('./app.js').TestContext;
    site: import('./fixture-site.js').FixtureSite;
    worker: Awaited<ReturnType<typeof startWorker>>;
    org: Awaited<ReturnType<import('./app.js').TestContext['bootstrap']>>;
  };
  beforeAll(async () => {
    h.ctx = await createTestContext({ env: opts.env });
    h.site = await startFixtureSite();
    h.worker = await startWorker(h.ctx.env);
    h.org = await h.ctx.bootstrap();
  });
  afterAll(async () => {
    await h.worker?.stop();
    await h.site?.close();
    await h.ctx?.close();
  });
  return h;
}

/** A Run's failure code, as its diagnostics answer it. */
export async function errorCodeOf(app: FastifyInstance, apiKey: string, agentId: number, runId: number) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/analytics/agents/${agentId}/runs/${runId}/diagnostics`,
    headers: auth(apiKey),
  });
  return (res.json() as { errorCode: string | null }).errorCode;
}
