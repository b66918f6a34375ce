// An object store that is away for a while: the worker reaches the real S3 server through a TCP
// forwarder that the test takes down and brings back (the shared server itself is never stopped).
// A store back within STORAGE_RETRY_SECONDS costs the Run a delay and nothing else: it ends Success
// with every file and record. A store that stays away ends the Run Failure with the storage cause,
// and its export and log are kept on the worker under STORAGE_DIR/unstored/runs/<id>/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';
import { catalogDefinition, createAgent, startRun as startAgentRun, startWorker, waitForRun } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const s3 = testS3Options();
let ctx: TestContext;
let site: FixtureSite;
let proxy: TcpProxy;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;

beforeAll(async () => {
  const endpoint = new URL(s3.endpoint);
  proxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port || 80) });
  // The API reads the store directly; only the worker goes through the forwarder.
  ctx = await createTestContext({ env: testS3Env(s3) });
  site = await startFixtureSite();
  org = await ctx.bootstrap();
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await site?.close();
  await ctx?.close();
});

/** A worker whose store is reached through the forwarder. */
function workerEnv(extra: Record<string, string>) {
  const viaProxy = { ...s3, endpoint: `http://127.0.0.1:${proxy.port}`, publicEndpoint: s3.endpoint };
  return { ...ctx.env, ...testS3Env(viaProxy), ...extra };
}

async function startRun() {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Outage');
  return { agentId: agent.id as number, runId: await startAgentRun(ctx.app, org.apiKey, agent.id) };
}

async function stored(key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await new S3Storage(s3).get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('a store back within STORAGE_RETRY_SECONDS', () => {
  it('ends the Run Success with every file, its log saying it waited', { timeout: 120_000 }, async () => {
    const worker = await startWorker(workerEnv({ STORAGE_RETRY_SECONDS: '60' }));
    try {
      await proxy.down();
      const { agentId, runId } = await startRun();
      // The crawl needs no store: the Run reaches its export, and waits there for the store.
      await waitFor(async () => ((await runStatus(agentId, runId)) === 2 ? true : null), 30_000);
      const downSince = Date.now();
      await new Promise((r) => setTimeout(r, 6_000));
      await proxy.up();
      const run = await waitForRun(ctx.app, org.apiKey, agentId, runId, undefined, 60_000);
      expect(run.status, run.errorMessage).toBe(10);
      expect(run.recordsExtracted).toBe(30);
      expect(run.recordsExported).toBe(30);
      expect(Date.now() - downSince).toBeGreaterThanOrEqual(6_000);
      const files = (
        await ctx.app.inject({
          method: 'GET',
          url: `/api/v1/agent/${agentId}/run/${runId}/files`,
          headers: auth(org.apiKey),
        })
      ).json() as Array<{ name: string }>;
      expect(files.map((f) => f.name).sort()).toEqual(['data.csv', 'run.log']);
      const csv = await stored(`runs/${runId}/data.csv`);
      expect(csv.trim().split('\r\n')).toHaveLength(31);
      const log = await stored(`runs/${runId}/run.log`);
      expect(log).toMatch(/\[Warning\] Storing data\.csv failed \(unreachable\); trying again in \d+ ms/);
      expect(log).toContain('Exported 30 records to data.csv');
      expect(log).toContain(`Run ${runId} started`);
    } finally {
      await proxy.up().catch(() => {});
      await worker.stop();
    }
  });
});

describe('a store that stays away', () => {
  it('ends the Run Failure with the storage cause, its files kept on the worker', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-unstored-'));
    const worker = await startWorker(workerEnv({ STORAGE_RETRY_SECONDS: '3', STORAGE_DIR: dir }));
    try {
      await proxy.down();
      const { agentId, runId } = await startRun();
      const run = await waitForRun(ctx.app, org.apiKey, agentId, runId, undefined, 60_000);
      expect(run.status).toBe(6);
      expect(run.errorMessage).toBe(
        "The Run's files could not be stored: the object store could not be reached. The operator should check S3_ENDPOINT and the network between the workers and the store. " +
          `The files that could not be stored are kept on worker ${os.hostname()} in ${dir}/unstored/runs/${runId}/ until an operator copies them to the store.`,
      );
      const kept = path.join(dir, 'unstored', 'runs', String(runId));
      const csv = fs.readFileSync(path.join(kept, 'data.csv'), 'utf8');
      expect(csv.trim().split('\r\n')).toHaveLength(31);
      const log = fs.readFileSync(path.join(kept, 'run.log'), 'utf8');
      expect(log).toContain('Storing data.csv failed (unreachable)');
    } finally {
      await proxy.up();
      await worker.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function runStatus(agentId: number, runId: number): Promise<number> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/api/v1/agent/${agentId}/run/${runId}/status`,
    headers: auth(org.apiKey),
  });
  return res.json().status as number;
}
