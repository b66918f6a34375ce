// Snapshots of empty pages through the HTTP API with a real worker: a redesigned page (its list matches
// nothing) is kept as an `Html` Run file that is listed, downloads with the page's HTML and is named by
// the diagnosis; a page whose records all miss a required field too; at most 5 per Run; each cut to
// the size limit; and the snapshot counted in the Run's Export GB like its export.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.js';
import { MAX_SNAPSHOTS, SNAPSHOT_HTML_MAX_BYTES } from '../../src/engine/index.js';
import { auth, type TestContext } from '../helpers/app.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, errorCodeOf, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment({ env: { PRICE_EXPORT_GB: '1000' } });
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let site: http.Server;
let siteUrl = '';

/** The redesigned shop: the products are now `article.card`, which the Agent's `div.product` does not match. */
const REDESIGNED =
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>New shop</title></head><body>\n' +
  '<main><article class="card"><h2>Product 1</h2><b>$1.25</b></article></main>\n</body></html>\n';
/** A redesigned page of about `bytes` bytes (ASCII). */
const bigPage = (bytes: number) =>
  `<!DOCTYPE html><html><head><title>Big</title></head><body><p>${'x'.repeat(Math.max(0, bytes - 80))}</p></body></html>`;

beforeAll(async () => {
  ({ ctx, org } = env);
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (url.pathname === '/redesigned') return res.end(REDESIGNED);
    if (url.pathname === '/big') return res.end(bigPage(Number(url.searchParams.get('bytes'))));
    res.end('<html><body></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve())));

const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method, url, headers: auth(org.apiKey), ...(payload !== undefined ? { payload } : {}) });

const list = { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] };

interface RunFile {
  id: number;
  name: string;
  fileType: string;
  fileSize: number;
}

async function runOf(definition: Record<string, unknown>) {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, { list, ...definition });
  const start = await call('POST', `/api/v1/agent/${agent.id}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id, undefined, 60_000);
  const files = (await call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json() as RunFile[];
  const diagnostics = (await call('GET', `/api/v1/analytics/agents/${agent.id}/runs/${run.id}/diagnostics`)).json();
  const download = async (file: RunFile) =>
    call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/file/${file.id}/download`);
  return { agentId: agent.id, run, files, diagnostics, download };
}

describe('snapshots of pages that explain an empty result', () => {
  it('a redesigned page leaves an Html snapshot: listed, downloadable as served, named by the diagnosis', async () => {
    const { run, files, diagnostics, download, agentId } = await runOf({ startUrl: `${siteUrl}/redesigned` });
    expect(run.status).toBe(9);
    expect(await errorCodeOf(ctx.app, org.apiKey, agentId, run.id)).toBe('LIST_MATCHED_NOTHING');

    const snapshot = files.find((f) => f.name === 'snapshot-1.html');
    expect(snapshot).toMatchObject({ fileType: 'Html', fileSize: Buffer.byteLength(REDESIGNED) });
    expect(files.map((f) => f.name).sort()).toEqual(['data.csv', 'run.log', 'snapshot-1.html']);
    const res = await download(snapshot!);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe(REDESIGNED);

    expect(diagnostics.evidence.snapshots).toEqual([
      { html: 'snapshot-1.html', url: `${siteUrl}/redesigned`, reason: 'emptyList' },
    ]);
    const finding = (diagnostics.findings as Array<{ rule: string; cause: string }>).find(
      (f) => f.rule === 'pageSnapshots',
    );
    expect(finding?.cause).toContain('snapshot-1.html');
    expect(diagnostics.possibleCauses).toContain(finding?.cause);
  });

  it('a page whose records all miss a required field is kept too', async () => {
    const { run, files, diagnostics } = await runOf({
      startUrl: `${env.site.url}/catalog?page=1`,
      list: { selector: 'div.product', fields: [{ name: 'sku', selector: 'p.sku', required: true }] },
    });
    expect(run.status).toBe(9);
    expect(files.filter((f) => f.fileType === 'Html').map((f) => f.name)).toEqual(['snapshot-1.html']);
    expect(diagnostics.evidence.snapshots).toEqual([
      { html: 'snapshot-1.html', url: `${env.site.url}/catalog?page=1`, reason: 'requiredMissing' },
    ]);
  });

  it(`keeps at most ${MAX_SNAPSHOTS} per Run`, async () => {
    const { run, files, diagnostics } = await runOf({
      startUrl: `${siteUrl}/redesigned?n={{n}}`,
      parameters: [{ name: 'n' }],
      inputs: Array.from({ length: 7 }, (_, i) => ({ n: String(i + 1) })),
    });
    expect(run.status).toBe(9);
    expect(diagnostics.evidence.emptyListPages).toBe(7);
    const snapshots = files.filter((f) => f.fileType === 'Html');
    expect(snapshots).toHaveLength(MAX_SNAPSHOTS);
    expect(snapshots.map((f) => f.name).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `snapshot-${n}.html`));
    expect(diagnostics.evidence.snapshots).toHaveLength(MAX_SNAPSHOTS);
  });

  it('cuts a large page to the size limit', async () => {
    const { files } = await runOf({ startUrl: `${siteUrl}/big?bytes=${SNAPSHOT_HTML_MAX_BYTES + 100_000}` });
    expect(files.find((f) => f.name === 'snapshot-1.html')?.fileSize).toBe(SNAPSHOT_HTML_MAX_BYTES);
  });

  it('counts the snapshot in Export GB like the export', async () => {
    const { run, files } = await runOf({ startUrl: `${siteUrl}/big?bytes=300000` });
    await waitFor(async () => (await ctx.db.run.findUniqueOrThrow({ where: { id: run.id } })).settledAt !== null);
    const snapshot = files.find((f) => f.name === 'snapshot-1.html')!;
    const csv = files.find((f) => f.fileType === 'Csv')!;
    expect(snapshot.fileSize).toBe(Buffer.byteLength(bigPage(300_000)));
    const [line] = await ctx.db.usageRecord.findMany({ where: { runId: run.id, usageType: 'Export GB' } });
    const bytes = new Prisma.Decimal(snapshot.fileSize + csv.fileSize);
    expect(line.quantity.toString()).toBe(bytes.div(1e9).toDecimalPlaces(6, Prisma.Decimal.ROUND_HALF_UP).toString());
  });
});
