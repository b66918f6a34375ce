// The Run child process alone, for `bench -- runs`: the worker forks src/jobs/run-child.ts (once per
// slot, kept warm), and its start-up dominates a small Run that gets a fresh one. Forked here as the
// worker forks it and timed; and the same extraction in-process, for comparison.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config.js';
import { engineFailureMessage, runExtraction, type AgentDefinition } from '../src/engine/index.js';
import type { ChildMessage, ChildStartPayload } from '../src/services/runs/run-protocol.js';
import { fmt, median, note, onCleanup, print, processCpuMs, sleep, table } from './helpers.js';

const CHILD_TS = fileURLToPath(new URL('../src/jobs/run-child.ts', import.meta.url));

export interface ChildCost {
  /** `tsx src/jobs/run-child.ts` or `node <dist>/jobs/run-child.js`. */
  mode: string;
  samples: number;
  /** fork() -> the child's first message (it has loaded tsx and the engine and read the payload). */
  readyP50Ms: number;
  /** fork() -> `done` (extraction and export finished). */
  doneP50Ms: number;
  /** fork() -> process exit; NaN when the child stays alive for the next Run. */
  exitP50Ms: number;
  /** CPU time of the child (user + system) up to `done`, from /proc. */
  cpuP50Ms: number;
  /** A second Run on the same (warm) child: start -> done and its CPU; NaN when children are not reused. */
  warmDoneP50Ms: number;
  warmCpuP50Ms: number;
}

interface ChildSample {
  ready: number;
  done: number;
  /** NaN when the child stays alive after its Run (kept warm for the next one). */
  exit: number;
  /** The child's CPU when it reported `done`. */
  cpu: number;
  /** A second Run sent to the same child, when it stayed alive: start -> done, and its CPU. */
  warmDone: number;
  warmCpu: number;
}

/**
 * Forks the Run child as the worker does and times its phases. A child that exits after its Run
 * (one process per Run) gives an exit time; one that stays alive (kept warm by the worker) is
 * given a second Run, which shows what a reused child costs, and is then disconnected.
 */
