// Shared pieces of the benchmark suites: a throw-away migrated database, an isolated Redis prefix and
// storage folder, worker processes, timing statistics, tables, and cleanup that also runs on Ctrl-C.
// Everything here targets 127.0.0.1 only.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.js';
import type { Db } from '../src/db/prisma.js';
import type { AgentDefinition } from '../src/engine/index.js';
import { migrate } from '../src/db/migrate.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { clearRedisPrefix } from '../test/helpers/app.js';
import { startNode, waitFor } from '../test/helpers/process.js';

export const ADMIN_URL =
  process.env.BENCH_DATABASE_ADMIN_URL ??
  process.env.TEST_DATABASE_ADMIN_URL ??
  'postgresql://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Progress goes to stderr so stdout holds only the result tables. */
export const note = (msg: string) => process.stderr.write(`  ${msg}\n`);

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers how to undo itself; undone in reverse order, also on SIGINT.

type Cleanup = { label: string; fn: () => Promise<void> | void };
const cleanups: Cleanup[] = [];

export function onCleanup(label: string, fn: () => Promise<void> | void): () => Promise<void> {
  const entry = { label, fn };
  cleanups.push(entry);
  // Running it early removes it from the list.
  return async () => {
    const i = cleanups.indexOf(entry);
    if (i < 0) return;
    cleanups.splice(i, 1);
    await entry.fn();
  };
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const entry = cleanups.pop()!;
    try {
      await entry.fn();
    } catch (err) {
      process.stderr.write(`cleanup of ${entry.label} failed: ${(err as Error).message}\n`);
    }
  }
}

let signalsInstalled = false;
/** On Ctrl-C / SIGTERM: undo what was created (databases, Redis keys, processes, folders), then exit. */
export function installSignalCleanup(): void {
  if (signalsInstalled) return;
  signalsInstalled = true;
  let interrupted = false;
  const handler = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\n${signal}: cleaning up...\n`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

// ---------------------------------------------------------------------------------------------
// Environment: a fresh migrated database, Redis prefix and storage folder.

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface BenchEnvironment {
  config: Config;
  /** The environment the config was loaded from; worker processes get the same. */
  env: Record<string, string>;
  dbName: string;
  /** Drops the database, deletes the Redis keys of the prefix and the storage folder. */
  dispose(): Promise<void>;
}

/**
 * A database created and migrated for this bench (`cxs_bench_<hex>`, by the project's own migrate
 * command, not the test template, so a concurrent test run's teardown cannot pull it away), a Redis
 * key prefix of its own, and a temporary storage folder. All undone by `dispose()` or on Ctrl-C.
 */
export async function createBenchEnvironment(extraEnv: Record<string, string> = {}): Promise<BenchEnvironment> {
  const tag = crypto.randomBytes(4).toString('hex');
  const dbName = `cxs_bench_${tag}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-bench-'));
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    REDIS_URL,
    REDIS_PREFIX: `cxs-bench-${tag}`,
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
    STORAGE_DIR: storageDir,
    // The fixture sites live on 127.0.0.1.
    ENGINE_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    // Measure the Runs, not the rate limiter.
    RATE_LIMIT_MAX: '1000000',
    // Several servers and workers side by side: no metrics listener unless a bench gives it a port.
    METRICS_PORT: '0',
    ...extraEnv,
  };
  // RUN_WORKER_CONCURRENCY and friends come from the caller's environment when set, else the defaults.
  const config = loadConfig({ ...process.env, ...env });

  let dropped = false;
  const dispose = onCleanup(`bench environment ${dbName}`, async () => {
    if (!dropped) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    dropped = true;
    await clearRedisPrefix(REDIS_URL, env.REDIS_PREFIX);
    fs.rmSync(storageDir, { recursive: true, force: true });
  });
  await admin(`CREATE DATABASE ${dbName}`);
  try {
    await migrate(env.DATABASE_URL);
  } catch (err) {
    await dispose();
    throw err;
  }
  return { config, env, dbName, dispose };
}

// ---------------------------------------------------------------------------------------------
// Worker processes (src/worker.ts), started the way the tests and operators start them.

