// Storage failures users can read: a Run whose files cannot be stored ends Failure with
// an errorMessage that names the cause and what to do, its diagnosis says the same, nothing
// half-written is listed, and readiness reports the storage down. Drilled with a real worker against
// a bucket that does not exist on the real S3 server, and against a full local volume (a 1 MiB tmpfs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, startWorker, waitForRun } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

/** One page: the Run executes in the worker process itself (inline), not in a run process. */
const onePage = () => ({ ...catalogDefinition(site.url), next: undefined });

async function failedRun(
  ctx: TestContext,
  apiKey: string,
  spaceId: number,
  definition: object = catalogDefinition(site.url),
) {
  const agent = await createAgent(ctx.app, apiKey, spaceId, definition, 'Stored nowhere');
  const start = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/agent/${agent.id}/start`,
    headers: auth(apiKey),
    payload: {},
  });
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, apiKey, agent.id, start.json().id, undefined, 60_000);
  const files = (
    await ctx.app.inject({ method: 'GET', url: `/api/v1/agent/${agent.id}/run/${run.id}/files`, headers: auth(apiKey) })
  ).json();
  const diagnosis = (
    await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/agents/${agent.id}/runs/${run.id}/diagnostics`,
      headers: auth(apiKey),
    })
  ).json();
  return { run, files: files as Array<{ name: string }>, diagnosis };
}

describe('an S3 bucket that does not exist', () => {
  let ctx: TestContext;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  // The worker's own temporary folder: what its run processes leave there is this test's to see.
  let tmp: string;
  beforeAll(async () => {
    ctx = await createTestContext({ env: testS3Env(testS3Options({ bucket: 'cxs-no-such-bucket' })) });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-s3-missing-'));
    worker = await startWorker({ ...ctx.env, TMPDIR: tmp });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await ctx?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'fails the Run with a message naming S3_BUCKET, a storageFailure diagnosis, and readiness down',
    { timeout: 120_000 },
    async () => {
      const org = await ctx.bootstrap();
      const { run, files, diagnosis } = await failedRun(ctx, org.apiKey, org.spaceId);
      expect(run.status).toBe(6);
      expect(run.errorMessage).toBe(
        "The Run's files could not be stored: the bucket named by S3_BUCKET does not exist. The operator should create it or correct S3_BUCKET." +
          ` The files that could not be stored are kept on worker ${os.hostname()} in ${ctx.config.storageDir}/unstored/runs/${run.id}/ until an operator copies them to the store.`,
      );
      expect(diagnosis.errorCode).toBe('STORAGE_UNAVAILABLE');
      expect(files).toEqual([]);
      expect(diagnosis.findings.map((f: { rule: string }) => f.rule)).toContain('storageFailure');
      const ready = await ctx.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.storage).toBe('down');
      expect(worker.output()).toContain('run file storage is not writable');
      // The failed Run's log was closed before its run process exited: no temporary log file is left.
      expect(fs.readdirSync(tmp).filter((n) => n.startsWith('cxs-log-'))).toEqual([]);
    },
  );

  it(
    'says the same of a one-page Run, which executes in the worker process, and leaves no temporary log file either',
    { timeout: 120_000 },
    async () => {
      const org = await ctx.bootstrap();
      const { run, files, diagnosis } = await failedRun(ctx, org.apiKey, org.spaceId, onePage());
      expect(run.status).toBe(6);
      expect(run.errorMessage).toBe(
        "The Run's files could not be stored: the bucket named by S3_BUCKET does not exist. The operator should create it or correct S3_BUCKET." +
          ` The files that could not be stored are kept on worker ${os.hostname()} in ${ctx.config.storageDir}/unstored/runs/${run.id}/ until an operator copies them to the store.`,
      );
      expect(diagnosis.errorCode).toBe('STORAGE_UNAVAILABLE');
      expect(files).toEqual([]);
      expect(diagnosis.findings.map((f: { rule: string }) => f.rule)).toContain('storageFailure');
      expect(fs.readdirSync(tmp).filter((n) => n.startsWith('cxs-log-'))).toEqual([]);
    },
  );
});

// A real full disk: a tiny tmpfs (needs root, as in CI and the dev container).
const canMount = process.getuid?.() === 0;
describe.runIf(canMount)('a full local volume', () => {
  let ctx: TestContext;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let mount: string;
  beforeAll(async () => {
    mount = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount]);
    ctx = await createTestContext({ env: { STORAGE_DIR: mount, STORAGE_MIN_FREE_MB: '64' } });
    worker = await startWorker(ctx.env);
    // Fill the volume, leaving one 4 KiB block: the run log starts, the export cannot be written.
    fs.writeFileSync(path.join(mount, 'filler'), Buffer.alloc(1024 * 1024 - 4096));
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await ctx?.close().catch(() => {});
    execFileSync('umount', [mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  });

  it(
    'fails the Run with "storage volume is full", lists no half-written file, and the worker warned first',
    { timeout: 120_000 },
    async () => {
      expect(worker.output()).toMatch(/disk nearly full: .*cxs-full-/);
      const org = await ctx.bootstrap();
      const { run, files, diagnosis } = await failedRun(ctx, org.apiKey, org.spaceId);
      expect(run.status).toBe(6);
      expect(run.errorMessage).toMatch(
        /^The Run's files could not be stored: the storage volume is full \(no space left on device\)/,
      );
      expect(diagnosis.errorCode).toBe('STORAGE_FULL');
      expect(files.map((f) => f.name)).not.toContain('data.csv');
      expect(diagnosis.findings.map((f: { rule: string }) => f.rule)).toContain('storageFailure');
      // Nothing half-written is left next to the filler (temp files are removed on failure).
      const left = fs
        .readdirSync(mount, { recursive: true })
        .map(String)
        .filter((n) => n.endsWith('.tmp') || n.endsWith('.csv'));
      expect(left).toEqual([]);
    },
  );
});
