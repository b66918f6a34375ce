// Webhooks' cost to a Run: CPU per Run of the worker processes (and their run
// processes) with a `*` subscription on, side by side with no subscription, in one invocation. The
// rounds alternate off, on, off, on... on the same Agents, workers and database, so a load that
// changes during the bench weighs on both sides alike. A Run sends two events (run.created and its
// terminal event); an "on" round ends when both have reached the receiver for every Run.
//
//   BENCH_WEBHOOK_RUNS=60 BENCH_WEBHOOK_ROUNDS=3 npm run bench -- webhooks   (ROUNDS=0 leaves this part out)
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { seal } from '../src/lib/crypto.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { TERMINAL_STATUSES } from '../src/services/runs/status-machine.js';
import { newWebhookSecret } from '../src/services/webhooks/signing.js';
import { startFixtureSite } from '../test/helpers/fixture-site.js';
import { startReceiver } from '../test/helpers/webhook-receiver.js';
import { waitFor } from '../test/helpers/process.js';
import {
  createBenchEnvironment,
  fmt,
  median,
  note,
  print,
  processCpuMs,
  processTreeCpuMs,
  startWorkerProcess,
  table,
  type WorkerProcess,
} from './helpers.js';
import { smallDefinition } from './runs.js';

interface Round {
  webhooks: boolean;
  runs: number;
  seconds: number;
  workerCpuMsPerRun: number;
  childCpuMsPerRun: number;
  benchProcessCpuMsPerRun: number;
}

export async function benchWebhooksCpu(workers: number): Promise<void> {
  const runs = Number(process.env.BENCH_WEBHOOK_RUNS ?? 60);
  const rounds = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 3);
  if (rounds < 1) return;
  const env = await createBenchEnvironment();
  const db = createPrisma(env.config.databaseUrl, { max: 2 });
  const site = await startFixtureSite();
  const receiver = await startReceiver();
  const app = await buildApp(env.config, { logger: false });
  const procs: WorkerProcess[] = [];
  try {
    await app.ready();
    const org = await bootstrapOrganization(db, {
      org: 'Bench',
      email: 'bench-cpu@example.com',
      password: 'correct horse battery',
      credits: 1_000_000,
      apiKeyDays: 1,
      now: new Date(),
    });
    const headers = { authorization: `ApiKey ${org.apiKey}`, 'content-type': 'application/json' };
    const hook = await db.webhook.create({
      data: {
        organizationId: org.organizationId,
        url: receiver.url('/hook'),
        eventTypes: ['*'],
        enabled: false,
        secretSealed: seal(env.config.encryptionKey, newWebhookSecret()),
      },
    });
    const agentIds: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/agent',
        headers,
        payload: { name: `Webhook bench ${i + 1}`, spaceId: org.spaceId, definition: smallDefinition(site.url) },
      });
      if (res.statusCode !== 201) throw new Error(`creating an agent: HTTP ${res.statusCode} ${res.body}`);
      agentIds.push(res.json().id);
    }
    for (let i = 0; i < workers; i += 1) procs.push(await startWorkerProcess(env.env));

    const terminal = new Set<number>(TERMINAL_STATUSES);
    const round = async (webhooks: boolean): Promise<Round> => {
      await db.webhook.update({ where: { id: hook.id }, data: { enabled: webhooks } });
      const received0 = receiver.received.length;
      const cpu0 = procs.map((p) => processTreeCpuMs(p.pid));
      const self0 = processCpuMs('self').own;
      const t0 = Date.now();
      const ids = await Promise.all(
        agentIds.map(async (agentId) => {
          const res = await app.inject({ method: 'POST', url: `/api/v1/agent/${agentId}/start`, headers, payload: {} });
          if (res.statusCode !== 202) throw new Error(`starting agent ${agentId}: HTTP ${res.statusCode} ${res.body}`);
          return res.json().id as number;
        }),
      );
      await waitFor(
        async () => {
          const done = await db.run.count({ where: { id: { in: ids }, status: { in: [...terminal] } } });
          return done === ids.length && (!webhooks || receiver.received.length - received0 >= 2 * ids.length);
        },
        300_000,
        20,
      );
      const seconds = (Date.now() - t0) / 1000;
      const cpu1 = procs.map((p) => processTreeCpuMs(p.pid));
      const sum = (f: (c: { own: number; children: number }, i: number) => number) =>
        cpu1.reduce((n, c, i) => n + f(c, i), 0) / ids.length;
      return {
        webhooks,
        runs: ids.length,
        seconds,
        workerCpuMsPerRun: sum((c, i) => c.own - cpu0[i].own),
        childCpuMsPerRun: sum((c, i) => c.children - cpu0[i].children),
        benchProcessCpuMsPerRun: (processCpuMs('self').own - self0) / ids.length,
      };
    };

    note(`webhooks cpu: warm-up round (${runs} Runs, webhooks on)`);
    await round(true);
    const results: Round[] = [];
    for (let r = 0; r < rounds; r += 1) {
      for (const on of [false, true]) {
        note(`webhooks cpu: round ${r + 1}/${rounds}, webhooks ${on ? 'on' : 'off'}`);
        results.push(await round(on));
      }
    }
    const side = (on: boolean) => results.filter((r) => r.webhooks === on);
    const med = (on: boolean, f: (r: Round) => number) => median(side(on).map(f));
    const workerTotal = (r: Round) => r.workerCpuMsPerRun + r.childCpuMsPerRun;
    const row = (label: string, f: (r: Round) => number, digits = 1) => [
      label,
      fmt(med(false, f), digits),
      fmt(med(true, f), digits),
      fmt(med(true, f) - med(false, f), digits),
    ];
    print(
      table(
        `Webhooks' CPU per Run: ${runs} small Runs per round, ${workers} worker processes, ${rounds} rounds each way (medians)`,
        ['per Run', 'webhooks off', 'webhooks on', 'added'],
        [
          row('worker processes: CPU (ms)', (r) => r.workerCpuMsPerRun),
          row('their run processes: CPU (ms)', (r) => r.childCpuMsPerRun),
          row('workers in all: CPU (ms)', workerTotal),
          row('bench process (API, fixture site, receiver): CPU (ms)', (r) => r.benchProcessCpuMsPerRun),
          row('round: Runs per second', (r) => r.runs / r.seconds, 2),
        ],
      ),
    );
    note(
      `each round: ${results.map((r) => `${r.webhooks ? 'on' : 'off'} ${fmt(workerTotal(r))} ms`).join(', ')} (workers in all, per Run)`,
    );
  } finally {
    for (const p of procs) await p.stop();
    await app.close();
    await receiver.close();
    await site.close();
    await db.$disconnect();
    await env.dispose();
  }
}
