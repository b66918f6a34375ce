// The control logic of one executing Run, without I/O of its own (unit-tested with a fake clock):
// heartbeats on their own timer that never wait behind progress writes; progress writes applied in
// order and coalesced (only the latest figures are written); stop and kill acted on at once when
// signalled (Redis) or read back by a heartbeat (database fallback); the run timeout enforced; and a
// planned shutdown's hand-back.
import type { ExtractionStats } from '../engine/index.js';
import type { ControlAction } from '../services/runs/execution.service.js';

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What the supervisor writes and reads, for one Run. */
export interface SupervisedRun {
  heartbeat(): Promise<ControlAction>;
  firstPage(): Promise<void>;
  progress(stats: ExtractionStats): Promise<void>;
  exporting(stats: ExtractionStats): Promise<void>;
}

/** The run process, as the supervisor controls it. */
export interface SupervisedProcess {
  /** Graceful stop: no new page, requests in flight aborted after the stop grace, then export. */
  stop(): void;
  /** SIGKILL. */
  kill(): void;
}

export interface SupervisorOptions {
  run: SupervisedRun;
  process: SupervisedProcess;
  timers?: Timers;
  heartbeatMs: number;
  /** The run process is killed this long after the start (the Run's timeout plus a margin). */
  deadlineMs: number;
  onError(err: unknown, what: string): void;
}

export type SupervisorEnd = 'killed' | 'timedOut' | 'handedBack' | null;

export function createRunSupervisor(opts: SupervisorOptions) {
  const timers = opts.timers ?? systemTimers;
  let end: SupervisorEnd = null;
  let stopSent = false;
  let closed = false;
  let exited = false;
  let heartbeatTimer: unknown = null;
  let heartbeatInFlight = false;
  let writes: Promise<void> = Promise.resolve();
  let latestProgress: ExtractionStats | null = null;
  let progressQueued = false;

  const write = (what: string, fn: () => Promise<void>) => {
    writes = writes.then(fn).catch((err) => opts.onError(err, what));
  };

  function kill(reason: Exclude<SupervisorEnd, null>) {
    if (end !== null || exited) return;
    end = reason;
    opts.process.kill();
  }

  function signal(action: ControlAction | 'stop' | 'kill' | 'ended') {
    if (closed || exited || end !== null) return;
    if (action === 'kill' || action === 'gone') kill('killed');
    else if (action === 'stop' && !stopSent) {
      stopSent = true;
      opts.process.stop();
    }
  }

  function scheduleHeartbeat() {
    if (closed) return;
    heartbeatTimer = timers.setTimeout(beat, opts.heartbeatMs);
  }

  function beat() {
    // One heartbeat at a time; a slow one delays the next, never a progress write.
    if (heartbeatInFlight) return scheduleHeartbeat();
    heartbeatInFlight = true;
    opts.run
      .heartbeat()
      .then(signal, (err) => opts.onError(err, 'heartbeat'))
      .finally(() => {
        heartbeatInFlight = false;
      });
    scheduleHeartbeat();
  }

  const deadline = timers.setTimeout(() => kill('timedOut'), opts.deadlineMs);
  scheduleHeartbeat();

  return {
    signal,

    firstPage() {
      write('first page', () => opts.run.firstPage());
    },

    progress(stats: ExtractionStats) {
      latestProgress = stats;
      if (progressQueued) return;
      progressQueued = true;
      write('progress', async () => {
        progressQueued = false;
        const stats = latestProgress;
        latestProgress = null;
        if (stats) await opts.run.progress(stats);
      });
    },

    exporting(stats: ExtractionStats) {
      latestProgress = null;
      write('exporting', () => opts.run.exporting(stats));
    },

    /** A planned shutdown cannot wait for this Run: the process is ended and the Run handed back. */
    handBack() {
      kill('handedBack');
    },

    /** How the run process was ended by the supervisor, if it was. */
    get end(): SupervisorEnd {
      return end;
    },

    /** The progress writes so far, applied. */
    settled(): Promise<void> {
      return writes;
    },

    /** No more control (the process has exited); heartbeats go on until `close`. */
    detach() {
      exited = true;
      timers.clearTimeout(deadline);
    },

    /** The Run's terminal write is done: heartbeats stop. */
    close() {
      closed = true;
      timers.clearTimeout(deadline);
      if (heartbeatTimer !== null) timers.clearTimeout(heartbeatTimer);
    },
  };
}
export type RunSupervisor = ReturnType<typeof createRunSupervisor>;

/**
 * Repeats `fn` until it succeeds, waiting 1, 2, 4 ... up to 30 s between tries: a terminal write
 * waits for the database to come back instead of leaving the Run's files without rows.
 */
export async function untilDone<T>(
  fn: () => Promise<T>,
  opts: { timers?: Timers; onError(err: unknown, attempt: number): void; maxDelayMs?: number },
): Promise<T> {
  const timers = opts.timers ?? systemTimers;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      opts.onError(err, attempt);
      const delay = Math.min(opts.maxDelayMs ?? 30_000, 1000 * 2 ** (attempt - 1));
      await new Promise<void>((resolve) => timers.setTimeout(resolve, delay));
    }
  }
}
