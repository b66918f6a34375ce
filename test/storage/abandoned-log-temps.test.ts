// The S3 log writer's temporary files: those of a process that is gone (a run process killed before it
// could remove its own) are removed; the current process's, live processes' and other files are kept.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeAbandonedLogTemps } from '../../src/storage/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('removeAbandonedLogTemps', () => {
  it('removes the log temporary files of processes that no longer exist, and nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-temps-'));
    dirs.push(dir);
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const parent = process.ppid;
    const names = {
      gone: `cxs-log-${gone}-0123456789abcdef`,
      mine: `cxs-log-${process.pid}-0123456789abcdef`,
      alive: `cxs-log-${parent}-fedcba9876543210`,
      other: 'cxs-log-notapid-0123456789abcdef',
      unrelated: 'something-else',
    };
    for (const n of Object.values(names)) fs.writeFileSync(path.join(dir, n), 'x');
    expect(await removeAbandonedLogTemps(dir)).toBe(1);
    expect(fs.readdirSync(dir).sort()).toEqual([names.alive, names.mine, names.other, names.unrelated].sort());
    expect(await removeAbandonedLogTemps(path.join(dir, 'missing'))).toBe(0);
  });
});
