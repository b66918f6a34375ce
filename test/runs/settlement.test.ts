// Settlement: every terminal Run is settled exactly once, by whatever path it ended, and a failed
// settlement is retried by the sweep. Real Postgres; steps are counted through the database itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { createAgent } from '../helpers/runs.js';
import { manualRunInput } from '../helpers/run-input.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { systemClock } from '../../src/lib/clock.js';
import { createRunsRepository, type RunRow } from '../../src/services/runs/runs.repository.js';
import { createSettlementRepository } from '../../src/services/settlement/settlement.repository.js';
import { createSettlementService, type SettlementStep } from '../../src/services/settlement/settlement.service.js';
import { createPrisma } from '../../src/db/prisma.js';
import { startStatementCounter } from '../helpers/statement-counter.js';

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let agentId: number;
const silent = { warn: () => {} };

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
  agentId = (
    await createAgent(ctx.app, org.apiKey, org.spaceId, {
      startUrl: 'http://127.0.0.1:1/',
      list: { selector: 'li', fields: [{ name: 'x', selector: 'a' }] },
    })
  ).id;
});
afterAll(() => ctx?.close());

function newRun(repo: ReturnType<typeof createRunsRepository>) {
  return repo.createRun(manualRunInput(org.organizationId, agentId), new Date());
}

/** A step that records each application as a row, so "exactly once" is checked in the database. */
function countingStep(failing = { on: false }): SettlementStep {
  return {
    name: 'count',
    apply(run) {
      if (failing.on) throw new Error('step failed');
      return {
        statement: Prisma.sql`
          INSERT INTO "CreditTransaction" ("organizationId", "runId", "transactionType", amount, balance, created)
          VALUES (${run.organizationId}::int, ${run.id}::int, 'TestSettle', 0, 0, now())`,
      };
    },
  };
}

const applications = (runId: number) =>
  ctx.db.creditTransaction.count({ where: { runId, transactionType: 'TestSettle' } });

/** The repository's hooks as the runs domain wires them (src/services/runs/wiring.ts). */
const hooksOf = (settlement: ReturnType<typeof createSettlementService>) => ({
  settle: settlement.afterTerminal,
  settleMoving: settlement.settleMoving,
});

