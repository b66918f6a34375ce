// CSV cells cannot run as formulas; internal exception text never reaches a Run's
// errorMessage or run-all results; run-all starts Agents with bounded concurrency and reports a
// per-Agent failure like a single start (errorCode + message).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField, csvLine } from '../../src/engine/export.js';
import { ConflictError, ErrorCodes } from '../../src/lib/errors.js';
import { createRunExecutionService } from '../../src/services/runs/execution.service.js';
import { mapBounded, runAll, RUN_ALL_CONCURRENCY } from '../../src/services/runs/run-all.js';
import type { RunsRepository } from '../../src/services/runs/runs.repository.js';
import type { Principal } from '../../src/services/identity/principal.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { createAgent } from '../helpers/runs.js';

const PRISMA_TEXT =
  'Invalid `prisma.run.create()` invocation in\n/work/src/services/runs/runs.repository.ts:42:7\nValue out of range for the type. at Object.<anonymous> (runs.repository.ts:42:7)';

describe('CSV injection (OWASP)', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+cmd|" /C calc"!A0', `"'+cmd|"" /C calc""!A0"`],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['=HYPERLINK("http://evil.example","x"),y', `"'=HYPERLINK(""http://evil.example"",""x""),y"`],
  ])('neutralises %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each([
    ['-5', '-5'],
    ['+1.5', '+1.5'],
    ['-.5e3', '-.5e3'],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('leaves %j as it is', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('leaves numbers as they are and neutralises header cells too', () => {
    expect(csvField(-5)).toBe('-5');
    expect(csvLine(['=title', 'price'])).toBe("'=title,price\r\n");
  });
});

const principal: Principal = {
  userId: 1,
  organizationId: 1,
  role: 'admin',
  email: 'a@example.com',
  name: 'a',
  via: 'apikey',
  apiKeyId: 1,
};

describe('run-all: bounded, and failures shaped like a single start', () => {
  it('maps with at most the given calls in flight and keeps the order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapBounded(
      Array.from({ length: 20 }, (_, i) => i),
      4,
      async (i) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return i * 2;
      },
    );
    expect(most).toBe(4);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it('reports a known failure with its errorCode, hides internal text behind the request id and logs it', async () => {
    const agents = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `A${i + 1}` }));
    const logged: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    let inFlight = 0;
    let most = 0;
    const result = await runAll(
      {
        access: { requireSpace: async () => ({ id: 7, name: 'Space' }) as never },
        repo: { listSpaceAgents: async () => agents },
        proxyPools: { resolve: async () => undefined },
        start: async (agentId) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setImmediate(r));
          inFlight--;
          if (agentId === 2)
            throw new ConflictError('Agent 2 already has an active Run (Run 9).', ErrorCodes.RUN_ALREADY_ACTIVE);
          if (agentId === 3) throw Object.assign(new Error(PRISMA_TEXT), { code: 'P2020' });
          return { id: 100 + agentId };
        },
      },
      principal,
      7,
      {},
      {
        requestId: 'req-42',
        log: {
          error: (obj: object, msg: string) => logged.push({ obj: obj as Record<string, unknown>, msg }),
        } as never,
      },
    );
    expect(most).toBeLessThanOrEqual(RUN_ALL_CONCURRENCY);
    expect(result).toMatchObject({
      spaceId: 7,
      spaceName: 'Space',
      totalAgents: 10,
      agentsStarted: 8,
      agentsFailed: 2,
    });
    expect(result.results.map((r) => r.agentId)).toEqual(agents.map((a) => a.id));
    expect(result.results[0]).toEqual({
      agentId: 1,
      agentName: 'A1',
      success: true,
      runId: 101,
      errorCode: null,
      errorMessage: null,
    });
    expect(result.results[1]).toEqual({
      agentId: 2,
      agentName: 'A2',
      success: false,
      runId: null,
      errorCode: 'RUN_ALREADY_ACTIVE',
      errorMessage: 'Agent 2 already has an active Run (Run 9).',
    });
    expect(result.results[2]).toEqual({
      agentId: 3,
      agentName: 'A3',
      success: false,
      runId: null,
      errorCode: 'INTERNAL_ERROR',
      errorMessage: 'An unexpected error occurred. Quote request id req-42 when reporting it.',
    });
    expect(JSON.stringify(result)).not.toMatch(/prisma|invocation|\.ts:\d+/i);
    expect(logged).toHaveLength(1);
    expect(logged[0].obj).toMatchObject({ agentId: 3, spaceId: 7 });
  });
});

