// A run process's life: a warm one takes its next Run as soon as it has reported `done`: the worker hands it the next
// job at once. It used to report `done` before it had cleaned up after the Run, so a start that came
// in that window was refused ("already executing") and the Run stayed Starting for ever.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildMessage, ChildStartPayload } from '../../src/services/runs/run-protocol.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';

const CHILD = path.resolve(import.meta.dirname, '../../src/jobs/run-child.ts');
let site: FixtureSite;
let dir: string;
let child: ChildProcess;

beforeAll(async () => {
  site = await startFixtureSite();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-child-reuse-'));
  child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: 'ignore' });
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const payload = (runId: number): ChildStartPayload => ({
  runId,
  storage: { driver: 'local', dir },
  definition: {
    startUrl: `${site.url}/catalog?page=1`,
    list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
    export: { format: 'csv' },
  },
  inputRows: [{}],
  parallelism: 1,
  maxConcurrency: 1,
  parallelExport: 'Combined',
  requestTimeoutMs: 10_000,
  pageCpuSeconds: 5,
  allowPrivateTargets: true,
  logLevel: 'Info',
  logMode: 'Text',
  secrets: [],
  keepRecords: false,
  stopGraceMs: 1_000,
});

describe('a warm run process', () => {
  it('takes the next Run the moment it reports done, 30 times in a row', { timeout: 120_000 }, async () => {
    const runs = 30;
    const errors: string[] = [];
    const done: number[] = [];
    await new Promise<void>((resolve, reject) => {
      let next = 1;
      child.on('exit', (code) => reject(new Error(`the run process exited (${code})`)));
      child.on('message', (msg: ChildMessage) => {
        if (msg.type === 'error') {
          errors.push(msg.message);
          return reject(new Error(`Run ${done.length + 1}: ${msg.message}`));
        }
        if (msg.type !== 'done') return;
        done.push(msg.result.stats.exportCount);
        if (done.length === runs) return resolve();
        // The next start goes out in the same tick as the `done` is read, as a busy worker's would.
        child.send({ type: 'start', payload: payload(++next) });
      });
      child.send({ type: 'start', payload: payload(next) });
    });
    expect(errors).toEqual([]);
    expect(done).toEqual(Array.from({ length: runs }, () => 10));
  });
});

describe('a run process whose worker is killed while it is still loading', () => {
  it('exits instead of living on without a parent', { timeout: 60_000 }, async () => {
    // A parent that forks the run process and is SIGKILLed at once, as a worker killed right after a fork.
    const script = `const { fork } = require('node:child_process');
      const c = fork(${JSON.stringify(CHILD)}, [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: 'ignore' });
      console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const childPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d) => resolve(Number(d))));
    parent.kill('SIGKILL');
    const alive = () => {
      try {
        process.kill(childPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await waitFor(async () => !alive(), 30_000, 100);
    } finally {
      if (alive()) process.kill(childPid, 'SIGKILL');
    }
  });
});
