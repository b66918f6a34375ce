// The orphan-files sweep on the s3 driver, end to end: a worker on the real S3-compatible server
// (radosgw) runs the `sweep-orphan-files` maintenance job. What a worker killed mid-Run leaves in the
// bucket (an export written but never recorded, a multipart upload never completed) is adopted or
// discarded for ended Runs, removed for Runs that no longer exist, and left alone for active Runs.
import { Readable } from 'node:stream';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { createQueue, redisConnection } from '../../src/queues/queues.js';
import { auth, type TestContext } from '../helpers/app.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';

const s3Options = testS3Options();
const env = useRunEnvironment({ env: testS3Env(s3Options) });
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));
const store = new S3Storage(s3Options);

const inject = (method: 'GET' | 'POST', url: string) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...auth(org.apiKey), 'content-type': 'application/json' },
    ...(method === 'POST' ? { payload: {} } : {}),
  });

/** What a process killed in the middle of uploading `key` leaves: a multipart upload with one part. */
async function abandonUpload(key: string) {
  const Key = `${s3Options.prefix}/${key}`;
  const { UploadId } = await store.client.send(new CreateMultipartUploadCommand({ Bucket: s3Options.bucket, Key }));
  await store.client.send(
    new UploadPartCommand({ Bucket: s3Options.bucket, Key, UploadId, PartNumber: 1, Body: 'half an export' }),
  );
}

async function startRun(path: string, name: string) {
  const definition = { startUrl: `${site.url}${path}`, list: { selector: 'div', fields: [{ name: 'x' }] } };
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition, name);
  const res = await inject('POST', `/api/v1/agent/${agent.id}/start`);
  expect(res.statusCode, res.body).toBe(202);
  return { agentId: agent.id, runId: res.json().id as number };
}

describe('the orphan sweep on the s3 driver', () => {
  it('adopts, discards and removes what a killed worker left in the bucket, and leaves active Runs alone', async () => {
    // An ended Run whose worker wrote data.csv and began big.csv, then died before recording them.
    const ended = await startRun('/blocked', 'Ended');
    expect((await waitForRun(ctx.app, org.apiKey, ended.agentId, ended.runId)).status).toBe(6);
    const csv = 'title\r\nA\r\nB\r\n';
    await store.put(`runs/${ended.runId}/data.csv`, Readable.from([csv]));
    await abandonUpload(`runs/${ended.runId}/big.csv`);
    // An active Run, mid-upload.
    const active = await startRun('/hang', 'Active');
    await waitForRun(ctx.app, org.apiKey, active.agentId, active.runId, (r) => r.status === 1);
    await store.put(`runs/${active.runId}/data.csv`, Readable.from(['title\r\n']));
    await abandonUpload(`runs/${active.runId}/data.csv`);
    // Runs that no longer exist: one with an object, one with only an unfinished upload.
    const gone = 2_000_000_000;
    await store.put(`runs/${gone}/data.csv`, Readable.from(['title\r\n']));
    await abandonUpload(`runs/${gone + 1}/data.csv`);

    const queue = createQueue('maintenance', redisConnection(ctx.config.redisUrl), ctx.config.redisPrefix);
    const sweep = async (id: string) => {
      const job = await queue.add('sweep-orphan-files', { task: 'sweep-orphan-files' }, { jobId: id });
      return waitFor(async () => {
        const state = await job.getState();
        if (state === 'failed') throw new Error('the sweep failed');
        return state === 'completed' ? (await queue.getJob(id))!.returnvalue : null;
      }, 30_000);
    };
    expect(await sweep('sweep-s3-1')).toEqual({ adopted: 1, removed: 1, discarded: 2 });

    const files = (await inject('GET', `/api/v1/agent/${ended.agentId}/run/${ended.runId}/files`)).json() as Array<{
      id: number;
      name: string;
      fileSize: number;
    }>;
    expect(files.map((f) => [f.name, f.fileSize]).sort()).toEqual([
      ['data.csv', csv.length],
      ['run.log', expect.any(Number)],
    ]);
    const adopted = files.find((f) => f.name === 'data.csv')!;
    const dl = await inject('GET', `/api/v1/agent/${ended.agentId}/run/${ended.runId}/file/${adopted.id}/download`);
    expect(dl.statusCode).toBe(302);
    expect(await (await fetch(dl.headers.location as string)).text()).toBe(csv);

    expect(await store.listIncomplete(`runs/${ended.runId}`)).toEqual([]);
    expect(await store.list(`runs/${gone}`)).toEqual([]);
    expect(await store.listIncomplete(`runs/${gone + 1}`)).toEqual([]);
    expect(await store.listIncomplete(`runs/${active.runId}`)).toEqual([`runs/${active.runId}/data.csv`]);
    expect(await store.list(`runs/${active.runId}`)).toContain('data.csv');
    expect((await inject('GET', `/api/v1/agent/${active.agentId}/run/${active.runId}/files`)).json()).toEqual([]);

    // Nothing left to do the second time.
    expect(await sweep('sweep-s3-2')).toEqual({ adopted: 0, removed: 0, discarded: 0 });
    await store.discardIncomplete(`runs/${active.runId}`);
    await inject('POST', `/api/v1/agent/${active.agentId}/run/${active.runId}/kill`);
    await queue.close();
  }, 120_000);
});
