// Change tracking (`key`, `changes`) as a user meets it: Agents started through the HTTP API, executed by a
// real worker against a site of their own whose items change between Runs (added, price changed,
// removed), the `_change` rows read from the downloaded CSV and JSON exports, the detail pages counted at
// the site, Runs that do not end Success leaving the Agent's state as it was, and the reset endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { expectProblem } from '../helpers/assertions.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';
import { recordKeyOf, valuesHashOf } from '../../src/engine/index.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;

/** The changing shop: its items, whether its list is down, which detail page fails, and detail hits. */
const shop = {
  items: new Map<string, string>(),
  duplicateFirst: false,
  listDown: false,
  redesigned: false,
  failingDetail: null as string | null,
  detailHits: new Map<string, number>(),
};
let shopUrl = '';
let server: http.Server;

function listPage(): string {
  const rows = [...shop.items].map(
    ([sku, price]) =>
      `<div class="item"><span class="sku">${sku}</span><span class="price">${price}</span><a class="more" href="/detail/${sku}">more</a></div>`,
  );
  if (shop.duplicateFirst && rows.length > 0) rows.push(rows[0]);
  return `<!DOCTYPE html><html><head><title>Shop</title></head><body>${rows.join('\n')}</body></html>`;
}

beforeAll(async () => {
  ({ ctx, org } = env);
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const detail = /^\/detail\/(\w+)$/.exec(path);
    if (detail) {
      // Only detail paths are counted (robots.txt and list pages are not what skipUnchangedDetails saves).
      shop.detailHits.set(detail[1], (shop.detailHits.get(detail[1]) ?? 0) + 1);
      if (detail[1] === shop.failingDetail) return res.writeHead(404).end('gone');
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<html><body><p class="desc">About ${detail[1]}</p></body></html>`);
    }
    if (path === '/list') {
      if (shop.listDown) return res.writeHead(500).end('down');
      res.writeHead(200, { 'content-type': 'text/html' });
      if (shop.redesigned)
        return res.end('<html><body><section class="grid"><h2>A</h2><h2>B</h2></section></body></html>');
      return res.end(listPage());
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = (method: 'GET' | 'POST', url: string, payload?: unknown, key: string | null = org.apiKey) =>
  ctx.app.inject({ method, url, headers: key === null ? {} : auth(key), ...(payload ? { payload } : {}) });

function definition(format: 'csv' | 'json', changes: Record<string, unknown>) {
  return {
    startUrl: `${shopUrl}/list`,
    list: {
      selector: 'div.item',
      fields: [
        { name: 'sku', selector: 'span.sku' },
        { name: 'price', selector: 'span.price' },
      ],
    },
    follow: { selector: 'a.more', fields: [{ name: 'desc', selector: 'p.desc' }] },
    key: ['sku'],
    changes,
    export: { format },
  };
}

/** Starts the Agent, waits for its Run's end; its status, its data file's text and its evidence. */
async function runOf(agentId: number) {
  const started = await call('POST', `/api/v1/agent/${agentId}/start`, {});
  expect(started.statusCode, started.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agentId, started.json().id, undefined, 60_000);
  const files = (await call('GET', `/api/v1/agent/${agentId}/run/${run.id}/files`)).json() as Array<{
    id: number;
    fileType: string;
  }>;
  const data = files.find((f) => f.fileType === 'Csv' || f.fileType === 'Json');
  const text = data ? (await call('GET', `/api/v1/agent/${agentId}/run/${run.id}/file/${data.id}/download`)).body : '';
  const diagnostics = await call('GET', `/api/v1/analytics/agents/${agentId}/runs/${run.id}/diagnostics`);
  return { run, text, evidence: diagnostics.json().evidence as Record<string, unknown> };
}

const sorted = (lines: string[]) => [...lines].sort();
/** The CSV's rows without its header, in a fixed order (the deleted rows stay at the end). */
function csvRows(text: string): string[] {
  const [header, ...rows] = text.split('\r\n').filter((l) => l.length > 0);
  expect(header).toBe('sku,price,desc,_change');
  const deleted = rows.filter((r) => r.endsWith(',deleted'));
  return [...sorted(rows.filter((r) => !r.endsWith(',deleted'))), ...deleted];
}
const jsonRows = (text: string) =>
  sorted((JSON.parse(text) as Array<Record<string, unknown>>).map((r) => JSON.stringify(r)));
const row = (sku: string, price: string, change: string) =>
  JSON.stringify({ sku, price, desc: `About ${sku}`, _change: change });
const detailHits = () => Object.fromEntries([...shop.detailHits].sort());

describe('key and changes across the Runs of one Agent', () => {
  let csvAgent: number;
  let jsonAgent: number;

  it('Run 1: every record is new, a duplicate key is exported once and counted', async () => {
    csvAgent = (
      await createAgent(
        ctx.app,
        org.apiKey,
        org.spaceId,
        definition('csv', { export: 'all', trackDeletes: true, skipUnchangedDetails: true }),
      )
    ).id;
    jsonAgent = (
      await createAgent(ctx.app, org.apiKey, org.spaceId, definition('json', { export: 'changed', trackDeletes: true }))
    ).id;
    shop.items = new Map([
      ['A', '1.00'],
      ['B', '2.00'],
      ['C', '3.00'],
    ]);
    shop.duplicateFirst = true;
    const csv = await runOf(csvAgent);
    expect(csv.run.status).toBe(10);
    expect(csvRows(csv.text)).toEqual(['A,1.00,About A,new', 'B,2.00,About B,new', 'C,3.00,About C,new']);
    expect(csv.evidence.duplicateRecords).toBe(1);
    const json = await runOf(jsonAgent);
    expect(json.run.status).toBe(10);
    expect(jsonRows(json.text)).toEqual([row('A', '1.00', 'new'), row('B', '2.00', 'new'), row('C', '3.00', 'new')]);
    expect(json.evidence.duplicateRecords).toBe(1);
  });

  it('a Failure and a Completed Run in between change nothing the Agent remembers', async () => {
    // The shop changes: D added, B's price changed, C removed.
    shop.duplicateFirst = false;
    shop.items = new Map([
      ['A', '1.00'],
      ['B', '2.50'],
      ['D', '4.00'],
    ]);
    shop.listDown = true;
    const failed = await runOf(csvAgent);
    expect(failed.run.status).toBe(6);
    shop.listDown = false;
    // A detail page that fails: the Run exports (and stages) its records, then ends Completed.
    shop.failingDetail = 'D';
    const completed = await runOf(csvAgent);
    expect(completed.run.status).toBe(9);
    expect(csvRows(completed.text)).toEqual([
      'A,1.00,About A,unchanged',
      'B,2.50,About B,updated',
      'D,4.00,,new',
      'C,3.00,About C,deleted',
    ]);
    const completedJson = await runOf(jsonAgent);
    expect(completedJson.run.status).toBe(9);
    shop.failingDetail = null;
  });

  it('Run 2: unchanged, updated, new and deleted rows; the unchanged key’s detail page is not fetched', async () => {
    shop.detailHits.clear();
    const csv = await runOf(csvAgent);
    expect(csv.run.status).toBe(10);
    expect(csvRows(csv.text)).toEqual([
      'A,1.00,About A,unchanged',
      'B,2.50,About B,updated',
      'D,4.00,About D,new',
      'C,3.00,About C,deleted',
    ]);
    // A's list values are unchanged: its detail page is not fetched (and not billed: no page, no traffic).
    expect(detailHits()).toEqual({ B: 1, D: 1 });
    expect(csv.evidence.skippedDetailPages).toBe(1);
    // The deleted row counts as an exported record.
    expect(csv.run.recordsExported).toBe(4);

    shop.detailHits.clear();
    const json = await runOf(jsonAgent);
    expect(json.run.status).toBe(10);
    // export 'changed': the unchanged A is left out; the deleted C is appended.
    expect(jsonRows(json.text)).toEqual(
      sorted([row('B', '2.50', 'updated'), row('D', '4.00', 'new'), row('C', '3.00', 'deleted')]),
    );
    // Without skipUnchangedDetails every detail page is fetched.
    expect(detailHits()).toEqual({ A: 1, B: 1, D: 1 });
  });

  it('Run 3: nothing changed, nothing deleted again, no detail page fetched', async () => {
    shop.detailHits.clear();
    const csv = await runOf(csvAgent);
    expect(csv.run.status).toBe(10);
    expect(csvRows(csv.text)).toEqual([
      'A,1.00,About A,unchanged',
      'B,2.50,About B,unchanged',
      'D,4.00,About D,unchanged',
    ]);
    expect(detailHits()).toEqual({});
    expect(csv.evidence.skippedDetailPages).toBe(3);
    const json = await runOf(jsonAgent);
    expect(json.run.status).toBe(10);
    expect(json.text).toBe('[]\n');
  });

  it('a redesigned list (it matches nothing) reports no key deleted, and the Agent still remembers them all', async () => {
    shop.redesigned = true;
    const redesigned = await runOf(csvAgent);
    shop.redesigned = false;
    expect(redesigned.run.status).toBe(9);
    // Not "every product deleted": the Run did not see the list, so it cannot tell.
    expect(redesigned.text).toBe('sku,price,desc,_change\r\n');
    expect(redesigned.run.recordsExported).toBe(0);
    const log = await call('GET', `/api/v1/agent/${csvAgent}/run/${redesigned.run.id}/log`);
    expect(log.body).toContain(
      'No record is reported deleted: this Run did not see every record (1 list page(s) matched nothing)',
    );
    shop.detailHits.clear();
    const after = await runOf(csvAgent);
    expect(csvRows(after.text)).toEqual([
      'A,1.00,About A,unchanged',
      'B,2.50,About B,unchanged',
      'D,4.00,About D,unchanged',
    ]);
  });

  it('reset: 200 with the keys forgotten, and the next Run finds every record new', async () => {
    const res = await call('POST', `/api/v1/agent/${csvAgent}/changes/reset`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ agentId: csvAgent, forgottenKeys: 3 });
    shop.detailHits.clear();
    const csv = await runOf(csvAgent);
    expect(csvRows(csv.text)).toEqual(['A,1.00,About A,new', 'B,2.50,About B,new', 'D,4.00,About D,new']);
    expect(detailHits()).toEqual({ A: 1, B: 1, D: 1 });
  });

  it('what a Run staged is the Agent’s state after its end, with no later Run; a reset straight after an end forgets it', async () => {
    const own = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      definition('csv', { export: 'changed', trackDeletes: true }),
      'Merged',
    );
    const first = await runOf(own.id);
    expect(first.run.status).toBe(10);
    // The worker merges after the Run's end: the keys are remembered, the Run's staging rows are gone.
    await waitFor(async () => {
      const [n] = await ctx.db.$queryRaw<Array<{ n: bigint }>>`
        SELECT count(*) AS n FROM "AgentRecordState" WHERE "agentId" = ${own.id}`;
      return n.n === 3n;
    }, 10_000);
    const [left] = await ctx.db.$queryRaw<Array<{ tracking: bigint; stage: bigint }>>`
      SELECT (SELECT count(*) FROM "RunChangeTracking" WHERE "runId" = ${first.run.id}) AS tracking,
        (SELECT count(*) FROM "RunChangeStage" WHERE "runId" = ${first.run.id}) AS stage`;
    expect(left).toEqual({ tracking: 0n, stage: 0n });

    // A reset as soon as the Run reads as ended counts and forgets its keys, merged or not yet.
    const second = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      definition('csv', { export: 'changed', trackDeletes: true }),
      'Reset',
    );
    expect((await runOf(second.id)).run.status).toBe(10);
    const res = await call('POST', `/api/v1/agent/${second.id}/changes/reset`);
    expect(res.json()).toEqual({ agentId: second.id, forgottenKeys: 3 });
    const after = await runOf(second.id);
    expect(csvRows(after.text)).toEqual(['A,1.00,About A,new', 'B,2.50,About B,new', 'D,4.00,About D,new']);
  });

  it('a merge the worker never made (it stopped after the Run’s end) is made by the Agent’s next Run first', async () => {
    const own = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      definition('csv', { export: 'changed', trackDeletes: true }),
      'Merge left over',
    );
    const first = await runOf(own.id);
    expect(first.run.status).toBe(10);
    await waitFor(async () => {
      const [n] = await ctx.db.$queryRaw<Array<{ n: bigint }>>`
        SELECT count(*) AS n FROM "RunChangeTracking" WHERE "runId" = ${first.run.id}`;
      return n.n === 0n;
    }, 10_000);
    // As a worker killed between a Run's end and its merge leaves it: the Run marked succeeded, its
    // staged record (a key Z the shop no longer lists) and the keys it saw not in the Agent's state yet.
    const z = { sku: 'Z', price: '9.00', desc: 'About Z' };
    await ctx.db.$executeRaw`
      INSERT INTO "RunChangeTracking" ("runId", "agentId", "trackDeletes", succeeded)
      VALUES (${first.run.id}, ${own.id}, true, true)`;
    await ctx.db.$executeRaw`
      INSERT INTO "RunChangeStage" ("runId", batch, keys, "valuesHashes", "listHashes", "values")
      VALUES (${first.run.id}, 1, ${recordKeyOf(z, ['sku'])}, ${valuesHashOf(z, ['price', 'desc'])},
        ${valuesHashOf(z, ['price'])}, ${JSON.stringify(z)})`;
    const seen = ['A', 'B', 'D', 'Z'].map((sku) => recordKeyOf({ sku }, ['sku'])!);
    await ctx.db.$executeRaw`
      INSERT INTO "RunChangeSeen" ("runId", batch, keys) VALUES (${first.run.id}, 1, ${seen})`;
    // The next Run merges it before it compares: Z is known, not listed any more, so it is deleted.
    const next = await runOf(own.id);
    expect(next.run.status).toBe(10);
    expect(csvRows(next.text)).toEqual(['Z,9.00,About Z,deleted']);
  });

  it('reset: 404 for an unknown Agent or one of another organization, 401 without credentials', async () => {
    expectProblem(await call('POST', '/api/v1/agent/999999/changes/reset'), 404, 'NOT_FOUND');
    const other = await ctx.bootstrap();
    expectProblem(
      await call('POST', `/api/v1/agent/${csvAgent}/changes/reset`, undefined, other.apiKey),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await call('POST', `/api/v1/agent/${csvAgent}/changes/reset`, undefined, null),
      401,
      'UNAUTHENTICATED',
    );
  });
  it('a synchronous start answers the records as exported: one per key, marked, deleted rows included', async () => {
    const agentId = (
      await createAgent(ctx.app, org.apiKey, org.spaceId, definition('json', { export: 'changed', trackDeletes: true }))
    ).id;
    const start = async () => {
      const res = await call('POST', `/api/v1/agent/${agentId}/start`, { isRunSynchronously: true, timeout: 60 });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as Array<Record<string, unknown>>).sort((a, b) =>
        `${a._change}${a.sku}` < `${b._change}${b.sku}` ? -1 : 1,
      );
    };
    const record = (sku: string, price: string, change: string) => ({
      sku,
      price,
      desc: `About ${sku}`,
      _change: change,
    });
    shop.duplicateFirst = true;
    expect(await start()).toEqual([record('A', '1.00', 'new'), record('B', '2.50', 'new'), record('D', '4.00', 'new')]);
    shop.duplicateFirst = false;
    shop.items = new Map([
      ['A', '1.00'],
      ['B', '2.75'],
    ]);
    // export 'changed': the unchanged A is left out, as in the data file.
    const second = await start();
    expect(second).toEqual([record('D', '4.00', 'deleted'), record('B', '2.75', 'updated')]);
    // A deleted row has its fields in the definition's order, as an extracted record does.
    expect(second.map((r) => Object.keys(r))).toEqual([
      ['sku', 'price', 'desc', '_change'],
      ['sku', 'price', 'desc', '_change'],
    ]);
  });
});

describe('save-time problems of key and changes', () => {
  const save = (extra: Record<string, unknown>) =>
    call('POST', '/api/v1/agent', {
      name: 'bad',
      spaceId: org.spaceId,
      definition: { startUrl: 'https://a.example/', list: { selector: 'li', fields: [{ name: 'sku' }] }, ...extra },
    });
  const expect400 = async (extra: Record<string, unknown>, message: RegExp) => {
    const res = await save(extra);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION_FAILED',
      message: expect.stringMatching(message),
    });
  };

  it('changes without key', () =>
    expect400({ changes: { export: 'new', trackDeletes: false } }, /definition\.changes: needs key/));
  it('a key naming no field', () =>
    expect400({ key: ['sku', 'ean'] }, /definition\.key\[1\]: 'ean' is not the name of a field/));
  it('skipUnchangedDetails without follow', () =>
    expect400(
      { key: ['sku'], changes: { export: 'all', trackDeletes: false, skipUnchangedDetails: true } },
      /definition\.changes\.skipUnchangedDetails: applies only when the definition has follow/,
    ));
  it('an unknown export mode', () =>
    expect400(
      { key: ['sku'], changes: { export: 'some', trackDeletes: false } },
      /definition\.changes\.export: Expected union value/,
    ));
  it('a valid key and changes are saved', async () => {
    const res = await save({ key: ['sku'], changes: { export: 'new', trackDeletes: false } });
    expect(res.statusCode, res.body).toBe(201);
  });
});
