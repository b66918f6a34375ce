// A private redis-server for outage drills: stopped and restarted (without its data) by the test,
// never the shared one.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './process.js';

export interface PrivateRedis {
  url: string;
  port: number;
  /** Starts it (again, with no data). */
  start(): Promise<void>;
  /** Stops it (SIGKILL: no goodbye to clients, like a crash). */
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const r: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      // Already running: nothing to do (a second server could not bind the port anyway).
      if (child && child.exitCode === null && child.signalCode === null) return;
      const c = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = c;
      await new Promise<void>((resolve, reject) => {
        let out = '';
        c.stdout.on('data', (d) => {
          out += d;
          if (out.includes('Ready to accept connections')) resolve();
        });
        c.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
      });
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGKILL');
      await exited;
    },
  };
  await r.start();
  return r;
}