describe("a Run's errorMessage never quotes an internal exception", () => {
  it('a failure while preparing a Run is logged with the Run id and the Run gets a generic message', async () => {
    const written: Array<Record<string, unknown>> = [];
    const logged: object[] = [];
    // The proxy pool's sealed list cannot be opened: an internal failure, not one the owner can act on.
    const run = {
      id: 5,
      status: 4,
      agentId: 1,
      agentVersion: 1,
      retryCount: 0,
      isWaitOnFailure: false,
      proxyPoolId: 9,
      inputParameters: null,
      timeoutSeconds: null,
    };
    const repo = {
      findRun: async () => run,
      // Not taken by the one-statement path: the general path reads the Run and its pool separately.
      takeQueued: async () => null,
      findRunToPick: async () => run,
      transition: async (_id: number, event: { type: string }, _at: Date, patch?: Record<string, unknown>) => {
        if (patch) written.push({ event: event.type, ...patch });
        return { ...run, status: event.type === 'picked' ? 3 : 6 };
      },
      findAgentWithDefinition: async () => ({ id: 1 }),
      findAgentVersion: async () => ({
        definition: {
          startUrl: 'http://example.com/',
          list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] },
        },
      }),
      findProxyPool: async () => ({ proxies: PRISMA_TEXT }),
    } as unknown as RunsRepository;
    const execution = createRunExecutionService({
      repo,
      clock: { now: () => new Date('2026-01-01T00:00:00Z') },
      config: {
        encryptionKey: Buffer.alloc(32),
        storage: { driver: 'local', dir: '/tmp' },
        engineAllowPrivateTargets: false,
        runs: {
          defaultTimeoutSeconds: 60,
          waitOnFailureSeconds: 1,
          waitOnFailureRetries: 0,
          requestTimeoutMs: 1000,
          pageCpuSeconds: 5,
          staleAfterSeconds: 60,
          stopGraceSeconds: 5,
        },
      },
      scheduler: { enqueueRun: async () => {} },
      log: { error: (obj) => logged.push(obj) },
    });
    expect(await execution.pick(5)).toBeNull();
    const failed = written.find((w) => w.event === 'failed');
    expect(failed?.errorMessage).toBe(
      'The Run failed because of an internal error; the operator can find the details in the worker log under run 5.',
    );
    expect(failed).toMatchObject({ errorCode: 'INTERNAL_ERROR', errorParams: { runId: 5 } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ runId: 5 });
  });
});

describe('run-all through the API', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['bootstrap']>>;
  beforeAll(async () => {
    ctx = await createTestContext();
    org = await ctx.bootstrap();
  });
  afterAll(async () => ctx?.close());

  it('starts every Agent, then reports each one still active with RUN_ALREADY_ACTIVE', async () => {
    const definition = {
      startUrl: 'http://127.0.0.1:9/',
      list: { selector: 'p', fields: [{ name: 'p', selector: 'p' }] },
    };
    const ids: number[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await createAgent(ctx.app, org.apiKey, org.spaceId, definition, `Batch ${i}`)).id);
    // No worker runs in this file: the Runs stay Queuing, so the second run-all finds them active.
    const first = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/spaces/${org.spaceId}/run-all`,
      headers: auth(org.apiKey),
      payload: {},
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ totalAgents: 6, agentsStarted: 6, agentsFailed: 0 });
    const second = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/spaces/${org.spaceId}/run-all`,
      headers: auth(org.apiKey),
      payload: {},
    });
    expect(second.statusCode).toBe(200);
    const body = second.json();
    expect(body).toMatchObject({ totalAgents: 6, agentsStarted: 0, agentsFailed: 6 });
    for (const r of body.results) {
      expect(Object.keys(r).sort()).toEqual(['agentId', 'agentName', 'errorCode', 'errorMessage', 'runId', 'success']);
      expect(r).toMatchObject({ success: false, runId: null, errorCode: 'RUN_ALREADY_ACTIVE' });
      expect(r.errorMessage).toMatch(/active Run/);
    }
  });

  it('refuses a proxy pool of another organization for the whole request, as a single start does', async () => {
    const other = await ctx.bootstrap();
    const pool = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/proxy-pools',
      headers: auth(other.apiKey),
      payload: { name: 'theirs', proxies: ['http://93.184.216.34:3128'] },
    });
    expect(pool.statusCode).toBe(201);
    const id = pool.json().id;
    for (const url of [`/api/v1/spaces/${org.spaceId}/run-all`, `/api/v1/proxy-pools/${id}`]) {
      const res = await ctx.app.inject({
        method: url.endsWith('run-all') ? 'POST' : 'GET',
        url,
        headers: auth(org.apiKey),
        ...(url.endsWith('run-all') ? { payload: { proxyPoolId: id } } : {}),
      });
      expect(expectProblem(res, 404, 'NOT_FOUND').detail).toBe(`Proxy pool ${id} was not found.`);
    }
    const agent = (
      await createAgent(
        ctx.app,
        org.apiKey,
        org.spaceId,
        { startUrl: 'http://127.0.0.1:9/', list: { selector: 'p', fields: [{ name: 'p', selector: 'p' }] } },
        'Pool user',
      )
    ).id;
    const put = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${agent}`,
      headers: auth(org.apiKey),
      payload: { proxyPoolId: id },
    });
    expect(expectProblem(put, 404, 'NOT_FOUND').detail).toBe(`Proxy pool ${id} was not found.`);
  });
});
