// Two API instances and two worker processes that share nothing but PostgreSQL, Redis and the S3
// server (each has its own empty STORAGE_DIR and temporary folder) behave as one service: Runs started
// through either API all succeed and every file downloads byte-exact through the other one.
// A reduced multi-host drill (20 Runs, no kills); `npm run bench -- scale` runs the whole one:
// 200 Runs, separate processes, a worker SIGKILLed and an API restarted while starts go on.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, startWorker, waitForRun } from '../helpers/runs.js';
import { testS3Env } from '../helpers/s3-server.js';

const RUNS = 20;
let ctx: TestContext;
let second: FastifyInstance;
let site: FixtureSite;
const workers: Array<Awaited<ReturnType<typeof startWorker>>> = [];
const hostDirs: string[] = [];
const hostDir = (name: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cxs-host-${name}-`));
  hostDirs.push(dir);
  return dir;
};
const filesUnder = (dir: string) =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => n.startsWith('runs'));

beforeAll(async () => {
  ctx = await createTestContext({ env: testS3Env() });
  second = await buildApp(loadConfig({ ...ctx.env, STORAGE_DIR: hostDir('api2') }), { logger: false });
  await second.ready();
  site = await startFixtureSite();
  for (const name of ['w1', 'w2']) {
    const home = hostDir(name);
    fs.mkdirSync(path.join(home, 'tmp'));
    workers.push(
      await startWorker({ ...ctx.env, STORAGE_DIR: path.join(home, 'storage'), TMPDIR: path.join(home, 'tmp') }),
    );
  }
}, 240_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await second?.close();
  await site?.close();
  await ctx?.close();
  for (const dir of hostDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('API and workers on separate storage folders, sharing the object store', () => {
  it(
    `runs ${RUNS} Runs started through both APIs to Success, files byte-exact through either API`,
    { timeout: 600_000 },
    async () => {
      const org = await ctx.bootstrap();
      const apis = [ctx.app, second];
      const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Everywhere');
      const started: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const res = await apis[i % 2].inject({
          method: 'POST',
          url: `/api/v1/agent/${agent.id}/start`,
          headers: auth(org.apiKey),
          payload: { isExclusive: false },
        });
        expect(res.statusCode, res.body).toBe(202);
        started.push(res.json().id);
      }
      for (const [i, runId] of started.entries()) {
        const run = await waitForRun(apis[(i + 1) % 2], org.apiKey, agent.id, runId, undefined, 300_000);
        expect(run).toMatchObject({ status: 10, recordsExported: 30 });
      }
      let first: string | null = null;
      for (const [i, runId] of started.entries()) {
        const files = (
          await apis[i % 2].inject({
            method: 'GET',
            url: `/api/v1/agent/${agent.id}/run/${runId}/files`,
            headers: auth(org.apiKey),
          })
        ).json();
        const csv = files.find((f: { name: string }) => f.name === 'data.csv');
        const url = `/api/v1/agent/${agent.id}/run/${runId}/file/${csv.id}/download`;
        const viaOther = await apis[(i + 1) % 2].inject({
          method: 'GET',
          url: `${url}?redirect=false`,
          headers: auth(org.apiKey),
        });
        expect(viaOther.statusCode).toBe(200);
        const redirect = await apis[i % 2].inject({ method: 'GET', url, headers: auth(org.apiKey) });
        expect(redirect.statusCode).toBe(302);
        const direct = await (await fetch(redirect.headers.location as string)).text();
        expect(direct).toBe(viaOther.body);
        first ??= direct;
        expect(direct).toBe(first);
        expect(Buffer.byteLength(direct)).toBe(csv.fileSize);
      }
      // Nothing of any Run's files on any host's disk.
      for (const dir of hostDirs) expect(filesUnder(dir)).toEqual([]);
      expect(fs.existsSync(path.join(ctx.config.storageDir, 'runs'))).toBe(false);
    },
  );
});
