// Benchmark of the Agent catalogue: seeds 100,000 Agents in 10 Spaces into a fresh database and
// measures p50/p95/p99 latency of GET /api/v1/agent/all (and agent/search) through app.inject: every
// sort column in both directions at page 1 and page 1000, every filter of the API contract, for an org admin
// and for a member who reads 3 of the 10 Spaces; then the unpaged plain array of all 100,000. It ends
// with EXPLAIN (ANALYZE, BUFFERS) of the main statements when the repository exposes them.
// Run alone with `npx tsx bench/agents.ts` or through `npm run bench -- agents`.
// AGENTS_BENCH_ITERATIONS overrides the 200 iterations of each paged case (the unpaged one runs 5);
// AGENTS_BENCH_CASES (a regular expression) runs only the cases whose label matches.
// The unpaged array is fetched over real HTTP (app.listen + fetch, the body read chunk by chunk and
// not kept), so that time to first byte and the server's memory growth show whether it is streamed.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { createBenchEnvironment, machineSummary } from './helpers.js';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/tools/seed.js';
import * as agentsRepository from '../src/services/agents/agents.repository.js';
import { parseAgentListQuery } from '../src/services/agents/agent-query.js';
import { issueApiKey } from '../src/services/identity/api-keys.service.js';
import { createIdentityRepository } from '../src/services/identity/identity.repository.js';

export interface BenchCase {
  label: string;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  iterations: number;
  rows: number;
  totalRecordCount?: number;
}

export interface AgentsBenchResult {
  agents: number;
  seedSeconds: number;
  loadAtStart: string;
  loadAtEnd: string;
  /** Unpaged plain array over HTTP: p50 time to the first byte, ms. */
  unpagedFirstByteMs: number;
  /** Unpaged plain array over HTTP: peak RSS growth of the process (server; the client keeps no body), MiB. */
  unpagedRssGrowthMiB: number;
  cases: BenchCase[];
  plans: Array<{ label: string; plan: string }>;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 10) / 10;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Outcome {
  status: number;
  rows: number;
  totalRecordCount?: number;
  firstByteMs?: number;
  error?: string;
}

async function injectOnce(
  app: Awaited<ReturnType<typeof buildApp>>,
  url: string,
  headers: Record<string, string>,
): Promise<Outcome> {
  const res = await app.inject({ method: 'GET', url, headers });
  if (res.statusCode !== 200) return { status: res.statusCode, rows: 0, error: res.body.slice(0, 300) };
  const body = res.json() as { agents?: unknown[]; totalRecordCount?: number } | unknown[];
  if (Array.isArray(body)) return { status: 200, rows: body.length };
  return { status: 200, rows: body.agents?.length ?? 0, totalRecordCount: body.totalRecordCount };
}

/** GET over HTTP, reading the body chunk by chunk without keeping it: rows are counted by their "id". */
async function fetchCounting(url: string, headers: Record<string, string>): Promise<Outcome> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200 || !res.body) return { status: res.status, rows: 0, error: await res.text() };
  const decoder = new TextDecoder();
  let rows = 0;
  let firstByteMs: number | undefined;
  let tail = '';
  for await (const chunk of res.body) {
    firstByteMs ??= performance.now() - t0;
    const text = tail + decoder.decode(chunk, { stream: true });
    rows += text.split('{"id":').length - 1;
    tail = text.slice(-5); // shorter than the marker: a marker is never counted twice
  }
  return { status: 200, rows, firstByteMs: Math.round((firstByteMs ?? 0) * 10) / 10 };
}

interface Scenario {
  label: string;
  url: string;
  member?: boolean;
  iterations?: number;
  /** The list query behind it, for EXPLAIN. */
  explain?: boolean;
}

