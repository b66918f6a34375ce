// `npm run bench -- http`: the compiled service (node dist/server.js) side by side with its floor, a
// bare Fastify server making one equivalent PostgreSQL query per request (bench/bare-server.mjs),
// driven in one run by the same load generator (autocannon) at the same concurrency. For each
// endpoint: req/s, p50, p99, the ratio service/bare, and the database work per request read from
// pg_stat_database (transactions) and pg_stat_user_tables (index and sequential scans) deltas.
// Env: BENCH_HTTP_SECONDS (default 10), BENCH_HTTP_ROUNDS (default 3: bare then service, alternating), BENCH_HTTP_CONNECTIONS (default 32), BENCH_HTTP_AGENTS
// (Agents seeded, default 10,000), BENCH_DIST (default dist; built by `npm run build`), BENCH_HTTP_ONLY
// (only the endpoints whose label contains it), BENCH_HTTP_NODE_ARGS (Node options for both servers,
// e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it), BENCH_HTTP_SERVICE_ENV (extra `NAME=value`
// pairs for the service, space-separated).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/tools/seed.js';
import { createRunsRepository } from '../src/services/runs/runs.repository.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { manualRunInput } from '../test/helpers/run-input.js';
import { freePort } from '../test/helpers/process.js';
import { createBenchEnvironment, fmt, note, onCleanup, print, processCpuMs, table, median } from './helpers.js';

