// Benchmark runner: `npm run bench` runs every suite; `npm run bench -- runs` (or engine, agents)
// runs the ones named. Tables go to stdout, progress to stderr. See docs/benchmarks.md.
import { execFileSync } from 'node:child_process';
import { installSignalCleanup, machineSummary, print, runCleanups, table } from './helpers.js';

type Suite = () => Promise<unknown>;

const SUITES: Record<string, { about: string; run: Suite }> = {
  runs: {
    about: 'small Runs per second, start request to terminal status, with 1 and 2 worker processes',
    run: async () => (await import('./runs.js')).benchRuns(),
  },
  settle: {
    about: "CPU per Run of a Run's end and its settlement, step by step, one Run at a time and 8 at once",
    run: async () => (await import('./settle.js')).benchSettle(),
  },
  engine: {
    about: 'pages per second of runExtraction against a bare undici + cheerio loop, concurrency 1 and 4',
    run: async () => (await import('./engine.js')).benchEngine(),
  },
  memory: {
    about:
      'peak RSS of worker and run process for one Run of 10,000 and 100,000 records; DB statements/s per running Run',
    run: async () => (await import('./memory.js')).benchMemory(),
  },
  agents: {
    about: 'Agent catalogue list/search latency over 100,000 seeded Agents (bench/agents.ts)',
    run: runAgents,
  },
  schedules: {
    about:
      '10,000 Schedules due in the same minute with 2 worker processes (duplicates, misses, fire lag); tick cost with 100,000 idle',
    run: async () => (await import('./schedules.js')).benchSchedules(),
  },
  billing: {
    about: 'GET /billing/agents over 10,000 Agents and 1,000,000 usage records; debits per second on one organization',
    run: async () => (await import('./billing.js')).benchBilling(),
  },
  ratelimit: {
    about: 'GET /api/v1/agent/{id} throughput and p99 with the rate limiter on (never refusing) and off',
    run: async () => (await import('./ratelimit.js')).benchRateLimit(),
  },
  analytics: {
    about:
      'runs and records summaries over 1,000,000 Runs in 1,000 Agents: 30-day and 1-day ranges, with and without an Agent filter',
    run: async () => (await import('./analytics.js')).benchAnalytics(),
  },
  builder: {
    about: 'Agent Builder: field values reproduced per fixture page, and draft inference time against parsing alone',
    run: async () => (await import('./builder.js')).benchBuilder(),
  },
  'builder-real': {
    about:
      'Agent Builder end to end over the HTTP API on real saved pages (bench/builder-real): field accuracy, record recall, time to ready',
    run: async () => (await import('./builder-real.js')).benchBuilderReal(),
  },
  browser: {
    about:
      'browser renderer: 200 script-built pages at concurrency 4, pages/s and peak RSS of the process tree, against a bare playwright-core loop',
    run: async () => (await import('./browser.js')).benchBrowser(),
  },
  webhooks: {
    about:
      'webhook events delivered per second with 2 worker processes; commit to first attempt p50/p99 (burst and trickle); CPU per Run webhooks on vs off',
    run: async () => (await import('./webhooks.js')).benchWebhooks(),
  },
  scale: {
    about:
      'two APIs and two workers on separate folders sharing PostgreSQL, Redis and S3: 200 Runs, local vs s3 cost per Run, a worker SIGKILL and an API restart',
    run: async () => (await import('./scale.js')).benchScale(),
  },
  console: {
    about:
      'web console screens in headless Chromium over 100,000 Agents: navigation to content on screen (bench/console.ts)',
    run: async () => (await import('./console.js')).benchConsole(),
  },
  changes: {
    about:
      'change tracking: a 10,000-record Run of an Agent remembering 1,000,000 keys, side by side with the same Run without changes (time, RSS)',
    run: async () => (await import('./changes.js')).benchChanges(),
  },
  http: {
    about:
      'compiled service vs a bare single-query Fastify route: req/s, p50/p99, DB work per request (needs npm run build)',
    run: async () => (await import('./http.js')).benchHttp(),
  },
};

/** bench/agents.ts is written separately and may not exist yet: load it by a specifier TypeScript does not follow. */
async function runAgents(): Promise<unknown> {
  const specifier = './agents.js';
  let mod: { benchAgents?: () => Promise<unknown> };
  try {
    mod = await import(specifier);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Only the file itself missing; a missing import inside it is a real failure.
    if (/Cannot find module '[^']*bench[\\/]agents(\.js|\.ts)?'/.test(e.message)) {
      print('\n### Agents\n\nskipped: bench/agents.ts does not exist yet.');
      return undefined;
    }
    throw err;
  }
  if (typeof mod.benchAgents !== 'function') throw new Error('bench/agents.ts does not export benchAgents()');
  const result = await mod.benchAgents();
  // It prints its own lines; when it also returns cases, show them as a table like the other suites.
  const cases = (result as { cases?: Array<Record<string, unknown>> } | undefined)?.cases;
  if (Array.isArray(cases) && cases.length > 0) {
    const keys = Object.keys(cases[0]);
    const extra = Object.entries(result as Record<string, unknown>).filter(
      ([k, v]) => k !== 'cases' && typeof v !== 'object',
    );
    print(
      table(
        `Agents${extra.length ? ` (${extra.map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`,
        keys,
        cases.map((c) => keys.map((k) => String(c[k] ?? ''))),
      ),
    );
  }
  const plans = (result as { plans?: Array<{ label: string; plan: string }> } | undefined)?.plans ?? [];
  for (const p of plans) print(`\n#### EXPLAIN (ANALYZE, BUFFERS): ${p.label}\n\n\`\`\`\n${p.plan}\n\`\`\``);
  return result;
}

function usage(): string {
  return [
    'usage: npm run bench [-- <suite> ...]',
    '',
    ...Object.entries(SUITES).map(([name, s]) => `  ${name.padEnd(8)} ${s.about}`),
    '',
    'No suite: all of them, in this order. Each suite reads its options from BENCH_* environment variables,',
    'listed in the header comment of bench/<suite>.ts and in docs/benchmarks.md.',
  ].join('\n');
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  if (args.some((a) => a === '-h' || a === '--help')) {
    print(usage());
    return 0;
  }
  const unknown = args.filter((a) => !(a in SUITES));
  if (unknown.length > 0) {
    process.stderr.write(`unknown suite: ${unknown.join(', ')}\n\n${usage()}\n`);
    return 2;
  }
  const selected = args.length > 0 ? [...new Set(args)] : Object.keys(SUITES);
  installSignalCleanup();
  print(`# Benchmarks: ${selected.join(', ')}\n\n${new Date().toISOString()}, commit ${commit()}\n${machineSummary()}`);

  const failed: string[] = [];
  for (const name of selected) {
    process.stderr.write(`\n== ${name}: ${SUITES[name].about}\n`);
    const t0 = Date.now();
    try {
      await SUITES[name].run();
    } catch (err) {
      failed.push(name);
      process.stderr.write(`${name} failed: ${(err as Error).stack ?? err}\n`);
      print(`\n### ${name}\n\nfailed: ${(err as Error).message}`);
    } finally {
      await runCleanups();
    }
    process.stderr.write(`== ${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  print(`\nload average at the end: ${machineSummary().replace(/^.*load average /, '')}`);
  if (failed.length > 0) process.stderr.write(`\nfailed suites: ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
