// Memory and database load of the Run lifecycle.
//
// 1. Peak memory: one Run of N records (default 10,000 and 100,000) through the real API and a real
//    worker; peak resident memory (VmHWM, /proc) of the worker process and of its run process. The
//    site serves pages of 1,000 products each.
// 2. Database statements per second per running Run: one Run waiting on a page that never answers,
//    the worker's PostgreSQL traffic counted through a proxy (Execute and Query messages) over a
//    window. With BENCH_BASELINE_DIR (a checkout of an earlier commit with node_modules linked) the
//    same is measured for that commit's worker, side by side.
//
//   npm run bench -- memory
//   BENCH_MEMORY_RECORDS=100000 BENCH_CONTROL_SECONDS=20 BENCH_BASELINE_DIR=/tmp/cxs-base npm run bench -- memory
//   BENCH_DIST=dist BENCH_CONTROL_SECONDS=0 npm run bench -- memory      (compiled worker; no control part)
//   BENCH_WORKER_NODE_OPTIONS='--max-semi-space-size=2' ...               (Node options of the worker only)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { TERMINAL_STATUSES } from '../src/services/runs/status-machine.js';
import { waitFor } from '../test/helpers/process.js';
import { startStatementCounter } from '../test/helpers/statement-counter.js';
import {
  createBenchEnvironment,
  fmt,
  installSignalCleanup,
  machineSummary,
  note,
  onCleanup,
  print,
  runCleanups,
  sleep,
  table,
} from './helpers.js';

const PER_PAGE = 1000;

/** Pages of PER_PAGE products with a next link; /hang never answers. */
async function startSite(pages: number) {
  const product = (n: number) =>
    `<div class="p"><a class="t" href="/item/${n}">Product ${n} – Grüße</a><span class="price">${(n % 997) + 0.99}</span></div>`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname === '/hang') return;
    const page = Number(url.searchParams.get('page') ?? '1');
    const first = (page - 1) * PER_PAGE + 1;
    const body: string[] = ['<html><body>'];
    for (let i = 0; i < PER_PAGE; i++) body.push(product(first + i));
    if (page < pages) body.push(`<a class="next" href="/list?page=${page + 1}">next</a>`);
    body.push('</body></html>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body.join('\n'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const close = onCleanup('memory site', () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url, close };
}

/** A proxy in front of PostgreSQL that counts the statements a client sends (test/helpers/statement-counter.ts). */
async function countingProxy(target: URL) {
  const proxy = await startStatementCounter(target.toString());
  onCleanup('counting proxy', () => proxy.close());
  return proxy;
}

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Starts src/worker.ts from `dir` (this checkout, or a baseline one) under tsx, or with BENCH_DIST (a
 * `tsc -p tsconfig.build.json` output) this checkout's compiled worker as production runs it.
 */
async function startWorker(dir: string, env: Record<string, string>) {
  const dist =
    process.env.BENCH_DIST && dir === process.cwd() ? path.resolve(process.env.BENCH_DIST, 'worker.js') : null;
  const child = spawn(process.execPath, dist ? [dist] : ['--import', 'tsx', 'src/worker.ts'], {
    cwd: dir,
    env: {
      ...process.env,
      ...env,
      LOG_LEVEL: 'info',
      ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const stop = onCleanup(`worker ${child.pid}`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
  });
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(out);
      return out.includes('worker started');
    },
    60_000,
    50,
  );
  return { pid: child.pid!, stop, output: () => out };
}

