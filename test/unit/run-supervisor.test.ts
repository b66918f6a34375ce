// The processor's control logic with a fake clock: heartbeats never wait behind progress writes,
// progress is coalesced and ordered, stop and kill act at once (signal) or by the heartbeat's read
// (fallback), the run timeout kills, a hand-back ends the process, and terminal writes retry.
import { describe, expect, it } from 'vitest';
import type { ExtractionStats } from '../../src/engine/index.js';
import { createRunSupervisor, untilDone } from '../../src/jobs/run-supervisor.js';
import type { ControlAction } from '../../src/services/runs/execution.service.js';
import { deferred, fakeTimers, flush } from './fake-timers.js';

const stats = (pageCount: number): ExtractionStats => ({
  pageCount,
  dataCount: pageCount * 10,
  exportCount: 0,
  errorCount: 0,
  inputCount: 1,
  traffic: 0,
});

function setup(
  opts: { heartbeat?: () => Promise<ControlAction>; write?: (what: string, arg?: unknown) => Promise<void> } = {},
) {
  const timers = fakeTimers();
  const calls: string[] = [];
  const writes: Array<[string, unknown]> = [];
  const errors: string[] = [];
  let beats = 0;
  const write = opts.write ?? (async () => {});
  const supervisor = createRunSupervisor({
    run: {
      heartbeat: () => {
        beats += 1;
        return opts.heartbeat ? opts.heartbeat() : Promise.resolve('continue');
      },
      firstPage: () => (writes.push(['firstPage', null]), write('firstPage')),
      progress: (s) => (writes.push(['progress', s.pageCount]), write('progress', s)),
      exporting: (s) => (writes.push(['exporting', s.pageCount]), write('exporting', s)),
    },
    process: { stop: () => calls.push('stop'), kill: () => calls.push('kill') },
    timers,
    heartbeatMs: 1000,
    deadlineMs: 60_000,
    onError: (_err, what) => errors.push(what),
  });
  return { timers, supervisor, calls, writes, errors, beats: () => beats };
}

describe('run supervisor', () => {
  it('heartbeats keep their pace while a progress write hangs', async () => {
    const slow = deferred();
    const t = setup({ write: (what) => (what === 'progress' ? slow.promise : Promise.resolve()) });
    t.supervisor.progress(stats(1));
    await t.timers.advance(10_000);
    expect(t.beats()).toBe(10);
    slow.resolve();
    await flush();
    t.supervisor.close();
  });

  it('applies writes in order and coalesces progress to the latest figures', async () => {
    const gate = deferred();
    const t = setup({ write: (what) => (what === 'firstPage' ? gate.promise : Promise.resolve()) });
    t.supervisor.firstPage();
    for (let i = 1; i <= 5; i++) t.supervisor.progress(stats(i));
    await flush();
    expect(t.writes).toEqual([['firstPage', null]]);
    gate.resolve();
    await t.supervisor.settled();
    // Five progress messages while the first write was pending: one write, with the last figures.
    expect(t.writes).toEqual([
      ['firstPage', null],
      ['progress', 5],
    ]);
    // Exporting carries the final figures: progress still queued behind a write is superseded.
    t.supervisor.progress(stats(6));
    t.supervisor.progress(stats(7));
    t.supervisor.exporting(stats(9));
    await t.supervisor.settled();
    expect(t.writes.slice(2)).toEqual([['exporting', 9]]);
    t.supervisor.close();
  });

  it('a failed write is reported and does not block the next ones', async () => {
    const t = setup({
      write: (what) => (what === 'firstPage' ? Promise.reject(new Error('db down')) : Promise.resolve()),
    });
    t.supervisor.firstPage();
    t.supervisor.progress(stats(2));
    await t.supervisor.settled();
    expect(t.errors).toEqual(['first page']);
    expect(t.writes.map((w) => w[0])).toEqual(['firstPage', 'progress']);
    t.supervisor.close();
  });

  it('a stop signal stops the process once, without waiting for a heartbeat; a kill signal kills it', async () => {
    const t = setup();
    t.supervisor.signal('stop');
    t.supervisor.signal('stop');
    expect(t.calls).toEqual(['stop']);
    expect(t.beats()).toBe(0);
    t.supervisor.signal('kill');
    expect(t.calls).toEqual(['stop', 'kill']);
    expect(t.supervisor.end).toBe('killed');
    t.supervisor.signal('kill');
    expect(t.calls).toEqual(['stop', 'kill']);
    t.supervisor.close();
  });

  it('falls back on the heartbeat: a stop read back from the database stops, a kill or a gone Run kills', async () => {
    let action: ControlAction = 'continue';
    const t = setup({ heartbeat: async () => action });
    await t.timers.advance(1000);
    expect(t.calls).toEqual([]);
    action = 'stop';
    await t.timers.advance(1000);
    expect(t.calls).toEqual(['stop']);
    action = 'gone';
    await t.timers.advance(1000);
    expect(t.calls).toEqual(['stop', 'kill']);
    expect(t.supervisor.end).toBe('killed');
    t.supervisor.close();
  });

  it('kills the process at the deadline and says it timed out', async () => {
    const t = setup();
    await t.timers.advance(59_999);
    expect(t.calls).toEqual([]);
    await t.timers.advance(1);
    expect(t.calls).toEqual(['kill']);
    expect(t.supervisor.end).toBe('timedOut');
    t.supervisor.close();
  });

  it('hands back: the process is ended, and no later signal changes the outcome', async () => {
    const t = setup();
    t.supervisor.handBack();
    t.supervisor.signal('kill');
    expect(t.calls).toEqual(['kill']);
    expect(t.supervisor.end).toBe('handedBack');
    t.supervisor.close();
  });

  it('after the process exited, signals and the deadline do nothing; heartbeats go on until close', async () => {
    const t = setup();
    t.supervisor.detach();
    t.supervisor.signal('kill');
    t.supervisor.handBack();
    await t.timers.advance(120_000);
    expect(t.calls).toEqual([]);
    expect(t.beats()).toBe(120);
    t.supervisor.close();
    await t.timers.advance(10_000);
    expect(t.beats()).toBe(120);
    expect(t.timers.pendingCount()).toBe(0);
  });
});

describe('untilDone (terminal writes)', () => {
  it('retries with a growing delay until the database answers', async () => {
    const timers = fakeTimers();
    let calls = 0;
    const attempts: number[] = [];
    const done = untilDone(
      async () => {
        calls += 1;
        if (calls < 4) throw new Error('connection refused');
        return 'written';
      },
      { timers, onError: (_e, attempt) => attempts.push(attempt) },
    );
    await timers.advance(1000 + 2000 + 4000);
    await expect(done).resolves.toBe('written');
    expect(attempts).toEqual([1, 2, 3]);
    expect(calls).toBe(4);
  });

  it('caps the delay', async () => {
    const timers = fakeTimers();
    let calls = 0;
    const done = untilDone(
      async () => {
        calls += 1;
        if (calls < 10) throw new Error('down');
        return calls;
      },
      { timers, onError: () => {}, maxDelayMs: 5000 },
    );
    // 1 + 2 + 4 + 5 * 6 s
    await timers.advance(37_000);
    await expect(done).resolves.toBe(10);
  });
});
