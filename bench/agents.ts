// Benchmark of the Agent catalogue: seeds 100,000 Agents into a fresh database and measures p50/p95
// latency of GET /api/v1/agent/all (and agent/search) through app.inject, for an org admin and for
// a member who reads 3 of the 10 Spaces. Run alone with `npx tsx bench/agents.ts`.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { createBenchEnvironment } from './helpers.js';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/services/agents/seed.js';
import { issueApiKey } from '../src/services/identity/api-keys.service.js';
import { createIdentityRepository } from '../src/services/identity/identity.repository.js';

export interface BenchCase {
  label: string;
  p50Ms: number;
  p95Ms: number;
  iterations: number;
  rows: number;
  totalRecordCount?: number;
}

export interface AgentsBenchResult {
  agents: number;
  seedSeconds: number;
  cases: BenchCase[];
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 10) / 10;
}

export async function benchAgents(opts: { agents?: number; iterations?: number; log?: (msg: string) => void } = {}): Promise<AgentsBenchResult> {
  const total = opts.agents ?? 100_000;
  const iterations = opts.iterations ?? 50;
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
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
    try {
      const repo = createIdentityRepository(db);
      const user = await repo.createUser({ organizationId: seeded.organizationId, email: `bench-${bench.dbName}@example.com`, name: 'Bench member', role: 'member', passwordHash: null });
      await db.spaceMembership.createMany({ data: seeded.spaceIds.slice(0, 3).map((spaceId) => ({ spaceId, userId: user.id, role: 'reader' })) });
      memberKey = (await issueApiKey(repo, { organizationId: seeded.organizationId, userId: user.id, description: 'bench', expiresAt: new Date(Date.now() + 86_400_000) })).key;
    } finally {
      await db.$disconnect();
    }

    const app = await buildApp(config, { logger: false });
    await app.ready();
    const cases: BenchCase[] = [];
    try {
      const space = seeded.spaceIds[4];
      const scenarios: Array<{ label: string; url: string; member?: boolean; iterations?: number }> = [
        { label: 'page 1 x50, sort name', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50' },
        { label: 'page 1 x50, sort lastActivity desc', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&sortColumn=lastActivity&sortOrder=1' },
        { label: 'page 1000 x50, sort created desc', url: '/api/v1/agent/all?pageIndex=1000&recordsPerPage=50&sortColumn=created&sortOrder=1' },
        { label: 'page 1 x50, sort status', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&sortColumn=status' },
        { label: 'page 1 x50, sort configType desc', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&sortColumn=configType&sortOrder=1' },
        { label: 'page 1 x1000, sort updated', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=1000&sortColumn=updated' },
        { label: 'name contains "phones"', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&name=phones' },
        { label: 'name contains (no match)', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&name=zzzz' },
        { label: 'status=6', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&status=6' },
        { label: 'configType=Template', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50&configType=Template' },
        { label: 'spaceId, sort updated desc', url: `/api/v1/agent/all?pageIndex=1&recordsPerPage=50&spaceId=${space}&sortColumn=updated&sortOrder=1` },
        { label: 'name+status+configType, lastActivity desc', url: '/api/v1/agent/all?pageIndex=2&recordsPerPage=20&name=books&status=10&configType=1&sortColumn=lastActivity&sortOrder=1' },
        { label: 'member (3 of 10 spaces), sort name', url: '/api/v1/agent/all?pageIndex=1&recordsPerPage=50', member: true },
        { label: 'member, status=10, sort lastActivity', url: '/api/v1/agent/all?pageIndex=5&recordsPerPage=50&status=10&sortColumn=lastActivity', member: true },
        { label: 'search "phones" (max 50)', url: '/api/v1/agent/search?query=phones' },
        { label: 'unpaged plain array (all agents)', url: '/api/v1/agent/all', iterations: 5 },
      ];
      for (const s of scenarios) {
        const headers = { authorization: `ApiKey ${s.member ? memberKey : seeded.apiKey}` };
        const n = s.iterations ?? iterations;
        let last: unknown;
        for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: s.url, headers });
        const times: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = performance.now();
          const res = await app.inject({ method: 'GET', url: s.url, headers });
          times.push(performance.now() - t0);
          if (res.statusCode !== 200) throw new Error(`${s.label}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
          if (i === n - 1) last = res.json();
        }
        times.sort((a, b) => a - b);
        const body = last as { agents?: unknown[]; totalRecordCount?: number } | unknown[];
        const rows = Array.isArray(body) ? body.length : (body.agents?.length ?? 0);
        const result: BenchCase = { label: s.label, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), iterations: n, rows };
        if (!Array.isArray(body) && body.totalRecordCount !== undefined) result.totalRecordCount = body.totalRecordCount;
        cases.push(result);
        log(`${s.label.padEnd(46)} p50 ${String(result.p50Ms).padStart(7)} ms  p95 ${String(result.p95Ms).padStart(7)} ms  rows ${rows}${result.totalRecordCount !== undefined ? ` of ${result.totalRecordCount}` : ''}`);
      }
    } finally {
      await app.close();
    }
    return { agents: total, seedSeconds, cases };
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
