// One translation of errors to what a caller is told: run-all's per-Agent results say what a single
// start answers for the same failure (a 503 while PostgreSQL or Redis is down, never a 500), and
// internal text never leaves.
import { describe, expect, it } from 'vitest';
import { DatabaseUnreachableError } from '../../src/db/failures.js';
import { ConflictError, ErrorCodes, ServiceUnavailableError } from '../../src/lib/errors.js';
import { toPublicError } from '../../src/services/public-error.js';
import { runAll } from '../../src/services/runs/run-all.js';

const principal = { organizationId: 1, userId: 1, role: 'admin', via: 'apikey' } as never;

async function runAllFailingWith(errors: unknown[]) {
  const logged: Array<{ level: string; msg: string }> = [];
  const result = await runAll(
    {
      access: { requireSpace: async () => ({ id: 7, name: 'Space' }) as never },
      repo: { listSpaceAgents: async () => errors.map((_, i) => ({ id: i + 1, name: `Agent ${i + 1}` })) },
      proxyPools: { resolve: async () => undefined },
      start: async (agentId) => {
        throw errors[agentId - 1];
      },
    },
    principal,
    7,
    {},
    {
      requestId: 'req-1',
      log: {
        error: (_o: unknown, msg?: string) => logged.push({ level: 'error', msg: msg ?? '' }),
        warn: (_o: unknown, msg?: string) => logged.push({ level: 'warn', msg: msg ?? '' }),
      } as never,
    },
  );
  return { result, logged };
}

describe('toPublicError, as run-all reports it', () => {
  const redisDown = Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
    name: 'MaxRetriesPerRequestError',
  });
  const busy = Object.assign(new Error('Timed out fetching a new connection from the connection pool.'), {
    code: 'P2024',
  });
  const notMigrated = Object.assign(new Error('The table `public.Run` does not exist'), { code: 'P2021' });
  const bug = new Error('relation "secret_table" does not exist at /srv/app.ts:42');
  const cases: Array<[string, unknown, number, string, RegExp]> = [
    [
      'PostgreSQL unreachable',
      new DatabaseUnreachableError(new Error('ECONNREFUSED')),
      503,
      ErrorCodes.SERVICE_UNAVAILABLE,
      /its database cannot be reached/,
    ],
    ['Redis unreachable', redisDown, 503, ErrorCodes.SERVICE_UNAVAILABLE, /its queue store cannot be reached/],
    ['database saturated', busy, 503, ErrorCodes.SERVICE_UNAVAILABLE, /busy/],
    ['database not migrated', notMigrated, 503, ErrorCodes.SERVICE_UNAVAILABLE, /not been migrated/],
    [
      'a typed 503',
      new ServiceUnavailableError('The run queue is unavailable; the Run was not created.', 5),
      503,
      ErrorCodes.SERVICE_UNAVAILABLE,
      /run queue/,
    ],
    [
      'a typed conflict',
      new ConflictError('Agent 1 already has an active Run (7).', ErrorCodes.RUN_ALREADY_ACTIVE),
      409,
      ErrorCodes.RUN_ALREADY_ACTIVE,
      /active Run/,
    ],
    [
      'a bug',
      bug,
      500,
      ErrorCodes.INTERNAL_ERROR,
      /^An unexpected error occurred\. Quote request id req-1 when reporting it\.$/,
    ],
  ];

  it('answers each failure with its status, errorCode and message; 503s say when to retry', () => {
    for (const [what, err, status, code, message] of cases) {
      const shown = toPublicError(err, 'request id req-1');
      expect(shown.statusCode, what).toBe(status);
      expect(shown.errorCode, what).toBe(code);
      expect(shown.message, what).toMatch(message);
      expect(shown.retryAfterSeconds !== undefined, what).toBe(status === 503);
    }
    expect(toPublicError(redisDown, 'x').dependencyDown).toBe('redis');
    expect(toPublicError(new DatabaseUnreachableError(null), 'x').dependencyDown).toBe('postgres');
  });

  it('run-all reports every Agent with the same errorCode and message, logging only what the caller is not told', async () => {
    const { result, logged } = await runAllFailingWith(cases.map((c) => c[1]));
    expect(result).toMatchObject({
      spaceId: 7,
      totalAgents: cases.length,
      agentsStarted: 0,
      agentsFailed: cases.length,
    });
    result.results.forEach((r, i) => {
      const [what, err] = cases[i];
      const shown = toPublicError(err, 'request id req-1');
      expect(r, what).toEqual({
        agentId: i + 1,
        agentName: `Agent ${i + 1}`,
        success: false,
        runId: null,
        errorCode: shown.errorCode,
        errorMessage: shown.message,
      });
    });
    expect(JSON.stringify(result)).not.toContain('secret_table');
    expect(logged).toEqual([
      { level: 'warn', msg: 'run-all: starting an Agent failed: database saturated' },
      { level: 'error', msg: 'run-all: starting an Agent failed: the database is not migrated: run `cli migrate`' },
      { level: 'error', msg: 'run-all: starting an Agent failed: request failed' },
    ]);
  });
});