describe('settlement', () => {
  it("settles a Run once when it reaches a terminal status, after the change (the repository's settle hook)", async () => {
    const settlement = createSettlementService({
      repo: createSettlementRepository(ctx.db),
      steps: [countingStep()],
      clock: systemClock,
      log: silent,
    });
    const repo = createRunsRepository(ctx.db, { settle: settlement.afterTerminal });
    const run = await newRun(repo);
    await repo.transition(run.id, { type: 'stop' }, new Date());
    expect(await applications(run.id)).toBe(0);
    const stopped = (await repo.transition(run.id, { type: 'stopped' }, new Date())) as RunRow;
    expect(stopped.status).toBe(8);
    expect(await applications(run.id)).toBe(1);
    expect((await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } })).settledAt).not.toBeNull();
    // Seen again (a retried transition, another process): nothing more happens.
    expect(await settlement.settle(run.id)).toBe(false);
    expect(await applications(run.id)).toBe(1);
  });

  it('ends a Run and settles it in one transaction of two round trips, its files included', async () => {
    const counter = await startStatementCounter(ctx.config.databaseUrl);
    const db = createPrisma(counter.url, { max: 1 });
    try {
      const settlement = createSettlementService({
        repo: createSettlementRepository(db),
        steps: [countingStep()],
        clock: systemClock,
        log: silent,
      });
      const repo = createRunsRepository(db, hooksOf(settlement));
      const run = await newRun(repo);
      await repo.transition(run.id, { type: 'picked' }, new Date());
      const file = {
        name: 'data.csv',
        fileType: 'Csv',
        contentType: 'text/csv',
        fileSize: 1234,
        storageKey: `runs/${run.id}/data.csv`,
      };
      const before = counter.roundTrips();
      const ended = await repo.transition(
        run.id,
        { type: 'exported', errorCount: 0 },
        new Date(),
        { recordsExported: 3 },
        [file],
      );
      // BEGIN, the files, the change with its claim; then the step's statement with the COMMIT.
      expect(counter.roundTrips() - before).toBe(2);
      expect(ended?.status).toBe(10);
      const row = await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row.settledAt).not.toBeNull();
      expect(row.recordsExported).toBe(3);
      expect(await applications(run.id)).toBe(1);
      expect(await ctx.db.runFile.count({ where: { runId: run.id } })).toBe(1);
      expect((await ctx.db.agent.findUniqueOrThrow({ where: { id: agentId } })).status).toBe(10);
      // A change its status no longer allows: nothing moves, nothing is settled again; the files are still replaced.
      const again = await repo.transition(run.id, { type: 'exported', errorCount: 0 }, new Date(), {}, [
        { ...file, fileSize: 99 },
      ]);
      expect(again).toBeNull();
      expect(await applications(run.id)).toBe(1);
      expect((await ctx.db.runFile.findFirstOrThrow({ where: { runId: run.id } })).fileSize).toBe(99n);
    } finally {
      await db.$disconnect();
      await counter.close();
    }
  });

  describe('a Run ended by the worker that knows it (one round trip when the Run is as it expects)', () => {
    /** A step that reads at the claim (the Run's files) and writes what it was given, to compare. */
    function readingStep(foretell: (files: number) => number): SettlementStep {
      return {
        name: 'reading',
        atClaim: (claimed) => ({
          read: Prisma.sql`(SELECT count(*) FROM "RunFile" WHERE "runId" = ${claimed.column('id')})`,
        }),
        predictRead: (_run, files) => (files ? { value: foretell(files.length) } : undefined),
        apply: (run, _at, read) => ({
          statement: Prisma.sql`
            INSERT INTO "CreditTransaction" ("organizationId", "runId", "transactionType", amount, balance, message, created)
            VALUES (${run.organizationId}::int, ${run.id}::int, 'TestSettle', 0, 0,
              ${`${run.status} ${run.recordsExported} ${run.startTime?.toISOString()} ${String(read)}`}, now())`,
        }),
      };
    }
    const file = (runId: number) => ({
      name: 'data.csv',
      fileType: 'Csv',
      contentType: 'text/csv',
      fileSize: 1234,
      storageKey: `runs/${runId}/data.csv`,
    });

    async function endKnown(opts: {
      foretell: (files: number) => number;
      stale?: Partial<RunRow>;
      stopFirst?: boolean;
      /** The same end sent again, as a worker retries it when the answer to its commit was lost. */
      again?: boolean;
    }) {
      const counter = await startStatementCounter(ctx.config.databaseUrl);
      const db = createPrisma(counter.url, { max: 1 });
      try {
        const settlement = createSettlementService({
          repo: createSettlementRepository(db),
          steps: [readingStep(opts.foretell)],
          clock: systemClock,
          log: silent,
        });
        const repo = createRunsRepository(db, hooksOf(settlement));
        const run = await newRun(repo);
        const picked = (await repo.transition(run.id, { type: 'picked' }, new Date(), { startTime: new Date() }))!;
        if (opts.stopFirst) await repo.transition(run.id, { type: 'stop' }, new Date());
        // The worker's end of the Run, as it knows the Run since it took it.
        const end = () =>
          repo.transition(
            run.id,
            { type: 'exported', errorCount: 0 },
            new Date(),
            { recordsExported: 3, endTime: new Date() },
            [file(run.id)],
            { ...picked, ...opts.stale },
          );
        const before = counter.roundTrips();
        const ended = await end();
        const roundTrips = counter.roundTrips() - before;
        const repeated = opts.again ? await end() : undefined;
        const message = (
          await ctx.db.creditTransaction.findFirst({ where: { runId: run.id, transactionType: 'TestSettle' } })
        )?.message;
        return { run, picked, ended, repeated, roundTrips, message };
      } finally {
        await db.$disconnect();
        await counter.close();
      }
    }

    it('ends and settles it in one round trip: its files, the Run, its Agent and the steps, from the Run as it ended', async () => {
      const { run, picked, ended, roundTrips, message } = await endKnown({ foretell: (n) => n });
      expect(roundTrips).toBe(1);
      expect(ended).toMatchObject({ id: run.id, status: 10, recordsExported: 3 });
      expect(ended?.settledAt).not.toBeNull();
      expect(message).toBe(`10 3 ${picked.startTime!.toISOString()} 1`);
      expect(await applications(run.id)).toBe(1);
      expect(await ctx.db.runFile.count({ where: { runId: run.id } })).toBe(1);
      expect((await ctx.db.agent.findUniqueOrThrow({ where: { id: agentId } })).lastRunId).toBe(run.id);
    });

    it('a Run other than its worker knows it, or a claim read foretold wrong: nothing of the one round trip stays, the Run is settled from what it is', async () => {
      for (const wrong of [
        { foretell: (n: number) => n, stale: { startTime: new Date(0) } },
        { foretell: (n: number) => n, stale: { proxyPoolId: 999_999 } },
        { foretell: (n: number) => n + 1 },
      ]) {
        const { run, picked, ended, roundTrips, message } = await endKnown(wrong);
        // The one round trip and its ROLLBACK; then the files and the claim; the steps and the COMMIT.
        expect(roundTrips).toBe(4);
        expect(ended).toMatchObject({ id: run.id, status: 10, recordsExported: 3 });
        expect(message).toBe(`10 3 ${picked.startTime!.toISOString()} 1`);
        expect(await applications(run.id)).toBe(1);
        expect(await ctx.db.runFile.count({ where: { runId: run.id } })).toBe(1);
      }
    });

    it('the same end sent again (its answer was lost) changes nothing and settles nothing again', async () => {
      const { run, ended, repeated } = await endKnown({ foretell: (n) => n, again: true });
      expect(ended).toMatchObject({ id: run.id, status: 10, recordsExported: 3 });
      expect(repeated).toBeNull();
      expect(await applications(run.id)).toBe(1);
      const row = await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row.settledAt?.getTime()).toBe(ended?.settledAt?.getTime());
      expect(await ctx.db.runFile.count({ where: { runId: run.id } })).toBe(1);
    });

    it('a Run stopped meanwhile is not ended by the change: nothing is settled, its files are recorded', async () => {
      const { run, ended, message } = await endKnown({ foretell: (n) => n, stopFirst: true });
      expect(ended).toBeNull();
      expect(message).toBeUndefined();
      const row = await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row).toMatchObject({ status: 5, settledAt: null });
      expect(await ctx.db.runFile.count({ where: { runId: run.id } })).toBe(1);
    });
  });

  it('a worker that takes a Run whose start has not committed yet waits for the commit and takes it', async () => {
    const repo = createRunsRepository(ctx.db);
    let taken: Promise<unknown> | undefined;
    const run = await repo.createRun(manualRunInput(org.organizationId, agentId), new Date(), {
      skipIfActive: true,
      // The job is enqueued before the Run's row is written; a worker takes it at once.
      enqueue: async ({ id }) => {
        taken = repo.takeQueued(id, new Date());
        await new Promise((r) => setTimeout(r, 300));
      },
    });
    const result = (await taken) as { run: RunRow } | null;
    expect(result?.run.id).toBe(run.id);
    expect(result?.run.status).toBe(3); // Starting: taken by the one statement, not the general path
    await repo.transition(run.id, { type: 'failed' }, new Date());
    await repo.transition(run.id, { type: 'giveUp' }, new Date(), { endTime: new Date() });
  });

  it('applies the steps exactly once when many processes settle the same Run at once', async () => {
    const repoPlain = createRunsRepository(ctx.db);
    const run = await newRun(repoPlain);
    await repoPlain.transition(run.id, { type: 'stop' }, new Date());
    await repoPlain.transition(run.id, { type: 'stopped' }, new Date());
    const services = Array.from({ length: 8 }, () =>
      createSettlementService({
        repo: createSettlementRepository(ctx.db),
        steps: [countingStep()],
        clock: systemClock,
        log: silent,
      }),
    );
    const results = await Promise.all(services.map((s) => s.settle(run.id)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await applications(run.id)).toBe(1);
  });

  it('does not settle an active Run', async () => {
    const settlement = createSettlementService({
      repo: createSettlementRepository(ctx.db),
      steps: [countingStep()],
      clock: systemClock,
      log: silent,
    });
    const run = await newRun(createRunsRepository(ctx.db));
    expect(await settlement.settle(run.id)).toBe(false);
    expect((await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } })).settledAt).toBeNull();
  });

  it('rolls a failed settlement back and the sweep settles it later', async () => {
    const failing = { on: true };
    const warnings: string[] = [];
    const settlement = createSettlementService({
      repo: createSettlementRepository(ctx.db),
      steps: [countingStep(failing)],
      clock: systemClock,
      log: { warn: (_o, msg) => warnings.push(msg) },
    });
    const repo = createRunsRepository(ctx.db, hooksOf(settlement));
    const run = await newRun(repo);
    await repo.transition(run.id, { type: 'stop' }, new Date());
    const stopped = await repo.transition(run.id, { type: 'stopped' }, new Date());
    // The transition stands even though its settlement failed: made with it first, then alone.
    expect(stopped?.status).toBe(8);
    expect(warnings).toEqual([
      'run end and settlement failed together; ending the Run alone',
      'run settlement failed; the sweep will retry it',
    ]);
    expect((await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } })).settledAt).toBeNull();

    failing.on = false;
    const swept = await settlement.settlePending();
    expect(swept.settled).toBeGreaterThanOrEqual(1);
    expect(await applications(run.id)).toBe(1);
    expect((await settlement.settlePending()).settled).toBe(0);
  });

  it('settles a Run stopped through the API before any worker took it', async () => {
    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agentId}/start`,
      headers: auth(org.apiKey),
      payload: { isExclusive: false },
    });
    expect(start.statusCode, start.body).toBe(202);
    const runId = start.json().id as number;
    const stop = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agentId}/run/${runId}/stop`,
      headers: auth(org.apiKey),
    });
    expect(stop.statusCode, stop.body).toBe(200);
    expect(stop.json().status).toBe(8);
    expect((await ctx.db.run.findUniqueOrThrow({ where: { id: runId } })).settledAt).not.toBeNull();
  });
});
