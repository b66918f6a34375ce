// Warm run processes for a worker: a Run takes an idle child (or forks one), and a child that
// finished its Run cleanly goes back for the next one, so Runs do not each pay for starting Node and
// loading the engine. A killed, failed or worn child is never reused. A Run that fetches one page is
// executed in the worker itself instead (inline-run.ts): the hop to a process and back costs more than
// such a Run.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { InlineRun, type RunProcess } from './inline-run.js';

// Under tsx (development, tests) the child is TypeScript and needs the same loader.
const isTs = import.meta.url.endsWith('.ts');
const CHILD_PATH = fileURLToPath(new URL(isTs ? './run-child.ts' : './run-child.js', import.meta.url));
const CHILD_EXEC_ARGV = isTs ? ['--import', 'tsx'] : [];

export interface RunChild {
  process: RunProcess;
  runs: number;
}

export function createRunChildPool(opts: { maxIdle: number; maxRunsPerChild?: number; maxOldSpaceMb?: number }) {
  // A heap budget makes V8 collect garbage before growing: without it a run process's peak memory
  // grows with the number of pages it parses, although it retains only a page at a time.
  const execArgv = [...CHILD_EXEC_ARGV, ...(opts.maxOldSpaceMb ? [`--max-old-space-size=${opts.maxOldSpaceMb}`] : [])];
  // A fresh process costs 0.5-2 s of CPU (loading the engine): retired after 50 Runs, that was 10-40 ms
  // per small Run, more than the Run itself. The heap budget bounds its memory meanwhile.
  const maxRunsPerChild = opts.maxRunsPerChild ?? 500;
  const idle: RunChild[] = [];
  let closed = false;

  const spawn = (): RunChild => ({
    process: fork(CHILD_PATH, [], {
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
    runs: 0,
  });
  const alive = (c: RunChild) => c.process.connected && c.process.exitCode === null && c.process.signalCode === null;

  return {
    /** A run process for the Run; with `onePage` (it fetches one page), an inline Run. */
    acquire(run: { onePage: boolean } = { onePage: false }): RunChild {
      if (run.onePage) return { process: new InlineRun(), runs: 0 };
      while (idle.length) {
        const c = idle.pop()!;
        if (alive(c)) return c;
      }
      return spawn();
    },
    /** Hands a child back after a clean Run; anything else is ended. */
    release(c: RunChild, reusable: boolean) {
      // An inline Run is not reused: its next Run gets a fresh host.
      if (c.process instanceof InlineRun) return;
      c.runs += 1;
      if (!closed && reusable && alive(c) && c.runs < maxRunsPerChild && idle.length < opts.maxIdle) {
        c.process.removeAllListeners('message');
        c.process.removeAllListeners('exit');
        idle.push(c);
      } else if (alive(c)) {
        c.process.kill('SIGTERM');
      }
    },
    /** Starts `n` children ahead of the first Runs. */
    warm(n: number) {
      while (!closed && idle.length < Math.min(n, opts.maxIdle)) idle.push(spawn());
    },
    close() {
      closed = true;
      for (const c of idle.splice(0)) c.process.kill('SIGTERM');
    },
  };
}
export type RunChildPool = ReturnType<typeof createRunChildPool>;