function scenarios(space: number): Scenario[] {
  const list = '/api/v1/agent/all?';
  const out: Scenario[] = [];
  for (const column of ['name', 'lastActivity', 'created', 'updated', 'status', 'configType']) {
    for (const order of [0, 1]) {
      const dir = order ? ' desc' : '';
      out.push({
        label: `page 1 x50, sort ${column}${dir}`,
        url: `${list}pageIndex=1&recordsPerPage=50&sortColumn=${column}&sortOrder=${order}`,
        explain: column === 'name' && order === 0,
      });
      out.push({
        label: `page 1000 x50, sort ${column}${dir}`,
        url: `${list}pageIndex=1000&recordsPerPage=50&sortColumn=${column}&sortOrder=${order}`,
        explain: column === 'created' && order === 1,
      });
    }
  }
  out.push(
    { label: 'page 1 x1000, sort updated', url: `${list}pageIndex=1&recordsPerPage=1000&sortColumn=updated` },
    { label: 'name contains "phones"', url: `${list}pageIndex=1&recordsPerPage=50&name=phones`, explain: true },
    {
      label: 'name contains "phones", lastActivity desc',
      url: `${list}pageIndex=1&recordsPerPage=50&name=phones&sortColumn=lastActivity&sortOrder=1`,
    },
    { label: 'name contains "phones", page 100', url: `${list}pageIndex=100&recordsPerPage=50&name=phones` },
    { label: 'name contains (no match)', url: `${list}pageIndex=1&recordsPerPage=50&name=zzzz` },
    { label: 'status=6', url: `${list}pageIndex=1&recordsPerPage=50&status=6`, explain: true },
    {
      label: 'status=10, sort created desc',
      url: `${list}pageIndex=1&recordsPerPage=50&status=10&sortColumn=created&sortOrder=1`,
    },
    { label: 'configType=Template', url: `${list}pageIndex=1&recordsPerPage=50&configType=Template` },
    {
      label: 'configType=1, sort updated desc',
      url: `${list}pageIndex=1&recordsPerPage=50&configType=1&sortColumn=updated&sortOrder=1`,
    },
    {
      label: 'spaceId, sort updated desc',
      url: `${list}pageIndex=1&recordsPerPage=50&spaceId=${space}&sortColumn=updated&sortOrder=1`,
    },
    { label: 'spaceId, page 100, sort name', url: `${list}pageIndex=100&recordsPerPage=50&spaceId=${space}` },
    {
      label: 'name+status+configType, lastActivity desc',
      url: `${list}pageIndex=2&recordsPerPage=20&name=books&status=10&configType=1&sortColumn=lastActivity&sortOrder=1`,
    },
    {
      label: 'member (3 of 10 spaces), sort name',
      url: `${list}pageIndex=1&recordsPerPage=50`,
      member: true,
      explain: true,
    },
    {
      label: 'member, page 500, sort created desc',
      url: `${list}pageIndex=500&recordsPerPage=50&sortColumn=created&sortOrder=1`,
      member: true,
    },
    {
      label: 'member, status=10, sort lastActivity',
      url: `${list}pageIndex=5&recordsPerPage=50&status=10&sortColumn=lastActivity`,
      member: true,
    },
    { label: 'member, name contains "phones"', url: `${list}pageIndex=1&recordsPerPage=50&name=phones`, member: true },
    { label: 'search "phones" (max 50)', url: '/api/v1/agent/search?query=phones' },
    { label: 'unpaged plain array (all agents)', url: '/api/v1/agent/all', iterations: 5 },
  );
  return out;
}

