// More than one machine: two API processes and two worker processes, each with its
// own empty STORAGE_DIR and temporary folder (no two share a disk), against one PostgreSQL, one Redis
// and the S3-compatible server. Runs are started through both APIs against the fixture site; every
// Run must reach Success and every file must download byte-exact through either API.
//
// Three scenarios in one invocation:
// - local: the same processes on the local driver, which needs one shared STORAGE_DIR (one machine);
// - s3: the processes on separate folders, files in the object store;
// - s3 drill: as s3, and mid-way one worker is SIGKILLed (a new one starts, as a supervisor would
//   restart it) and one API is restarted; starts that meet the restarting API go to the other one.
// Local against s3 gives the added cost per Run of the s3 driver (CPU of every process, and of the
// store itself), side by side.
//
//   npm run bench -- scale            BENCH_SCALE_RUNS=200 npm run bench -- scale
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPrisma } from '../src/db/prisma.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';

import { catalogDefinition, startFixtureSite } from '../test/helpers/fixture-site.js';
import { ensureS3Server, testS3Env, testS3Options } from '../test/helpers/s3-server.js';
import { createBenchEnvironment, fmt, note, print, processCpuMs, table } from './helpers.js';
import { storeCpuMs, type Host, startApiHost, startWorkerHost, verifyFiles } from './scale-hosts.js';

const SUCCESS = 10;
const TERMINAL = new Set([6, 8, 9, 10, 11]);

interface Outcome {
  scenario: string;
  runs: number;
  success: number;
  statuses: Record<string, number>;
  seconds: number;
  runsPerSecond: number;
  /** CPU per Run of the API processes, of the worker processes with their run processes, and of the store. */
  apiCpuMs: number;
  workerCpuMs: number;
  storeCpuMs: number;
  filesChecked: number;
  fileProblems: string[];
  /** Files of Runs found on any host's local disk (s3 scenarios must have none). */
  localRunFiles: number;
  startRetries: number;
  /** Runs that ran again after their worker was lost (retryCount > 0): proof the kill met work. */
  retried: number;
  events: string[];
}

export async function benchScale(): Promise<void> {
  const runs = Number(process.env.BENCH_SCALE_RUNS ?? 200);
  ensureS3Server();
  const bench = await createBenchEnvironment({
    // A lost worker's Runs are found within seconds and run again after a one-second wait.
    RUN_STALE_SECONDS: '6',
    RUN_WAIT_ON_FAILURE_SECONDS: '1',
  });
  const site = await startFixtureSite();
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  const hostsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-scale-'));
  const outcomes: Outcome[] = [];
  try {
    const org = await bootstrapOrganization(db, {
      org: 'Scale',
      email: 'scale@example.com',
      password: 'correct horse battery',
      credits: 10_000_000,
      apiKeyDays: 1,
      now: new Date(),
    });
    const definition = {
      ...catalogDefinition(site.url, { ms: 20 }),
      politeness: { respectRobotsTxt: false, perHostConcurrency: 100 },
    };
    const s3 = testS3Env(testS3Options());
    const scenarios: Array<{ name: string; env: Record<string, string>; shared: boolean; drill: boolean }> = [
      { name: 'local (one shared folder)', env: { STORAGE_DRIVER: 'local' }, shared: true, drill: false },
      { name: 's3 (separate folders)', env: s3, shared: false, drill: false },
      { name: 's3 drill (worker SIGKILL, API restart)', env: s3, shared: false, drill: true },
    ];
    for (const [i, s] of scenarios.entries()) {
      const dir = path.join(hostsRoot, `scenario-${i}`);
      const outcome = await scenario(s.name, { ...bench.env, ...s.env }, dir, s.shared, s.drill, runs, org, definition);
      outcome.retried = await db.run.count({ where: { id: { in: outcome.runIds }, retryCount: { gt: 0 } } });
      outcomes.push(outcome);
    }
  } finally {
    await db.$disconnect();
    await site.close();
    fs.rmSync(hostsRoot, { recursive: true, force: true });
    await bench.dispose();
  }
  print(
    table(
      `Two APIs and two workers sharing PostgreSQL, Redis and the object store: ${runs} Runs of a 10-page catalog each`,
      [
        'scenario',
        'Success',
        'Runs/s',
        'API CPU/Run (ms)',
        'workers CPU/Run (ms)',
        'store CPU/Run (ms)',
        'files byte-exact',
        'Run files on local disks',
      ],
      outcomes.map((o) => [
        o.scenario,
        `${o.success}/${o.runs}`,
        fmt(o.runsPerSecond, 2),
        fmt(o.apiCpuMs),
        fmt(o.workerCpuMs),
        o.scenario.startsWith('local') ? '-' : fmt(o.storeCpuMs),
        `${o.filesChecked - o.fileProblems.length}/${o.filesChecked}`,
        o.localRunFiles,
      ]),
    ),
  );
  const [local, s3] = outcomes;
  if (local && s3)
    print(
      `Added by the s3 driver per Run: ${fmt(s3.apiCpuMs + s3.workerCpuMs - local.apiCpuMs - local.workerCpuMs)} ms of service CPU ` +
        `(APIs and workers) and ${fmt(s3.storeCpuMs)} ms of the store's; Runs/s ${fmt(s3.runsPerSecond / local.runsPerSecond, 2)}x of local.\n`,
    );
  for (const o of outcomes) {
    if (o.events.length)
      print(
        `${o.scenario}: ${o.events.join('; ')}; ${o.retried} Runs ran again after the lost worker; ` +
          `start requests retried on the other API: ${o.startRetries}\n`,
      );
    if (o.success !== o.runs) print(`${o.scenario}: statuses ${JSON.stringify(o.statuses)}\n`);
    for (const p of o.fileProblems.slice(0, 5)) print(`${o.scenario}: ${p}\n`);
  }
}

