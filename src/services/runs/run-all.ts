// Run-all of a Space (docs/api-contract.md §4.9): every Agent is started through the single start path,
// at most RUN_ALL_CONCURRENCY at a time so that a large Space neither drains the connection pool nor
// starves other requests; a per-Agent failure is reported like a single start's (errorCode + message)
// and never carries internal error text.
import type { FastifyBaseLogger } from 'fastify';
import type { RunAllInput, RunAllResult } from '../../schemas/runs.js';
import type { AccessService } from '../access/access.service.js';
import type { Principal } from '../identity/principal.js';
import type { ProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { toPublicError } from '../public-error.js';
import { parseSentParameters } from './input-parameters.js';

/** Starts in flight at once: each holds a connection for a few queries and one transaction. */
export const RUN_ALL_CONCURRENCY = 4;

/** Maps items with at most `limit` calls in flight; results keep the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export interface RunAllContext {
  requestId: string;
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
}

export async function runAll(
  deps: {
    access: Pick<AccessService, 'requireSpace'>;
    repo: { listSpaceAgents(spaceId: number): Promise<Array<{ id: number; name: string }>> };
    proxyPools: Pick<ProxyPoolOwnership, 'resolve'>;
    start: (agentId: number, input: RunAllInput) => Promise<{ id: number }>;
  },
  principal: Principal,
  spaceId: number,
  input: RunAllInput,
  ctx: RunAllContext,
): Promise<RunAllResult> {
  const space = await deps.access.requireSpace(principal, spaceId, 'write');
  // Shared input is checked once, so a bad body fails the request rather than every Agent.
  parseSentParameters(input.inputParameters);
  await deps.proxyPools.resolve(principal.organizationId, input.proxyPoolId);
  const agents = await deps.repo.listSpaceAgents(spaceId);
  const results = await mapBounded(agents, RUN_ALL_CONCURRENCY, async (a) => {
    try {
      const run = await deps.start(a.id, input);
      return { agentId: a.id, agentName: a.name, success: true, runId: run.id, errorCode: null, errorMessage: null };
    } catch (err) {
      const shown = toPublicError(err, `request id ${ctx.requestId}`);
      if (shown.log)
        ctx.log[shown.log.level](
          { err: shown.internal ? err : { message: (err as Error).message }, agentId: a.id, spaceId },
          `run-all: starting an Agent failed: ${shown.log.message}`,
        );
      return {
        agentId: a.id,
        agentName: a.name,
        success: false,
        runId: null,
        errorCode: shown.errorCode,
        errorMessage: shown.message,
      };
    }
  });
  const started = results.filter((r) => r.success).length;
  return {
    spaceId: space.id,
    spaceName: space.name,
    totalAgents: agents.length,
    agentsStarted: started,
    agentsFailed: agents.length - started,
    results,
  };
}