interface Served {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

async function serve(label: string, args: string[], env: Record<string, string>): Promise<Served> {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = onCleanup(`${label} ${child.pid}`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  });
  // Generous: on a shared, loaded machine the compiled server has taken over 30 s to start.
  const deadline = Date.now() + 90_000;
  for (;;) {
    // The port from the start-up line, or (a given PORT, e.g. LOG_LEVEL=warn) once it answers.
    const fixed =
      env.PORT &&
      env.PORT !== '0' &&
      (await fetch(`http://127.0.0.1:${env.PORT}/health/live`).then(
        (r) => r.ok,
        () => false,
      ));
    const m = fixed
      ? [env.PORT, env.PORT]
      : /listening (\d+)|"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(out);
    if (m) {
      // Started: its output is drained from now on (a log line per request) but not kept.
      child.stdout!.removeAllListeners('data').resume();
      child.stderr!.removeAllListeners('data').resume();
      return { port: Number(m[1] ?? m[2]), pid: child.pid!, stop };
    }
    if (child.exitCode !== null) throw new Error(`${label} exited: ${out.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${label} did not start: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface DbCounters {
  xacts: number;
  scans: number;
}

async function dbCounters(client: pg.Client, dbName: string): Promise<DbCounters> {
  // Statistics are flushed by backends at most once a second (and at idle): take a fresh snapshot.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const x = await client.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [dbName],
  );
  const s = await client.query<{ n: string }>(
    'SELECT COALESCE(sum(COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0)), 0) AS n FROM pg_stat_user_tables',
  );
  return { xacts: Number(x.rows[0]?.n ?? 0), scans: Number(s.rows[0]?.n ?? 0) };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  xactsPerReq: number;
  scansPerReq: number;
  cpuUsPerReq: number;
  /** Share of that CPU spent in the kernel (socket writes and reads on this loopback). */
  systemShare: number;
}

/**
 * One measured load on `url`. With `stats`, the database counters are read around it (which needs
 * PostgreSQL's idle statistics flush on both sides, about 21 s); without, only req/s, latency and CPU.
 */
async function measure(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  stats: (() => Promise<DbCounters>) | null,
  pid: number,
): Promise<Measured> {
  // Warm-up: connection pools, JIT, caches.
  await autocannon({ url, headers, connections, duration: stats ? 2 : 1 });
  if (stats) await new Promise((r) => setTimeout(r, 10_500)); // the warm-up's statistics reported (below)
  const zero = { xacts: 0, scans: 0 };
  const before = stats ? await stats() : zero;
  const cpuBefore = processCpuMs(pid);
  const r = await autocannon({ url, headers, connections, duration: seconds });
  const cpuAfter = processCpuMs(pid);
  // Let backends report their statistics: a busy backend reports at most once a second, an idle one
  // after 10 s (PostgreSQL's PGSTAT_IDLE_INTERVAL), so the last second of a run is only counted then
  // (and would otherwise land in the next endpoint's figures).
  if (stats) await new Promise((r2) => setTimeout(r2, 10_500));
  const after = stats ? await stats() : zero;
  const requests = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests,
    non2xx: r.non2xx,
    xactsPerReq: (after.xacts - before.xacts) / Math.max(1, requests),
    scansPerReq: (after.scans - before.scans) / Math.max(1, requests),
    cpuUsPerReq: ((cpuAfter.own - cpuBefore.own) * 1000) / Math.max(1, requests),
    systemShare: (cpuAfter.system - cpuBefore.system) / Math.max(1e-9, cpuAfter.own - cpuBefore.own),
  };
}

export async function benchHttp(): Promise<unknown> {
  const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 32);
  const agents = Number(process.env.BENCH_HTTP_AGENTS ?? 10_000);
  const dist = path.resolve(process.env.BENCH_DIST ?? 'dist');
  if (!fs.existsSync(path.join(dist, 'server.js')))
    throw new Error(`${dist}/server.js does not exist: run \`npm run build\` first`);

  const bench = await createBenchEnvironment({ LOG_LEVEL: 'warn' });
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  const closeDb = onCleanup('bench prisma', () => db.$disconnect());
  const password = 'bench password 123';
  const org = await bootstrapOrganization(db, {
    org: 'Bench',
    email: 'bench@example.com',
    password,
    credits: 1000,
    apiKeyDays: 1,
    now: new Date(),
  });
  note(`seeding ${agents} agents...`);
  await runSeed(bench.config, { agents, org: org.organizationId, spaces: 10 });
  const agent = await db.agent.findFirstOrThrow({
    where: { organizationId: org.organizationId },
    orderBy: { id: 'asc' },
  });
  const run = await createRunsRepository(db).createRun(
    manualRunInput(org.organizationId, agent.id, {
      agentVersion: agent.version,
      startedBy: 'bench',
      startedByUserId: org.userId,
    }),
    new Date(),
  );

  const nodeArgs = (process.env.BENCH_HTTP_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const bare = await serve('bare server', [...nodeArgs, path.resolve('bench/bare-server.mjs')], {
    ...bench.env,
    PORT: '0',
    BENCH_ORG_ID: String(org.organizationId),
  });
  const service = await serve('service', [...nodeArgs, path.join(dist, 'server.js')], {
    ...bench.env,
    PORT: String(await freePort()),
    // Measured as deployed: its metrics listener up (the HTTP metrics are recorded either way).
    METRICS_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '1000000',
    ...Object.fromEntries(
      (process.env.BENCH_HTTP_SERVICE_ENV ?? '')
        .split(' ')
        .filter(Boolean)
        .map((kv) => kv.split('=') as [string, string]),
    ),
  });

  const tokenRes = await fetch(`http://127.0.0.1:${service.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: org.email, password }),
  });
  if (!tokenRes.ok) throw new Error(`token: HTTP ${tokenRes.status} ${await tokenRes.text()}`);
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };

  const statsClient = new pg.Client({ connectionString: bench.config.databaseUrl });
  await statsClient.connect();
  const closeStats = onCleanup('stats client', () => statsClient.end());
  const stats = () => dbCounters(statsClient, bench.dbName);

  const endpoints = [
    { label: 'GET agent/{id}', path: `/api/v1/agent/${agent.id}` },
    { label: 'GET run status', path: `/api/v1/agent/${agent.id}/run/${run.id}/status` },
    { label: 'GET agent/all p1 x50', path: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50' },
  ];
  const only = process.env.BENCH_HTTP_ONLY;
  // The machine's speed drifts (other VMs on the host): each round measures the bare route and then
  // the service right after it, and the ratio is taken within the round. The first round also reads
  // the database counters; the table gives medians over the rounds.
  const rounds = Math.max(1, Number(process.env.BENCH_HTTP_ROUNDS ?? 3));
  const schemes = [
    ['ApiKey', `ApiKey ${org.apiKey}`],
    ['Bearer', `Bearer ${token}`],
  ] as const;
  const rows: Array<Array<string | number>> = [];
  const med = (xs: number[]) => median(xs);
  for (const e of endpoints.filter((x) => !only || x.label.includes(only))) {
    const bareRuns: Measured[] = [];
    const svcRuns = new Map<string, Measured[]>(schemes.map(([scheme]) => [scheme, []]));
    const ratios = new Map<string, number[]>(schemes.map(([scheme]) => [scheme, []]));
    for (let round = 1; round <= rounds; round++) {
      const withStats = round === 1 ? stats : null;
      for (const [scheme, header] of schemes) {
        note(`${e.label}: round ${round}/${rounds}, bare then service (${scheme})`);
        const b = await measure(
          `http://127.0.0.1:${bare.port}${e.path}`,
          {},
          seconds,
          connections,
          withStats,
          bare.pid,
        );
        const s = await measure(
          `http://127.0.0.1:${service.port}${e.path}`,
          { authorization: header },
          seconds,
          connections,
          withStats,
          service.pid,
        );
        if (s.non2xx > 0) throw new Error(`${e.label} (${scheme}): ${s.non2xx} non-2xx answers`);
        bareRuns.push(b);
        svcRuns.get(scheme)!.push(s);
        ratios.get(scheme)!.push(s.rps / b.rps);
      }
    }
    for (const [scheme] of schemes) {
      const svc = svcRuns.get(scheme)!;
      const b0 = bareRuns[0];
      const s0 = svc[0];
      rows.push([
        e.label,
        scheme,
        fmt(med(bareRuns.map((m) => m.rps)), 0),
        fmt(med(svc.map((m) => m.rps)), 0),
        `${fmt(med(ratios.get(scheme)!) * 100, 0)}% (${ratios
          .get(scheme)!
          .map((r) => fmt(r * 100, 0))
          .join(', ')})`,
        fmt(med(bareRuns.map((m) => m.p50)), 0),
        fmt(med(svc.map((m) => m.p50)), 0),
        fmt(med(bareRuns.map((m) => m.p99)), 0),
        fmt(med(svc.map((m) => m.p99)), 0),
        fmt(b0.xactsPerReq, 2),
        fmt(s0.xactsPerReq, 2),
        fmt(b0.scansPerReq, 2),
        fmt(s0.scansPerReq, 2),
        fmt(med(bareRuns.map((m) => m.cpuUsPerReq)), 0),
        fmt(med(svc.map((m) => m.cpuUsPerReq)), 0),
        `${fmt(b0.systemShare * 100, 0)}% / ${fmt(s0.systemShare * 100, 0)}%`,
      ]);
    }
  }
  print(
    table(
      `HTTP: compiled service vs bare single-query Fastify route (${connections} connections, ${seconds} s each, ${rounds} rounds, medians; ${agents} agents)`,
      [
        'endpoint',
        'auth',
        'bare req/s',
        'service req/s',
        'service/bare (each round)',
        'bare p50 ms',
        'svc p50 ms',
        'bare p99 ms',
        'svc p99 ms',
        'bare xacts/req',
        'svc xacts/req',
        'bare scans/req',
        'svc scans/req',
        'bare CPU µs/req',
        'svc CPU µs/req',
        'kernel share of CPU, bare / svc',
      ],
      rows,
    ),
  );
  await service.stop();
  await bare.stop();
  await closeStats();
  await closeDb();
  await bench.dispose();
  return rows;
}