async function scenario(
  name: string,
  env: Record<string, string>,
  dir: string,
  shared: boolean,
  drill: boolean,
  runs: number,
  org: { apiKey: string; spaceId: number },
  definition: unknown,
): Promise<Outcome & { runIds: number[] }> {
  note(`scale: ${name}: starting 2 APIs and 2 workers`);
  const home = (host: string) => path.join(dir, shared ? 'shared' : host);
  const apis: Host[] = [await startApiHost(env, home('api1')), await startApiHost(env, home('api2'))];
  const workers: Host[] = [await startWorkerHost(env, home('w1')), await startWorkerHost(env, home('w2'))];
  const retired: Host[] = [];
  const events: string[] = [];
  const headers = { authorization: `ApiKey ${org.apiKey}`, 'content-type': 'application/json' };
  try {
    const call = async (api: Host, method: string, url: string, body?: unknown) =>
      fetch(`${api.url}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    note(`scale: ${name}: creating ${runs} agents`);
    const agentIds: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const res = await call(apis[i % 2], 'POST', '/api/v1/agent', {
        name: `Scale ${i + 1}`,
        spaceId: org.spaceId,
        definition,
      });
      if (res.status !== 201) throw new Error(`creating an agent: HTTP ${res.status} ${await res.text()}`);
      agentIds.push(((await res.json()) as { id: number }).id);
    }
    const cpu0 = cpuOf(apis, workers, retired);
    let startRetries = 0;
    // A client of two APIs behind no balancer: it tries the other one when a connection fails.
    const start = async (i: number): Promise<{ agentId: number; runId: number }> => {
      const agentId = agentIds[i];
      for (let attempt = 0; ; attempt += 1) {
        const api = apis[(i + attempt) % 2];
        try {
          const res = await call(api, 'POST', `/api/v1/agent/${agentId}/start`, { isWaitOnFailure: true });
          if (res.status === 202) return { agentId, runId: ((await res.json()) as { id: number }).id };
          if (attempt > 20) throw new Error(`start: HTTP ${res.status} ${await res.text()}`);
        } catch (err) {
          if (attempt > 20) throw err;
        }
        startRetries += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    note(`scale: ${name}: starting ${runs} Runs through both APIs`);
    const t0 = Date.now();
    const started: Array<Promise<{ agentId: number; runId: number }>> = [];
    const disruptions: Array<Promise<void>> = [];
    for (let i = 0; i < runs; i += 1) {
      started.push(start(i));
      // The disruptions run beside the starts, so starts keep coming while a host is down.
      if (drill && i === Math.floor(runs * 0.3)) {
        await waitExecuting(apis[1], headers, await Promise.all(started));
        const killed = workers[0];
        killed.kill('SIGKILL');
        retired.push(killed);
        events.push(`worker 1 SIGKILLed after ${fmt((Date.now() - t0) / 1000)} s with Runs executing`);
        disruptions.push(startWorkerHost(env, home('w1-new')).then((h) => void (workers[0] = h)));
      }
      if (drill && i === Math.floor(runs * 0.6)) {
        const old = apis[0];
        const downAt = Date.now();
        disruptions.push(
          (async () => {
            await old.stop();
            retired.push(old);
            apis[0] = await startApiHost(env, home('api1'), old.port);
            events.push(`API 1 restarted (down ${fmt((Date.now() - downAt) / 1000)} s)`);
          })(),
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(disruptions);
    const ids = await Promise.all(started);
    const statusOf = async (api: Host, id: { agentId: number; runId: number }) => {
      const res = await call(api, 'GET', `/api/v1/agent/${id.agentId}/run/${id.runId}/status`);
      return ((await res.json()) as { status: number }).status;
    };
    const statuses = new Map<number, number>();
    for (const deadline = Date.now() + 600_000; Date.now() < deadline;) {
      for (const id of ids)
        if (!TERMINAL.has(statuses.get(id.runId) ?? 0)) statuses.set(id.runId, await statusOf(apis[id.runId % 2], id));
      if ([...statuses.values()].every((s) => TERMINAL.has(s))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - t0) / 1000;
    const cpu1 = cpuOf(apis, workers, retired);
    const counts: Record<string, number> = {};
    for (const s of statuses.values()) counts[s] = (counts[s] ?? 0) + 1;
    note(`scale: ${name}: ${counts[SUCCESS] ?? 0}/${runs} Success in ${fmt(seconds)} s; downloading every file`);
    const files = await verifyFiles(apis, headers, ids);
    const localRunFiles = shared ? 0 : countRunFiles(dir);
    const per = (ms: number) => ms / runs;
    return {
      scenario: name,
      runs,
      success: counts[SUCCESS] ?? 0,
      statuses: counts,
      seconds,
      runsPerSecond: runs / seconds,
      apiCpuMs: per(cpu1.api - cpu0.api),
      workerCpuMs: per(cpu1.workers - cpu0.workers),
      storeCpuMs: per(cpu1.store - cpu0.store),
      filesChecked: files.checked,
      fileProblems: files.problems,
      localRunFiles,
      startRetries,
      retried: 0,
      events,
      runIds: ids.map((i) => i.runId),
    };
  } finally {
    for (const h of [...apis, ...workers]) await h.stop();
  }
}

/** Waits until some of the started Runs execute, so that a kill meets work in progress. */
async function waitExecuting(
  api: Host,
  headers: Record<string, string>,
  ids: Array<{ agentId: number; runId: number }>,
) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    for (const id of ids.slice(-10)) {
      const res = await fetch(`${api.url}/api/v1/agent/${id.agentId}/run/${id.runId}/status`, { headers });
      if ([1, 2, 3].includes(((await res.json()) as { status: number }).status)) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU so far of every process that served the scenario, killed or restarted ones included (their last reading). */
function cpuOf(apis: Host[], workers: Host[], retired: Host[]) {
  const sum = (hosts: Host[]) => hosts.reduce((n, h) => n + h.cpuMs(), 0);
  const all = [...apis, ...workers, ...retired];
  return {
    api: sum(all.filter((h) => h.kind === 'api')),
    workers: sum(all.filter((h) => h.kind === 'worker')),
    store: storeCpuMs(),
    self: processCpuMs('self').own,
  };
}

function countRunFiles(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.split(path.sep).includes('runs') && fs.statSync(path.join(dir, f)).isFile()).length;
}
