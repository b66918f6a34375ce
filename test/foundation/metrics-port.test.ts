// Several workers and API processes on one host, started as an operator starts them: without
// METRICS_PORT, a process whose default metrics port is taken says so once and goes on without
// metrics; with METRICS_PORT set to a taken port it stops with a message that names the port.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { freePort, startNode, waitFor } from '../helpers/process.js';
import { startWorker } from '../helpers/runs.js';

const DEFAULT_PORTS = { api: 9464, worker: 9465 };
// Empty: as if METRICS_PORT were not set at all (the process takes its default port).
const NO_METRICS_PORT = { METRICS_PORT: '' };
const TAKEN_WARNING = 'this process runs without metrics';

let ctx: TestContext;
const holders: net.Server[] = [];
const stops: Array<() => Promise<unknown>> = [];

/** Makes sure `port` is taken on 127.0.0.1: held here, or already held by another process. */
async function holdPort(port: number): Promise<void> {
  const server = net.createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (held) holders.push(server);
}

function startApi(env: Record<string, string>) {
  return startNode(['src/server.ts'], { ...ctx.env, LOG_LEVEL: 'info', ...env });
}

beforeAll(async () => {
  ctx = await createTestContext();
  await holdPort(DEFAULT_PORTS.api);
  await holdPort(DEFAULT_PORTS.worker);
}, 60_000);

afterAll(async () => {
  for (const stop of stops) await stop();
  for (const h of holders) h.close();
  await ctx?.close();
});

describe('metrics port taken, METRICS_PORT not set', () => {
  it('two workers on one host both start and stay up; each says once that it has no metrics', async () => {
    const a = await startWorker({ ...ctx.env, ...NO_METRICS_PORT });
    stops.push(() => a.stop());
    const b = await startWorker({ ...ctx.env, ...NO_METRICS_PORT });
    stops.push(() => b.stop());
    for (const w of [a, b]) {
      expect(w.child.exitCode).toBeNull();
      expect(w.output().split(TAKEN_WARNING).length - 1).toBe(1);
      expect(w.output()).toContain(`127.0.0.1:${DEFAULT_PORTS.worker} is taken`);
    }
  }, 90_000);

  it('a second API process serves its port without metrics', async () => {
    const port = await freePort();
    const api = startApi({ ...NO_METRICS_PORT, PORT: String(port) });
    stops.push(async () => {
      api.child.kill('SIGTERM');
      await api.exited;
    });
    await waitFor(async () => api.output().includes('Server listening'), 30_000);
    const res = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(res.status).toBe(200);
    expect(api.output()).toContain(TAKEN_WARNING);
  }, 60_000);
});

describe('METRICS_PORT set to a taken port', () => {
  it('a worker stops at once with a message naming the port', async () => {
    const port = await freePort();
    await holdPort(port);
    const w = startNode(['src/worker.ts'], { ...ctx.env, METRICS_PORT: String(port), LOG_LEVEL: 'info' });
    expect(await w.exited).toBe(1);
    expect(w.output()).toContain(`METRICS_PORT ${port} is already in use on 127.0.0.1:${port}`);
    expect(w.output()).not.toContain('worker started');
  }, 60_000);

  it('an API process stops at once with the same message', async () => {
    const port = await freePort();
    await holdPort(port);
    const api = startApi({ METRICS_PORT: String(port), PORT: String(await freePort()) });
    expect(await api.exited).toBe(1);
    expect(api.output()).toContain(`METRICS_PORT ${port} is already in use on 127.0.0.1:${port}`);
  }, 60_000);
});
