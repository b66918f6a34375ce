// Runs on the s3 storage driver against a real S3-compatible server (radosgw): files land in the
// bucket and nowhere on local disk, downloads answer 302 to a pre-signed URL (or stream with
// redirect=false), the URL stops working once expired, and deleting a Run empties its folder.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/storage/index.js';
import { auth, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { productPrice, type FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';
import { testS3Env, testS3Options } from '../helpers/s3-server.js';

const s3Options = testS3Options();
const env = useRunEnvironment({ env: testS3Env(s3Options) });
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));
const store = new S3Storage(s3Options);

const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...auth(org.apiKey), 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

function expectedCsv(count: number) {
  let csv = 'title,price,url\r\n';
  for (let n = 1; n <= count; n++) csv += `Product ${n},${productPrice(n)},${site.url}/product/${n}\r\n`;
  return csv;
}

/** Files below a folder, recursively (the local disk must hold none of a Run's files). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

async function finishedRun() {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Catalog on S3');
  const start = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id, undefined, 60_000);
  expect(run).toMatchObject({ status: 10, recordsExtracted: 30, recordsExported: 30, errorMessage: null });
  const files = (await inject('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json() as Array<{
    id: number;
    name: string;
    fileSize: number;
  }>;
  return { agentId: agent.id, runId: run.id as number, files };
}

describe('the s3 storage driver', () => {
  it('runs to Success with its files in the bucket only, downloaded through a 302 to a pre-signed URL', async () => {
    const { agentId, runId, files } = await finishedRun();
    expect(files.map((f) => f.name)).toEqual(['data.csv', 'run.log']);
    // An asynchronous start keeps no records file (only a synchronous start answers with the records).
    expect((await store.list(`runs/${runId}`)).sort()).toEqual(['data.csv', 'run.log']);
    expect(filesUnder(ctx.config.storageDir)).toEqual([]);

    const dl = await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${files[0].id}/download`);
    expect(dl.statusCode).toBe(302);
    const location = dl.headers.location as string;
    expect(
      location.startsWith(`${s3Options.endpoint}/${s3Options.bucket}/${s3Options.prefix}/runs/${runId}/data.csv?`),
    ).toBe(true);
    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(direct.headers.get('content-disposition')).toBe(
      `attachment; filename="data.csv"; filename*=UTF-8''data.csv`,
    );
    expect(await direct.text()).toBe(expectedCsv(30));

    // Clients that cannot follow redirects get the bytes through the API.
    const streamed = await inject(
      'GET',
      `/api/v1/agent/${agentId}/run/${runId}/file/${files[0].id}/download?redirect=false`,
    );
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(Number(streamed.headers['content-length'])).toBe(files[0].fileSize);
    expect(streamed.body).toBe(expectedCsv(30));
    const log = await inject(
      'GET',
      `/api/v1/agent/${agentId}/run/${runId}/file/${files[1].id}/download?redirect=false`,
    );
    expect(log.body).toMatch(/\[Info\] Exported 30 records to data\.csv/);

    // The public client (sequentum-mcp) fetches with its Authorization header and follows the redirect:
    // fetch drops the header on the cross-origin hop, so the pre-signed URL is all S3 sees.
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const followed = await fetch(`${address}/api/v1/agent/${agentId}/run/${runId}/file/${files[0].id}/download`, {
      headers: auth(org.apiKey),
    });
    expect(followed.status).toBe(200);
    expect(followed.redirected).toBe(true);
    expect(await followed.text()).toBe(expectedCsv(30));
  });

  it('authorizes before redirecting: no URL for another organization or a missing file', async () => {
    const { agentId, runId, files } = await finishedRun();
    const other = await ctx.bootstrap();
    const foreign = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/agent/${agentId}/run/${runId}/file/${files[0].id}/download`,
      headers: auth(other.apiKey),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.headers.location).toBeUndefined();
    expectProblem(await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/999999/download`), 404, 'NOT_FOUND');
  });

  it('a pre-signed URL works until it expires, then the store refuses it', async () => {
    const { runId } = await finishedRun();
    const shortLived = new S3Storage({ ...s3Options, presignSeconds: 2 });
    const url = await shortLived.presignGet(`runs/${runId}/data.csv`, {
      contentType: 'text/csv; charset=utf-8',
      contentDisposition: 'attachment',
    });
    expect((await fetch(url)).status).toBe(200);
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await fetch(url)).status;
    }
    expect(status).toBe(403);
  });

  it('deleting a Run (RemoveAllFiles, RemoveEntireRun) removes its objects from the bucket', async () => {
    const first = await finishedRun();
    expect(
      await inject('DELETE', `/api/v1/agent/${first.agentId}/run/${first.runId}?removeMethod=RemoveAllFiles`),
    ).toMatchObject({ statusCode: 204 });
    expect(await store.list(`runs/${first.runId}`)).toEqual([]);
    const second = await finishedRun();
    expect(
      await inject('DELETE', `/api/v1/agent/${second.agentId}/run/${second.runId}?removeMethod=RemoveEntireRun`),
    ).toMatchObject({ statusCode: 204 });
    expect(await store.list(`runs/${second.runId}`)).toEqual([]);
  });
});
