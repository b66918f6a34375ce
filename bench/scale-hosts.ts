// The "hosts" of bench/scale.ts: API and worker processes, each with a home folder of its own
// (STORAGE_DIR and TMPDIR inside it), their CPU, and the check that every file of every Run downloads
// byte-exact through each API.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startNode, waitFor } from '../test/helpers/process.js';
import { processCpuMs, processTreeCpuMs } from './helpers.js';

export interface Host {
  kind: 'api' | 'worker';
  /** For an API: its base URL and port. */
  url: string;
  port: number;
  /** CPU of the process and its children so far; after it ended, the last reading. */
  cpuMs(): number;
  kill(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function homeEnv(home: string): Record<string, string> {
  fs.mkdirSync(path.join(home, 'storage'), { recursive: true });
  fs.mkdirSync(path.join(home, 'tmp'), { recursive: true });
  return { STORAGE_DIR: path.join(home, 'storage'), TMPDIR: path.join(home, 'tmp') };
}

function host(kind: Host['kind'], proc: ReturnType<typeof startNode>, port = 0): Host {
  const pid = proc.child.pid!;
  let last = 0;
  const cpuMs = () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      const t = processTreeCpuMs(pid);
      if (Number.isFinite(t.own)) last = t.own + t.children;
    }
    return last;
  };
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    port,
    cpuMs,
    kill(signal) {
      cpuMs();
      proc.child.kill(signal);
    },
    async stop() {
      cpuMs();
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
      proc.child.kill('SIGTERM');
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

export async function startApiHost(env: Record<string, string>, home: string, port?: number): Promise<Host> {
  const p = port ?? (await freePort());
  const proc = startNode(['src/server.ts'], { ...env, ...homeEnv(home), PORT: String(p), LOG_LEVEL: 'warn' });
  const h = host('api', proc, p);
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`API exited: ${proc.output().slice(-2000)}`);
      return (await fetch(`${h.url}/health/live`).catch(() => null))?.ok;
    },
    60_000,
    100,
  );
  return h;
}

export async function startWorkerHost(env: Record<string, string>, home: string): Promise<Host> {
  const proc = startNode(['src/worker.ts'], { ...env, ...homeEnv(home), LOG_LEVEL: 'info' });
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`worker exited: ${proc.output().slice(-2000)}`);
      return proc.output().includes('worker started');
    },
    60_000,
    50,
  );
  return host('worker', proc);
}

/** CPU of the S3 server's daemons (scripts/s3-server.sh records their pids); 0 when there is none. */
export function storeCpuMs(): number {
  const pids = path.join(process.env.S3_SERVER_DIR ?? '/tmp/cxs-s3-server', 'pids');
  if (!fs.existsSync(pids)) return 0;
  return fs
    .readFileSync(pids, 'utf8')
    .split('\n')
    .filter(Boolean)
    .reduce((n, pid) => n + (processCpuMs(Number(pid)).own || 0), 0);
}

interface FileRow {
  id: number;
  name: string;
  fileType: string;
  fileSize: number;
}

/**
 * Downloads every file of every Run through each API (following the s3 driver's redirect) and checks
 * that both give the same bytes, of the listed size, and that every data file equals the first one:
 * all Runs extract the same catalog.
 */
export async function verifyFiles(
  apis: Host[],
  headers: Record<string, string>,
  ids: Array<{ agentId: number; runId: number }>,
): Promise<{ checked: number; problems: string[] }> {
  const problems: string[] = [];
  let checked = 0;
  let reference: Buffer | undefined;
  const get = async (api: Host, url: string) => {
    const res = await fetch(`${api.url}${url}`, { headers });
    if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
    return res;
  };
  const queue = [...ids];
  const work = async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      const base = `/api/v1/agent/${id.agentId}/run/${id.runId}`;
      try {
        const files = (await (await get(apis[id.runId % 2], `${base}/files`)).json()) as FileRow[];
        if (!files.some((f) => f.fileType === 'Csv')) problems.push(`Run ${id.runId}: no CSV file`);
        for (const f of files) {
          checked += 1;
          const [a, b] = await Promise.all(
            apis.map(async (api) => Buffer.from(await (await get(api, `${base}/file/${f.id}/download`)).arrayBuffer())),
          );
          if (!a.equals(b)) problems.push(`Run ${id.runId} ${f.name}: the two APIs gave different bytes`);
          else if (a.length !== f.fileSize)
            problems.push(`Run ${id.runId} ${f.name}: ${a.length} bytes, listed ${f.fileSize}`);
          else if (f.fileType === 'Csv') {
            reference ??= a;
            if (!a.equals(reference)) problems.push(`Run ${id.runId} ${f.name}: differs from the other Runs' data`);
          }
        }
      } catch (err) {
        problems.push(`Run ${id.runId}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, work));
  return { checked, problems };
}
