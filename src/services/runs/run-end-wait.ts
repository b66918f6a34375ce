// Waiting for a Run's end without holding a database connection: the wait listens for the Run's end signal
// (Redis) and re-reads the Run only at the start, on the signal and every `pollMs` (a signal can be missed
// while Redis is away). A synchronous start and a status read with waitForFinish use it.
import type { RunSignals } from './run-protocol.js';
import type { RunRow, RunsRepository } from './runs.repository.js';
import { isTerminal } from './status-machine.js';

/** The wait: the Run once it is terminal, or null when `timeoutMs` is up first. */
export function runEndWait(deps: {
  signals: RunSignals;
  repo: Pick<RunsRepository, 'findRun'>;
  pollMs: number;
}): (runId: number, timeoutMs: number) => Promise<RunRow | null> {
  const { signals, repo } = deps;
  return async function waitForEnd(runId: number, timeoutMs: number): Promise<RunRow | null> {
    const deadline = Date.now() + timeoutMs;
    // eslint-disable-next-line no-useless-assignment -- read after the listener (a closure) sets it
    let endedSignal = false;
    let wake: () => void = () => {};
    const listening = signals.listen(runId, (kind) => {
      if (kind !== 'ended') return;
      endedSignal = true;
      wake();
    });
    try {
      // Subscribed before the first read, so an end between the two is not missed (bounded wait).
      await Promise.race([listening.ready, new Promise((r) => setTimeout(r, 1000))]);
      for (;;) {
        endedSignal = false;
        const run = await repo.findRun(runId);
        if (run && isTerminal(run.status)) return run;
        const left = deadline - Date.now();
        if (left <= 0) return null;
        if (!endedSignal) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(deps.pollMs, left));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }
    } finally {
      listening.close();
    }
  };
}
