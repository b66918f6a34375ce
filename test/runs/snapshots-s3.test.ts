// Snapshots on the s3 storage driver: the redesigned page's snapshot lands in the bucket beside the
// Run's other files (nothing on local disk), is listed, and downloads through the API with its HTML.
import { beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';

const s3Options = testS3Options();
const env = useRunEnvironment({ env: testS3Env(s3Options) });
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, org } = env));
const store = new S3Storage(s3Options);

const call = (method: 'GET' | 'POST', url: string) =>
  ctx.app.inject({ method, url, headers: { ...auth(org.apiKey), 'content-type': 'application/json' }, payload: {} });

describe('snapshots on the s3 storage driver', () => {
  it('a redesigned page is kept in the bucket, listed and downloadable', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
      startUrl: `${env.site.url}/empty-list`,
      list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
    });
    const start = await call('POST', `/api/v1/agent/${agent.id}/start`);
    expect(start.statusCode, start.body).toBe(202);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id, undefined, 60_000);
    expect(run.status).toBe(9);

    expect((await store.list(`runs/${run.id}`)).sort()).toEqual(['data.csv', 'run.log', 'snapshot-1.html']);
    const files = (await call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json() as Array<{
      id: number;
      name: string;
      fileType: string;
    }>;
    const snapshot = files.find((f) => f.name === 'snapshot-1.html');
    expect(snapshot?.fileType).toBe('Html');
    const served = await fetch(`${env.site.url}/empty-list`).then((r) => r.text());
    const dl = await call(
      'GET',
      `/api/v1/agent/${agent.id}/run/${run.id}/file/${snapshot!.id}/download?redirect=false`,
    );
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(dl.body).toBe(served);
  });
});
