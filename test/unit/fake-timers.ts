// A fake clock for the control logic: time moves only when the test says so.
import type { Timers } from '../../src/jobs/run-supervisor.js';

export function fakeTimers(start = 0) {
  let now = start;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers & { advance(ms: number): Promise<void>; pendingCount(): number } = {
    now: () => now,
    setTimeout(fn, ms) {
      const id = ++seq;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    /** Moves time forward, firing due timers in order and letting promises settle between them. */
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        await flush();
        const next = [...pending.entries()]
          .filter(([, t]) => t.at <= until)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!next) break;
        pending.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = until;
      await flush();
    },
    pendingCount: () => pending.size,
  };
  return timers;
}

export async function flush() {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A promise the test resolves or rejects by hand. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
