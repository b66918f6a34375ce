// PostgreSQL drops every connection of the service (as a restart does) while a change-tracking Run is
// crawling, twice: the checkpoint writes and the crawl's key lookups that fail are given up or asked again,
// the pools reconnect, and the Run still ends Success with every record once, marked as the Agent's state
// says, and its checkpoint writes go on after the drops.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { ADMIN_URL } from '../helpers/db.js';
import { waitFor } from '../helpers/process.js';
import { createAgent, startRun, startWorker, waitForRun } from '../helpers/runs.js';

const PAGES = 20;
const PAGE_MS = 150;

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let server: http.Server;
let siteUrl: string;
const hits = new Map<number, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
    hits.set(page, (hits.get(page) ?? 0) + 1);
    const items = Array.from({ length: 10 }, (_, i) => `<div class="item"><b>p${page}-r${i + 1}</b></div>`).join('');
    const next = page < PAGES ? `<a class="next" href="/list?page=${page + 1}">next</a>` : '';
    setTimeout(() => res.end(`<html><body>${items}${next}</body></html>`), PAGE_MS);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx = await createTestContext({ env: { ENGINE_ALLOW_PRIVATE_TARGETS: 'true' } });
  org = await ctx.bootstrap();
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await ctx?.close();
});

/** Ends every connection to the file's database but the caller's (what clients see when PostgreSQL restarts). */
async function dropConnections(): Promise<number> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const res = await admin.query(
      'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [ctx.database.name],
    );
    return Number(res.rows[0].n);
  } finally {
    await admin.end();
  }
}

async function checkpointedPages(runId: number): Promise<number> {
  const rows = await ctx.db.$queryRawUnsafe<Array<{ seq: number }>>(
    'SELECT "recordsSeq" AS seq FROM "RunCheckpoint" WHERE "runId" = $1',
    runId,
  );
  return rows[0]?.seq ?? 0;
}

describe('PostgreSQL drops its connections in the middle of a Run', () => {
  it('the Run ends Success with every record once, and its checkpoints go on after each drop', async () => {
    const worker = await startWorker(ctx.env);
    try {
      const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
        startUrl: `${siteUrl}/list?page=1`,
        list: { selector: 'div.item', fields: [{ name: 'title', selector: 'b' }] },
        next: { selector: 'a.next', maxPages: 100 },
        key: ['title'],
        changes: { export: 'all' },
        export: { format: 'json' },
      });
      const runId = await startRun(ctx.app, org.apiKey, agent.id);

      const seqAtDrop: number[] = [];
      for (const page of [6, 13]) {
        await waitFor(async () => ((hits.get(page) ?? 0) > 0 ? true : null), 60_000, 20);
        seqAtDrop.push(await checkpointedPages(runId));
        expect(await dropConnections()).toBeGreaterThan(0);
        // Checkpoints are written again once the pools have reconnected.
        const before = seqAtDrop[seqAtDrop.length - 1];
        await waitFor(async () => ((await checkpointedPages(runId)) > before ? true : null), 30_000, 50);
      }

      const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 120_000);
      expect(run.status, run.errorMessage).toBe(10);
      expect(run.recordsExtracted).toBe(PAGES * 10);
      expect(run.recordsExported).toBe(PAGES * 10);
      // Every page fetched once: nothing was started again.
      for (let p = 1; p <= PAGES; p++) expect(hits.get(p), `page ${p}`).toBe(1);

      // The records as exported: each title once, all new (the Agent knew none of them).
      const files = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/agent/${agent.id}/run/${runId}/files`,
        headers: auth(org.apiKey),
      });
      const data = (files.json() as Array<{ id: number; fileType: string }>).find((f) => f.fileType === 'Json')!;
      const download = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/agent/${agent.id}/run/${runId}/file/${data.id}/download`,
        headers: auth(org.apiKey),
      });
      const records = download.json() as Array<{ title: string; _change: string }>;
      expect(records).toHaveLength(PAGES * 10);
      expect(new Set(records.map((r) => r.title)).size).toBe(PAGES * 10);
      expect(new Set(records.map((r) => r._change))).toEqual(new Set(['new']));

      // The Agent's state has every key once the worker merged what the Run staged.
      await waitFor(
        async () => {
          const rows = await ctx.db.$queryRawUnsafe<Array<{ n: bigint }>>(
            'SELECT count(*) AS n FROM "AgentRecordState" WHERE "agentId" = $1',
            agent.id,
          );
          return Number(rows[0].n) === PAGES * 10 ? true : null;
        },
        30_000,
        100,
      );
    } finally {
      await worker.stop();
    }
  });
});