export interface WorkerProcess {
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `tsx src/worker.ts` as the tests do, or, with `distDir` (a `tsc -p tsconfig.build.json`
 * output such as `dist`), the compiled `node <distDir>/worker.js` as production does.
 */
export async function startWorkerProcess(env: Record<string, string>, distDir?: string): Promise<WorkerProcess> {
  // `info` so that the "worker started" line shows; the per-Run children write nothing at that level.
  const workerEnv = { ...env, LOG_LEVEL: 'info' };
  // BENCH_NODE_ARGS: Node's own options for the worker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (a
  // profile of each of its threads, written when it stops: NODE_OPTIONS refuses --cpu-prof).
  const nodeOptions = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const w = distDir
    ? startCompiled(path.resolve(distDir, 'worker.js'), workerEnv, nodeOptions)
    : startNode(['src/worker.ts'], workerEnv, nodeOptions);
  const stop = async () => {
    // BENCH_WORKER_LOG=<dir>: the worker's log, to see what it did in a round (warnings, per-Run lines).
    const logDir = process.env.BENCH_WORKER_LOG;
    if (logDir) fs.writeFileSync(path.join(logDir, `worker.${w.child.pid}.log`), w.output());
    if (w.child.exitCode !== null || w.child.signalCode !== null) return;
    w.child.kill('SIGTERM');
    const timer = setTimeout(() => w.child.kill('SIGKILL'), 15_000);
    await w.exited;
    clearTimeout(timer);
  };
  const unregister = onCleanup(`worker ${w.child.pid}`, stop);
  try {
    await waitFor(
      async () => {
        if (w.child.exitCode !== null) throw new Error(`worker exited with ${w.child.exitCode}: ${w.output()}`);
        return w.output().includes('worker started');
      },
      60_000,
      50,
    );
  } catch (err) {
    await unregister();
    throw new Error(`worker did not start: ${(err as Error).message}\n${w.output().slice(-2000)}`);
  }
  return { pid: w.child.pid!, output: w.output, stop: unregister };
}

function startCompiled(
  entry: string,
  env: Record<string, string>,
  nodeOptions: readonly string[],
): ReturnType<typeof startNode> {
  if (!fs.existsSync(entry)) throw new Error(`${entry} does not exist: build first (npx tsc -p tsconfig.build.json)`);
  const child = spawn(process.execPath, [...nodeOptions, entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

// ---------------------------------------------------------------------------------------------
// Statistics and output.

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const median = (values: number[]) => percentile(values, 50);

export function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A Markdown table (readable in a terminal and pasteable into docs/benchmarks.md). */
export function table(title: string, headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map(
    (_, i) => cells.length > 0 && cells.every((r) => /^[-+]?[\d,.]+( ?[a-z%/x]+)?$|^-$/i.test(r[i] ?? '')),
  );
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [`\n### ${title}\n`, line(headers), sep, ...cells.map(line), ''].join('\n');
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** CPU count, model and load, so a reader can tell whether the machine was busy. */
export function machineSummary(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `${cpus.length} CPU(s) ${cpus[0]?.model ?? ''}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${load}`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux

/**
 * CPU time of a process (Linux /proc): its own, and that of its children it has already reaped
 * (the per-Run children of a worker). NaN where /proc is not available.
 */
export function processCpuMs(pid: number | 'self'): { own: number; user: number; system: number; children: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = 1000 / CLOCK_TICKS_PER_SECOND;
    // utime, stime, cutime, cstime are fields 14-17 of the stat line: 11-14 counted after the name.
    const user = Number(f[11]) * tick;
    const system = Number(f[12]) * tick;
    return { own: user + system, user, system, children: (Number(f[13]) + Number(f[14])) * tick };
  } catch {
    return { own: NaN, user: NaN, system: NaN, children: NaN };
  }
}

/**
 * CPU time of a process and of its children, alive or reaped: a worker's per-Run children may be
 * kept warm between Runs, so they are not all reaped when the figures are read.
 */
export function processTreeCpuMs(pid: number): { own: number; children: number } {
  const root = processCpuMs(pid);
  let live = 0;
  try {
    // ppid is field 4 (index 1 after the name); children's own and reaped children's CPU both count.
    for (const { fields: f } of processStats())
      if (Number(f[1]) === pid)
        live += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * (1000 / CLOCK_TICKS_PER_SECOND);
  } catch {
    return { own: root.own, children: NaN };
  }
  return { own: root.own, children: root.children + live };
}

/** Every process of the machine as /proc/<pid>/stat gives it: its name, and its fields after the name. */
function* processStats(): Generator<{ pid: number; name: string; fields: string[] }> {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    yield {
      pid: Number(entry),
      name: stat.slice(stat.indexOf('(') + 1, close),
      fields: stat.slice(close + 2).split(' '),
    };
  }
}

/** CPU (ms) of each PostgreSQL and Redis server process of the machine (backends included), from /proc. */
export function serviceCpuSnapshot(): Map<number, { name: string; ms: number }> {
  const cpu = new Map<number, { name: string; ms: number }>();
  for (const { pid, name, fields: f } of processStats())
    if (name === 'postgres' || name === 'redis-server')
      cpu.set(pid, { name, ms: (Number(f[11]) + Number(f[12])) * (1000 / CLOCK_TICKS_PER_SECOND) });
  return cpu;
}

/**
 * PostgreSQL and Redis CPU (ms) since `before`: the share of a burst that the per-process figures
 * leave out. Processes that ended meanwhile are left out (their CPU went with them); new ones count whole.
 */
export function serviceCpuSince(before: ReturnType<typeof serviceCpuSnapshot>): ServiceCpu {
  const cpu = { postgres: 0, redis: 0 };
  for (const [pid, { name, ms }] of serviceCpuSnapshot())
    cpu[name === 'postgres' ? 'postgres' : 'redis'] += ms - (before.get(pid)?.ms ?? 0);
  return cpu;
}

/** PostgreSQL and Redis CPU, ms (in total or per Run). */
export interface ServiceCpu {
  postgres: number;
  redis: number;
}

/** What a burst of Runs gave, ours or the floor's (bench/runs.ts, bench/runs-floor.ts). */
export interface BurstFigures {
  workers: number;
  /** Which round of `BENCH_ROUNDS` (ours and the floor alternate, round by round). */
  round: number;
  runs: number;
  completed: number;
  /** First start sent -> last Run terminal. */
  seconds: number;
  runsPerSecond: number;
  /** Start sent -> Run terminal. */
  latencyP50Ms: number;
  latencyP95Ms: number;
  /** PostgreSQL and Redis CPU per completed Run (serviceCpuSince around the burst). */
  serviceCpuMsPerRun: ServiceCpu;
  /** PostgreSQL backends' CPU per completed Run by the client they serve (bench/postgres-cpu.ts). */
  postgresByClientMsPerRun: Record<string, number>;
}

/** The fixture site's catalog list (10 products a page: title, price, link), as the engine and runs benches read it. */
export function catalogList(siteUrl: string): Pick<AgentDefinition, 'startUrl' | 'list'> {
  return {
    startUrl: `${siteUrl}/catalog?page=1`,
    list: {
      selector: 'div.product',
      fields: [
        { name: 'title', selector: 'a.title' },
        { name: 'price', selector: 'span.price', transform: 'number' },
        { name: 'url', selector: 'a.title', attribute: 'href', transform: 'absoluteUrl' },
      ],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// An organization and its Agents, as the Run benches make them.

/** A bootstrapped organization with credits no bench uses up, and the headers of its API key. */
export async function benchOrganization(db: Db) {
  const org = await bootstrapOrganization(db, {
    org: 'Bench',
    email: `bench-${Date.now()}@example.com`,
    password: 'correct horse battery',
    credits: 1_000_000,
    apiKeyDays: 1,
    now: new Date(),
  });
  const headers = { authorization: `ApiKey ${org.apiKey}`, 'content-type': 'application/json' };
  return { ...org, headers };
}

/** `count` Agents of `definition` in the organization's Space, created through the API: their ids. */
export async function createBenchAgents(
  app: FastifyInstance,
  org: { spaceId: number; headers: Record<string, string> },
  definition: AgentDefinition,
  count: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/agent',
      headers: org.headers,
      payload: { name: `Bench ${i + 1}`, spaceId: org.spaceId, definition },
    });
    if (res.statusCode !== 201) throw new Error(`creating an agent: HTTP ${res.statusCode} ${res.body}`);
    ids.push(res.json().id);
  }
  return ids;
}
