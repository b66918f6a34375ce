// Benchmark of the rate limiter's cost: throughput and latency of an authenticated
// GET /api/v1/agent/{id} against two API processes of the same build, one with the limiter on (a
// budget so high it never refuses; the instance takes it from Redis in batches of up to 256 slots,
// so the Redis script runs about once per batch) and one with it off
// (RATE_LIMIT_ENABLED=false), measured in alternating rounds so drifting machine load hits both.
// Run alone with `npx tsx bench/ratelimit.ts`.
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/tools/seed.js';
import { freePort, startNode, waitFor } from '../test/helpers/process.js';
import {
  createBenchEnvironment,
  fmt,
  installSignalCleanup,
  machineSummary,
  median,
  note,
  onCleanup,
  print,
  processCpuMs,
  runCleanups,
  table,
} from './helpers.js';

interface Round {
  mode: 'off' | 'on';
  round: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** CPU time of the API process per request: robust where other work shares the machine. */
  cpuUsPerRequest: number;
}

async function startServer(env: Record<string, string>, label: string): Promise<{ base: string; pid: number }> {
  const port = await freePort();
  const srv = startNode(['src/server.ts'], { ...env, PORT: String(port), LOG_LEVEL: 'warn' });
  onCleanup(`server (${label}) ${srv.child.pid}`, async () => {
    if (srv.child.exitCode !== null || srv.child.signalCode !== null) return;
    srv.child.kill('SIGTERM');
    const timer = setTimeout(() => srv.child.kill('SIGKILL'), 15_000);
    await srv.exited;
    clearTimeout(timer);
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (srv.child.exitCode !== null) throw new Error(`server exited: ${srv.output()}`);
      return (await fetch(`${base}/health/live`)).ok;
    },
    60_000,
    100,
  );
  return { base, pid: srv.child.pid! };
}

function load(url: string, apiKey: string, seconds: number, connections: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, headers: { authorization: `ApiKey ${apiKey}` } });
}

export async function benchRateLimit(): Promise<{ rounds: Round[] }> {
  const seconds = Number(process.env.BENCH_RATELIMIT_SECONDS ?? 4);
  // Short alternating rounds: a machine shared with other work drifts less within a pair.
  const roundCount = Number(process.env.BENCH_RATELIMIT_ROUNDS ?? 5);
  const connections = Number(process.env.BENCH_RATELIMIT_CONNECTIONS ?? 16);
  // RATE_LIMIT_MAX=1000000 (the bench environment's default): the limiter runs and never refuses.
  const bench = await createBenchEnvironment({ LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
  const seeded = await runSeed(bench.config, { agents: 20, spaces: 1 });
  if (!seeded.apiKey) throw new Error('the seed did not return an API key');
  const db = createPrisma(bench.config.databaseUrl, { max: 1 });
  const agent = await db.agent.findFirstOrThrow({
    where: { organizationId: seeded.organizationId },
    select: { id: true },
  });
  await db.$disconnect();

  const servers = {
    off: await startServer({ ...bench.env, RATE_LIMIT_ENABLED: 'false' }, 'limiter off'),
    on: await startServer(bench.env, 'limiter on'),
  };
  const path = `/api/v1/agent/${agent.id}`;
  for (const mode of ['off', 'on'] as const) {
    const check = await fetch(servers[mode].base + path, { headers: { authorization: `ApiKey ${seeded.apiKey}` } });
    if (check.status !== 200) throw new Error(`${mode}: GET ${path} answered ${check.status}`);
    if ((check.headers.get('x-ratelimit-remaining') !== null) !== (mode === 'on'))
      throw new Error(`${mode}: unexpected X-RateLimit-Remaining`);
    note(`warming up limiter ${mode}`);
    await load(servers[mode].base + path, seeded.apiKey, 2, connections);
  }

  const rounds: Round[] = [];
  for (let round = 1; round <= roundCount; round++) {
    for (const mode of ['off', 'on'] as const) {
      note(`round ${round}, limiter ${mode}: ${seconds} s, ${connections} connections`);
      const cpuBefore = processCpuMs(servers[mode].pid).own;
      const r = await load(servers[mode].base + path, seeded.apiKey, seconds, connections);
      const cpuMs = processCpuMs(servers[mode].pid).own - cpuBefore;
      rounds.push({
        mode,
        round,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        requests: r.requests.total,
        non2xx: r.non2xx,
        cpuUsPerRequest: (cpuMs * 1000) / Math.max(1, r.requests.total),
      });
    }
  }

  print(
    table(
      `Rate limiter: GET /api/v1/agent/{id}, ${connections} connections, ${seconds} s per round`,
      ['limiter', 'round', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'API CPU µs/request'],
      rounds.map((r) => [r.mode, r.round, fmt(r.rps), r.p50, r.p99, r.requests, r.non2xx, fmt(r.cpuUsPerRequest, 0)]),
    ),
  );
  const of = (mode: 'off' | 'on', f: (r: Round) => number) => median(rounds.filter((r) => r.mode === mode).map(f));
  const off = of('off', (r) => r.rps);
  const on = of('on', (r) => r.rps);
  const offCpu = of('off', (r) => r.cpuUsPerRequest);
  const onCpu = of('on', (r) => r.cpuUsPerRequest);
  print(
    table(
      'Rate limiter: medians of the rounds',
      ['limiter', 'req/s', 'p99 ms', 'throughput vs off', 'API CPU µs/request', 'CPU vs off'],
      [
        ['off', fmt(off), of('off', (r) => r.p99), '100.0%', fmt(offCpu, 0), '100.0%'],
        [
          'on',
          fmt(on),
          of('on', (r) => r.p99),
          `${fmt((on / off) * 100)}%`,
          fmt(onCpu, 0),
          `${fmt((onCpu / offCpu) * 100)}%`,
        ],
      ],
    ),
  );
  print(`\n${machineSummary()}`);
  // The servers, then the database and Redis keys, are removed by the runner's cleanups.
  return { rounds };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  installSignalCleanup();
  benchRateLimit()
    .finally(runCleanups)
    .then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`${(err as Error).stack ?? err}\n`);
        process.exit(1);
      },
    );
}
