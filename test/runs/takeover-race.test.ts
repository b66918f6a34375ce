// A lost Run found by several callers at once (the reconcilers of several workers, its stalled job
// coming back to a worker) is taken over exactly once: one caller hands it back and counts the takeover,
// the others find it no longer lost and leave it alone. None of them ends it or removes its checkpoint,
// so the next attempt goes on from where the lost one got to. Real PostgreSQL; the queue the takeover
// enqueues into is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { createAgent, startRun } from '../helpers/runs.js';
import { systemClock } from '../../src/lib/clock.js';
import { createStorage } from '../../src/storage/index.js';
import { createCheckpointsRepository } from '../../src/services/runs/checkpoints.repository.js';
import { createRunCheckpoints } from '../../src/services/runs/checkpoints.service.js';
import { createRunExecutionService } from '../../src/services/runs/execution.service.js';
import { createRunsRepository } from '../../src/services/runs/runs.repository.js';
import { RunStatus } from '../../src/services/runs/status-machine.js';

const MAX_TAKEOVERS = 3;
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
const enqueued: Array<{ runId: number; takeover: number }> = [];

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
});
afterAll(async () => {
  await ctx?.close();
});

function services() {
  const repo = createRunsRepository(ctx.db);
  const checkpointsRepo = createCheckpointsRepository(ctx.db);
  const checkpoints = createRunCheckpoints({
    repo: checkpointsRepo,
    runs: repo,
    scheduler: { enqueueTakeover: async (runId, _attempt, takeover) => void enqueued.push({ runId, takeover }) },
    storage: createStorage({ driver: 'local', dir: ctx.config.storageDir }),
    clock: systemClock,
    maxTakeovers: MAX_TAKEOVERS,
  });
  const execution = createRunExecutionService({
    repo,
    clock: systemClock,
    config: ctx.config,
    scheduler: { enqueueRun: async () => {} } as never,
    checkpoints,
  });
  return { repo, checkpointsRepo, checkpoints, execution };
}

/** A Run whose worker was lost at page 3 of its crawl: Running, its heartbeat a minute old, a checkpoint kept. */
async function lostRun(takeoversSoFar = 0): Promise<number> {
  // An Agent of its own: an Agent has one active Run at a time.
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
    startUrl: 'http://127.0.0.1:9/list?page=1',
    list: { selector: 'div.item', fields: [{ name: 'title', selector: 'b' }] },
    next: { selector: 'a.next', maxPages: 10 },
  });
  const runId = await startRun(ctx.app, org.apiKey, agent.id);
  await ctx.db
    .$executeRaw`UPDATE "Run" SET status = ${RunStatus.Running}, updated = now() - interval '1 minute' WHERE id = ${runId}`;
  const { checkpointsRepo } = services();
  const state = {
    version: 1,
    sets: [{ inputsDone: 0, current: { url: 'http://127.0.0.1:9/list?page=4', pageNumber: 4, visited: [] } }],
  };
  await checkpointsRepo.save(runId, state, { '0': '{"title":"p1-r1"}\n' });
  await ctx.db
    .$executeRaw`UPDATE "RunCheckpoint" SET takeovers = ${takeoversSoFar}, interruptions = ${takeoversSoFar} WHERE "runId" = ${runId}`;
  return runId;
}

const staleBefore = () => new Date(Date.now() - 3_000);
const WHY = 'the worker executing the Run was lost';

describe('a lost Run found by several callers at once', () => {
  it('is taken over once; the others leave it, its checkpoint and its counts alone', async () => {
    const runId = await lostRun();
    enqueued.length = 0;
    // Eight callers at once, each with its own connection's worth of services, as separate workers are.
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => services().execution.takeOver(runId, WHY, staleBefore())),
    );
    expect(outcomes.filter((o) => o === 'taken')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'notLost')).toHaveLength(7);
    expect(enqueued).toEqual([{ runId, takeover: 1 }]);

    const { checkpoints, checkpointsRepo, repo } = services();
    expect((await repo.findRun(runId))?.status).toBe(RunStatus.Queuing);
    const stored = await checkpointsRepo.load(runId);
    expect(stored).toMatchObject({ interruptions: 1, takeovers: 1 });
    // What the next attempt gets: the lost attempt's checkpoint and records, as attempt 2.
    const resume = await checkpoints.resumeOf(runId);
    expect(resume?.attempt).toBe(2);
    expect(resume?.checkpoint).toMatchObject({ sets: [{ current: { pageNumber: 4 } }] });
    expect(resume?.records).toEqual([{ set: 0, ndjson: '{"title":"p1-r1"}\n' }]);
  });

  it('a stalled job that comes back for a Run already taken over neither ends it nor drops its checkpoint', async () => {
    const runId = await lostRun();
    const first = services();
    expect(await first.execution.takeOver(runId, WHY, staleBefore())).toBe('taken');
    // The Run is Queuing now: a late caller that still read it as lost fails nothing.
    expect(await services().execution.takeOver(runId, WHY, staleBefore())).toBe('notLost');
    expect((await first.repo.findRun(runId))?.status).toBe(RunStatus.Queuing);
    // failOrRetry on a Run that is no longer executing changes nothing and keeps its checkpoint.
    expect(await first.execution.failOrRetry(runId, { code: 'WORKER_LOST', params: { reason: 'stalled' } })).toBeNull();
    expect((await first.checkpointsRepo.load(runId))?.state).toMatchObject({ version: 1 });
  });

  it('a Run alive again (a fresh heartbeat) is not lost; one over its takeovers is refused', async () => {
    const alive = await lostRun();
    await ctx.db.$executeRaw`UPDATE "Run" SET updated = now() WHERE id = ${alive}`;
    expect(await services().execution.takeOver(alive, WHY, staleBefore())).toBe('notLost');

    const worn = await lostRun(MAX_TAKEOVERS);
    const { execution, repo, checkpointsRepo } = services();
    expect(await execution.takeOver(worn, WHY, staleBefore())).toBe('refused');
    expect((await repo.findRun(worn))?.status).toBe(RunStatus.Running);
    expect(await checkpointsRepo.load(worn)).toMatchObject({ takeovers: MAX_TAKEOVERS });
  });
});
