// A Run's end and its settlement (where the rest of a Run's cost goes), without the rest of a Run: the
// worker's terminal change (`transition` with the Run as the worker took it, so the end and the
// settlement go in one round trip, as in production), in this process, with the settlement's steps
// one at a time, none, or all of them. One Run after another, then 8 at once (a burst's 2 workers x
// 4 slots), in one invocation. CPU per Run of this process and of PostgreSQL (all its processes, from
// /proc), so the figures do not move with the machine's other work as a burst's ratio does.
//
//   npm run bench -- settle   BENCH_SETTLE_RUNS=400 per case and round (after as many warm-up Runs), BENCH_SETTLE_ROUNDS=3
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { systemClock } from '../src/lib/clock.js';
import { createRunsRepository, type RunRow } from '../src/services/runs/runs.repository.js';
import { createSettlement, settlementSteps, type SettlementStep } from '../src/services/settlement/index.js';
import {
  benchOrganization,
  createBenchAgents,
  createBenchEnvironment,
  fmt,
  installSignalCleanup,
  median,
  note,
  onCleanup,
  print,
  runCleanups,
  serviceCpuSince,
  serviceCpuSnapshot,
  table,
} from './helpers.js';
import { smallDefinition } from './runs.js';

interface SettleCase {
  steps: string;
  concurrency: number;
  wallMs: number;
  nodeMs: number;
  postgresMs: number;
}

/** What every case works with: the API (to start Runs), the pool, the organization and its Agents. */
interface SettleContext {
  app: Awaited<ReturnType<typeof buildApp>>;
  db: ReturnType<typeof createPrisma>;
  headers: Record<string, string>;
  agentIds: number[];
  /** Runs measured per case and round (as many again warm up first). */
  runs: number;
}

export async function benchSettle(): Promise<void> {
  const runs = Number(process.env.BENCH_SETTLE_RUNS ?? 400);
  const rounds = Number(process.env.BENCH_SETTLE_ROUNDS ?? 3);
  note('settle: creating a migrated database...');
  const bench = await createBenchEnvironment();
  const { config } = bench;
  const app = await buildApp(config, { logger: false });
  const closeApp = onCleanup('app', () => app.close());
  await app.ready();
  const db = createPrisma(config.databaseUrl, { max: 8 });
  const closeDb = onCleanup('bench db client', () => db.$disconnect());
  try {
    const org = await benchOrganization(db);
    // The Runs never fetch a page: only their end is measured.
    const definition = smallDefinition('http://127.0.0.1:9/');
    note(`settle: creating ${runs * 2} agents...`);
    const agentIds = await createBenchAgents(app, org, definition, runs * 2);
    const ctx: SettleContext = { app, db, headers: org.headers, agentIds, runs };

    const all = settlementSteps(db, config);
    const choices = [
      { label: 'none (the end and its claim)', steps: [] as SettlementStep[] },
      ...all.map((s) => ({ label: s.name, steps: [s] })),
      { label: 'all', steps: all },
    ];
    const measured: SettleCase[] = [];
    // Round 0 warms this process and PostgreSQL up for every case (JIT, plans); it is not reported. The
    // rounds after it run every case again in the same order, and each case's median is reported.
    for (let round = 0; round <= rounds; round++) {
      for (const concurrency of [1, 8]) {
        for (const choice of choices) {
          const settlement = createSettlement(
            db,
            { clock: systemClock, log: { warn: warnNote }, config },
            choice.steps,
          );
          const figures = await measureCase(ctx, settlement, concurrency);
          if (round > 0) measured.push({ steps: choice.label, concurrency, ...figures });
          note(`settle: round ${round}, ${choice.label}, ${concurrency} at once: done`);
        }
      }
    }
    const cases = [1, 8].flatMap((concurrency) =>
      choices.map((choice) => {
        const of = measured.filter((c) => c.concurrency === concurrency && c.steps === choice.label);
        const mid = (pick: (c: SettleCase) => number) => median(of.map(pick));
        const [wallMs, nodeMs, postgresMs] = [mid((c) => c.wallMs), mid((c) => c.nodeMs), mid((c) => c.postgresMs)];
        return { steps: choice.label, concurrency, wallMs, nodeMs, postgresMs };
      }),
    );
    printSettle(cases, runs, rounds);
  } finally {
    await closeDb();
    await closeApp();
    await bench.dispose();
  }
}