export async function benchAgents(
  opts: { agents?: number; iterations?: number; log?: (msg: string) => void } = {},
): Promise<AgentsBenchResult> {
  const total = opts.agents ?? 100_000;
  const iterations = opts.iterations ?? (Number(process.env.AGENTS_BENCH_ITERATIONS) || 200);
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const loadAtStart = load();
  log(machineSummary());
  // A fresh migrated database, Redis prefix and storage folder, all removed at the end (or on Ctrl-C).
  const bench = await createBenchEnvironment();
  try {
    const config = bench.config;

    const seedStart = performance.now();
    const seeded = await runSeed(config, { agents: total, spaces: 10 }, log);
    const seedSeconds = Math.round((performance.now() - seedStart) / 100) / 10;
    if (!seeded.apiKey) throw new Error('the seed did not return an API key');

    // A member who reads 3 of the 10 Spaces: the list is restricted to them.
    const db = createPrisma(config.databaseUrl, { max: 2 });
    let memberKey: string;
    const plans: AgentsBenchResult['plans'] = [];
    try {
      const repo = createIdentityRepository(db);
      const user = await repo.createUser({
        organizationId: seeded.organizationId,
        email: `bench-${bench.dbName}@example.com`,
        name: 'Bench member',
        role: 'member',
        passwordHash: null,
      });
      await db.spaceMembership.createMany({
        data: seeded.spaceIds.slice(0, 3).map((spaceId) => ({ spaceId, userId: user.id, role: 'reader' })),
      });
      memberKey = (
        await issueApiKey(repo, {
          organizationId: seeded.organizationId,
          userId: user.id,
          description: 'bench',
          expiresAt: new Date(Date.now() + 86_400_000),
        })
      ).key;

      const app = await buildApp(config, { logger: false });
      const cases: BenchCase[] = [];
      let unpagedRssGrowthMiB = 0;
      let unpagedFirstByteMs = 0;
      const only = process.env.AGENTS_BENCH_CASES ? new RegExp(process.env.AGENTS_BENCH_CASES) : null;
      const list = scenarios(seeded.spaceIds[4]).filter((s) => !only || only.test(s.label));
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        for (const s of list) {
          const headers = { authorization: `ApiKey ${s.member ? memberKey : seeded.apiKey}` };
          const n = s.iterations ?? iterations;
          const unpaged = !s.url.includes('pageIndex') && s.url.includes('/all');
          const once = unpaged
            ? () => fetchCounting(`${origin}${s.url}`, headers)
            : () => injectOnce(app, s.url, headers);
          for (let i = 0; i < (unpaged ? 1 : 3); i++) await once();
          const times: number[] = [];
          const firstBytes: number[] = [];
          let rssPeak = 0;
          const rssBefore = process.memoryUsage().rss;
          const sampler = unpaged
            ? setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 10)
            : undefined;
          let last: { rows: number; totalRecordCount?: number } = { rows: 0 };
          for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            const r = await once();
            times.push(performance.now() - t0);
            if (r.firstByteMs !== undefined) firstBytes.push(r.firstByteMs);
            if (r.status !== 200) throw new Error(`${s.label}: HTTP ${r.status} ${r.error ?? ''}`);
            last = r;
          }
          if (sampler) {
            clearInterval(sampler);
            unpagedRssGrowthMiB = Math.round(Math.max(0, rssPeak - rssBefore) / 2 ** 20);
            unpagedFirstByteMs = percentile(
              firstBytes.sort((a, b) => a - b),
              50,
            );
          }
          times.sort((a, b) => a - b);
          const result: BenchCase = {
            label: s.label,
            p50Ms: percentile(times, 50),
            p95Ms: percentile(times, 95),
            p99Ms: percentile(times, 99),
            maxMs: percentile(times, 100),
            iterations: n,
            rows: last.rows,
          };
          if (last.totalRecordCount !== undefined) result.totalRecordCount = last.totalRecordCount;
          cases.push(result);
          log(
            `${s.label.padEnd(46)} p50 ${String(result.p50Ms).padStart(7)}  p95 ${String(result.p95Ms).padStart(7)}  p99 ${String(result.p99Ms).padStart(7)} ms  rows ${last.rows}${result.totalRecordCount !== undefined ? ` of ${result.totalRecordCount}` : ''}`,
          );
          if (sampler)
            log(
              `${''.padEnd(46)} first byte p50 ${unpagedFirstByteMs} ms, process RSS growth ${unpagedRssGrowthMiB} MiB`,
            );
        }
      } finally {
        await app.close();
      }

      // EXPLAIN (ANALYZE, BUFFERS) of the statements behind the main cases, when the repository
      // exposes them (agentListStatements); the second run of each is shown, so caches are warm.
      const statements = (
        agentsRepository as {
          agentListStatements?: (typeof import('../src/services/agents/agents.repository.js'))['agentListStatements'];
        }
      ).agentListStatements;
      if (statements) {
        const readable = seeded.spaceIds.slice(0, 3);
        for (const s of list.filter((x) => x.explain)) {
          const query = Object.fromEntries(new URL(s.url, 'http://x').searchParams) as Record<string, string>;
          const request = parseAgentListQuery({
            ...query,
            pageIndex: query.pageIndex ? Number(query.pageIndex) : undefined,
            recordsPerPage: query.recordsPerPage ? Number(query.recordsPerPage) : undefined,
            sortOrder: query.sortOrder ? Number(query.sortOrder) : undefined,
          });
          const scope = { organizationId: seeded.organizationId, spaceIds: s.member ? readable : ('all' as const) };
          for (const [part, sql] of Object.entries(statements(scope, request.filter, request.sort, request.page))) {
            if (!sql) continue;
            const run = () =>
              db.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(
                `EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`,
                ...sql.values,
              );
            await run();
            const plan = (await run()).map((r) => r['QUERY PLAN']).join('\n');
            plans.push({ label: `${s.label}: ${part}`, plan });
            log(`\nEXPLAIN ${s.label}: ${part}\n${plan}`);
          }
        }
      }
      return {
        agents: total,
        seedSeconds,
        loadAtStart,
        loadAtEnd: load(),
        unpagedFirstByteMs,
        unpagedRssGrowthMiB,
        cases,
        plans,
      };
    } finally {
      await db.$disconnect();
    }
  } finally {
    await bench.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchAgents().then(
    (r) => {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