async function timeChild(
  childPath: string,
  payload: ChildStartPayload,
  second: ChildStartPayload,
): Promise<ChildSample> {
  const t0 = performance.now();
  const execArgv = childPath.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = fork(childPath, [], {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const kill = onCleanup(`run child ${child.pid}`, () => void child.kill('SIGKILL'));
  const sample: ChildSample = { ready: NaN, done: NaN, exit: NaN, cpu: NaN, warmDone: NaN, warmCpu: NaN };
  let error: string | null = null;
  let onDone: () => void = () => {};
  child.on('message', (msg: ChildMessage) => {
    if (Number.isNaN(sample.ready)) sample.ready = performance.now() - t0;
    if (msg.type === 'done') {
      if (msg.result.fatalError) error = msg.result.fatalError.code;
      onDone();
    }
    if (msg.type === 'error') error = msg.message;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const runOnce = (p: ChildStartPayload, timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      onDone = () => {
        clearTimeout(timer);
        resolve(true);
      };
      void exited.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
      child.send({ type: 'start', payload: p });
    });
  try {
    if (!(await runOnce(payload, 30_000)) || error) throw new Error(`run child failed: ${error ?? 'no result'}`);
    sample.done = performance.now() - t0;
    sample.cpu = processCpuMs(child.pid!).own;
    // A one-Run child exits about 50 ms after `done`; a reusable one stays.
    const gone = await Promise.race([exited.then(() => true), sleep(1_000).then(() => false)]);
    if (gone) {
      sample.exit = performance.now() - t0;
    } else {
      const w0 = performance.now();
      if ((await runOnce(second, 30_000)) && !error) {
        sample.warmDone = performance.now() - w0;
        sample.warmCpu = processCpuMs(child.pid!).own - sample.cpu;
      }
      child.disconnect(); // the child exits when its parent goes away
      await Promise.race([exited, sleep(5_000)]);
    }
  } finally {
    await kill();
  }
  return sample;
}

export async function benchRunChild(opts: {
  config: Config;
  definition: AgentDefinition;
  childSamples: number;
  distDir?: string;
}): Promise<{ child: ChildCost[]; inProcessP50Ms: number }> {
  const { config, definition, childSamples, distDir } = opts;
  const child: ChildCost[] = [];
  // The per-Run child process alone, sequentially, without BullMQ or Postgres.
  note(`runs: timing the Run child process (${childSamples} sequential forks)...`);
  const payload = (runId: number): ChildStartPayload => ({
    runId,
    storage: config.storage,
    definition: { ...definition, timeoutSeconds: 60 },
    inputRows: [{}],
    parallelism: 1,
    maxConcurrency: 1,
    parallelExport: 'Combined',
    requestTimeoutMs: config.runs.requestTimeoutMs,
    pageCpuSeconds: config.runs.pageCpuSeconds,
    allowPrivateTargets: true,
    logLevel: 'Info',
    logMode: 'Text',
    secrets: [],
    keepRecords: false,
    stopGraceMs: config.runs.stopGraceSeconds * 1000,
  });
  let nextId = 900_000;
  const children = [{ mode: 'tsx src/jobs/run-child.ts', path: CHILD_TS }];
  if (distDir)
    children.push({ mode: `node ${distDir}/jobs/run-child.js`, path: path.resolve(distDir, 'jobs/run-child.js') });
  for (const c of children) {
    await timeChild(c.path, payload(nextId++), payload(nextId++)); // warm-up
    const samples: ChildSample[] = [];
    for (let i = 0; i < childSamples; i++) samples.push(await timeChild(c.path, payload(nextId++), payload(nextId++)));
    child.push({
      mode: c.mode,
      samples: childSamples,
      readyP50Ms: median(samples.map((s) => s.ready)),
      doneP50Ms: median(samples.map((s) => s.done)),
      exitP50Ms: median(samples.map((s) => s.exit)),
      cpuP50Ms: median(samples.map((s) => s.cpu)),
      warmDoneP50Ms: median(samples.map((s) => s.warmDone).filter((n) => !Number.isNaN(n))),
      warmCpuP50Ms: median(samples.map((s) => s.warmCpu).filter((n) => !Number.isNaN(n))),
    });
  }
  const inProcess: number[] = [];
  for (let i = 0; i < childSamples + 2; i++) {
    const p0 = performance.now();
    const r = await runExtraction({
      definition,
      inputRows: [],
      maxConcurrency: 1,
      allowPrivateTargets: true,
      log: () => {},
    });
    if (r.fatalError) throw new Error(engineFailureMessage(r.fatalError));
    if (i >= 2) inProcess.push(performance.now() - p0);
  }
  const inProcessP50Ms = median(inProcess);
  for (let id = 900_000; id < nextId; id++)
    fs.rmSync(path.join(config.storageDir, 'runs', String(id)), { recursive: true, force: true });

  return { child, inProcessP50Ms };
}

export function printChildTables(child: ChildCost[], childSamples: number, inProcessP50Ms: number): void {
  print(
    table(
      `Runs: the Run child process alone (forked as the worker forks it), same Run, ${childSamples} sequential forks`,
      [
        'child',
        'fork -> first message ms',
        'fork -> done ms',
        'fork -> exit ms',
        'child CPU to done ms',
        'warm child: 2nd Run ms',
        'warm child: 2nd Run CPU ms',
      ],
      child.map((c) => [
        c.mode,
        fmt(c.readyP50Ms, 0),
        fmt(c.doneP50Ms, 0),
        Number.isNaN(c.exitP50Ms) ? 'stays alive' : fmt(c.exitP50Ms, 0),
        fmt(c.cpuP50Ms, 0),
        fmt(c.warmDoneP50Ms, 0),
        fmt(c.warmCpuP50Ms, 0),
      ]),
    ),
  );
  print(
    `p50 of each. First message: the child has loaded its modules and read the start payload; done: extracted and exported;\n` +
      `exit: a one-Run child's end (the worker waited for it); a child kept warm gets a 2nd Run instead. The same extraction in-process (runExtraction only): ${fmt(inProcessP50Ms, 1)} ms.`,
  );
}