export async function benchMemory() {
  installSignalCleanup();
  const counts = (process.env.BENCH_MEMORY_RECORDS ?? '10000,100000').split(',').map(Number);
  const controlSeconds = Number(process.env.BENCH_CONTROL_SECONDS ?? 20);
  const baselineDir = process.env.BENCH_BASELINE_DIR;
  const maxPages = Math.ceil(Math.max(...counts) / PER_PAGE);
  const bench = await createBenchEnvironment({
    RUN_WORKER_CONCURRENCY: '1',
    RUN_WARM_PROCESSES: '0',
    RUN_TIMEOUT_SECONDS: '3600',
  });
  const site = await startSite(maxPages);
  const app = await buildApp(bench.config, { logger: false });
  await app.ready();
  onCleanup('app', () => app.close());
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  onCleanup('db', () => db.$disconnect());
  const org = await bootstrapOrganization(db, {
    org: 'Bench',
    email: 'bench@example.com',
    password: 'correct horse battery',
    credits: 1_000_000,
    apiKeyDays: 1,
    now: new Date(),
  });
  const headers = { authorization: `ApiKey ${org.apiKey}`, 'content-type': 'application/json' };
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const agent = async (name: string, definition: object) =>
    (await inject('POST', '/api/v1/agent', { name, spaceId: org.spaceId, definition })).json().id as number;
  const untilTerminal = async (agentId: number, runId: number, onSample: () => void) => {
    for (;;) {
      onSample();
      const run = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/status`)).json();
      if ((TERMINAL_STATUSES as readonly number[]).includes(run.status)) return run;
      await sleep(200);
    }
  };

  // 1. Peak memory for N records.
  const memory: Array<Array<string | number>> = [];
  for (const records of counts) {
    const pages = Math.ceil(records / PER_PAGE);
    const worker = await startWorker(process.cwd(), bench.env);
    const idle = status(worker.pid, 'VmHWM');
    const id = await agent(`Memory ${records}`, {
      startUrl: `${site.url}/list?page=1`,
      list: {
        selector: 'div.p',
        fields: [
          { name: 'title', selector: 'a.t' },
          { name: 'price', selector: 'span.price' },
          { name: 'url', selector: 'a.t', attribute: 'href', transform: 'absoluteUrl' },
        ],
      },
      next: { selector: 'a.next', maxPages: pages },
      export: { format: 'csv' },
    });
    note(`memory: one Run of ${records} records...`);
    const started = Date.now();
    const runId = (await inject('POST', `/api/v1/agent/${id}/start`, {})).json().id;
    let childPeak = 0;
    let childPid = 0;
    const run = await untilTerminal(id, runId, () => {
      for (const pid of childPids(worker.pid)) {
        childPid = pid;
        childPeak = Math.max(childPeak, status(pid, 'VmHWM'));
      }
    });
    const seconds = (Date.now() - started) / 1000;
    if (childPid) childPeak = Math.max(childPeak, status(childPid, 'VmHWM'));
    memory.push([
      records,
      run.status,
      run.recordsExported,
      fmt(seconds),
      fmt(idle),
      fmt(status(worker.pid, 'VmHWM')),
      fmt(childPeak),
    ]);
    await worker.stop();
  }
  print(
    table(
      `Memory: one Run, peak RSS (MB) of the worker and its run process (${machineSummary()})`,
      ['records', 'status', 'exported', 'seconds', 'workerStartedMB', 'workerPeakMB', 'runProcessPeakMB'],
      memory,
    ),
  );

  // 2. Statements per second per running Run.
  const control: Array<Array<string | number>> = [];
  const proxy = await countingProxy(new URL(bench.config.databaseUrl));
  const candidates: Array<[string, string]> = [['this commit', process.cwd()]];
  if (baselineDir) candidates.unshift([`baseline (${path.basename(baselineDir)})`, baselineDir]);
  for (const [label, dir] of controlSeconds > 0 ? candidates : []) {
    const worker = await startWorker(dir, { ...bench.env, DATABASE_URL: proxy.url });
    const id = await agent(`Control ${label}`, {
      startUrl: `${site.url}/hang`,
      list: { selector: 'div', fields: [{ name: 'x' }] },
    });
    const runId = (await inject('POST', `/api/v1/agent/${id}/start`, {})).json().id;
    await waitFor(
      async () => (await inject('GET', `/api/v1/agent/${id}/run/${runId}/status`)).json().status === 1,
      60_000,
      100,
    );
    await sleep(2000);
    note(`control: ${label}: counting the worker's statements for ${controlSeconds} s...`);
    const before = proxy.count();
    await sleep(controlSeconds * 1000);
    const perSecond = (proxy.count() - before) / controlSeconds;
    await inject('POST', `/api/v1/agent/${id}/run/${runId}/kill`);
    await inject('POST', `/api/v1/agent/${id}/run/${runId}/kill`);
    await untilTerminal(id, runId, () => {});
    await worker.stop();
    control.push([label, controlSeconds, fmt(perSecond, 2)]);
  }
  print(
    table(
      'Database statements per second from the worker, one running Run (waiting on a page)',
      ['worker', 'windowSeconds', 'statementsPerSecond'],
      control,
    ),
  );
  await runCleanups();
  return { memory, control };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchMemory().then(
    () => process.exit(0),
    async (err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      await runCleanups();
      process.exit(1);
    },
  );
}