const warnNote = (obj: object, msg: string) => note(`settle: ${msg} ${JSON.stringify(obj)}`);

/**
 * One case: each Agent starts a Run through the API (its previous case's Run has ended) and the Run is
 * taken as a worker takes it; half of them end `concurrency` at a time to warm up, then the other half
 * is measured. The repository gets the settlement the way the runs wiring gives it (wiring.ts).
 */
async function measureCase(ctx: SettleContext, settlement: ReturnType<typeof createSettlement>, concurrency: number) {
  const repo = createRunsRepository(ctx.db, {
    settle: (run) => settlement.afterTerminal(run),
    settleMoving: (runId, move, alone) => settlement.settleMoving(runId, move, alone),
  });
  const taken: RunRow[] = [];
  for (const agentId of ctx.agentIds) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agentId}/start`,
      headers: ctx.headers,
      payload: {},
    });
    if (res.statusCode !== 202) throw new Error(`starting agent ${agentId}: HTTP ${res.statusCode} ${res.body}`);
    const picked = await repo.takeQueued(res.json().id as number, new Date());
    if (!picked) throw new Error(`run ${res.json().id} could not be taken`);
    taken.push(picked.run);
  }
  const burst = async (list: RunRow[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < list.length) await endAsTheWorkerDoes(repo, list[next++]);
      }),
    );
  };
  await burst(taken.slice(0, ctx.runs));
  const pg = serviceCpuSnapshot();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await burst(taken.slice(ctx.runs));
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const service = serviceCpuSince(pg);
  return {
    wallMs: wall / ctx.runs,
    nodeMs: (used.user + used.system) / 1000 / ctx.runs,
    postgresMs: service.postgres / ctx.runs,
  };
}

/** A small Run's end as the worker writes it: its figures, a CSV and a log, with the Run as it was taken. */
async function endAsTheWorkerDoes(repo: ReturnType<typeof createRunsRepository>, run: RunRow) {
  const at = new Date();
  const files = [
    {
      name: 'data.csv',
      fileType: 'Csv',
      contentType: 'text/csv',
      fileSize: 1_234,
      storageKey: `runs/${run.id}/data.csv`,
    },
    {
      name: 'run.log',
      fileType: 'Log',
      contentType: 'text/plain',
      fileSize: 300,
      storageKey: `runs/${run.id}/run.log`,
    },
  ];
  const stats = { pageCount: 1, recordsExtracted: 10, recordsExported: 10, exportCount: 10, errorCount: 0 };
  const patch = { ...stats, endTime: at, inputCount: 0, traffic: 14_000n };
  const ended = await repo.transition(run.id, { type: 'exported', errorCount: 0 }, at, patch, files, run);
  if (!ended) throw new Error(`run ${run.id} did not end`);
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 3)}`;

function printSettle(cases: SettleCase[], runs: number, rounds: number) {
  const base = (c: SettleCase) => cases.find((b) => b.concurrency === c.concurrency && b.steps === cases[0].steps)!;
  print(
    table(
      `Settle: a Run's end and its settlement's steps, CPU per Run (median of ${rounds} rounds; ${runs} Runs per case and round, after as many warm-up Runs)`,
      ['steps', 'at once', 'wall ms/Run', 'this process CPU ms/Run', 'PostgreSQL CPU ms/Run', 'both, more than none'],
      cases.map((c) => [
        c.steps,
        c.concurrency,
        fmt(c.wallMs, 3),
        fmt(c.nodeMs, 3),
        fmt(c.postgresMs, 3),
        c === base(c) ? '' : signed(c.nodeMs + c.postgresMs - base(c).nodeMs - base(c).postgresMs),
      ]),
    ),
  );
  print(
    'Wall per Run at 8 at once is the rate the organization takes ends at: every settlement of one organization ' +
      'updates its rollup rows and its grant. PostgreSQL: every server process of the machine (/proc), 10 ms ticks.',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  installSignalCleanup();
  benchSettle().then(
    () => process.exit(0),
    async (err) => {
      process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
      await runCleanups();
      process.exit(1);
    },
  );
}
