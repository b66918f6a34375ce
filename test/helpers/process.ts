// Runs the project's entry points as real processes (the way operators run them).
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';

import path from 'node:path';

/**
 * Node's arguments for an entry point of the service given as `src/<name>.ts` (and its own arguments):
 * the compiled copy global-setup made (process-build.ts), or the source under tsx when there is none.
 */
function nodeArgs(args: string[], nodeOptions: readonly string[] = []): string[] {
  const build = process.env.CXS_TEST_BUILD;
  const [entry, ...rest] = args;
  const m = /^src\/(.+)\.ts$/.exec(entry ?? '');
  if (!build || !m) return [...nodeOptions, '--import', 'tsx', ...args];
  return [...nodeOptions, path.join(build, `${m[1]}.js`), ...rest];
}

/**
 * The processes this test file started and that still run: killed when the file's process exits, so a
 * test that failed (or timed out) before stopping them leaves no server or worker behind to compete
 * with the next files for the machine.
 */
const running = new Set<ChildProcess>();
const killRunning = () => {
  for (const child of running) child.kill('SIGKILL');
};
process.once('exit', killRunning);
// The test runner ends a file's process with SIGTERM, which would skip 'exit' handlers.
process.once('SIGTERM', () => {
  killRunning();
  process.exit(143);
});

function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export function runNode(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, nodeArgs(args), {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function startNode(
  args: string[],
  env: Record<string, string>,
  nodeOptions: readonly string[] = [],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = track(
    spawn(process.execPath, nodeArgs(args, nodeOptions), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A TCP port free on 127.0.0.1 right now (for a process that must be told its port). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
