// Change tracking's cost: one Run of 10,000 records (10 list pages of 1,000) of an Agent that remembers
// 1,000,000 record keys, side by side with the same Run of an Agent without `key`/`changes`; the Run's
// time from its creation to its end (as the service records them), how long after its end the worker had
// merged what the Run staged into the Agent's state (work of the worker's, off the Run's time), and the
// peak RSS (VmHWM) of the worker and of its run process, and the CPU time the worker, its run processes
// and PostgreSQL used during each Run (medians: up to its end, the merge after it not included).
// The 1,000,000 keys are seeded with SQL: the Run's own 10,000 keys with their real hashes (half of them
// with other values, so the Run finds them updated; put back before each measured Run) and 990,000 others.
// Rounds alternate the two Agents.
//
//   npm run bench -- changes
//   BENCH_CHANGES_KEYS=1000000 BENCH_CHANGES_RECORDS=10000 BENCH_CHANGES_ROUNDS=60 npm run bench -- changes
//   BENCH_CHANGES_PAGE_DELAY_MS=200 npm run bench -- changes     (each list page answered 200 ms later)
//   BENCH_CHANGES_PER_PAGE=100 npm run bench -- changes          (a hundred list pages of 100 records)
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { recordKeyOf, valuesHashOf } from '../src/engine/index.js';
import { Prisma } from '../src/generated/prisma/client.js';
import { TERMINAL_STATUSES } from '../src/services/runs/status-machine.js';
import {
  benchOrganization,
  createBenchEnvironment,
  fmt,
  installSignalCleanup,
  machineSummary,
  note,
  onCleanup,
  print,
  processTreeCpuMs,
  runCleanups,
  serviceCpuSince,
  serviceCpuSnapshot,
  sleep,
  startWorkerProcess,
  table,
} from './helpers.js';

async function startSite(pages: number, perPage: number, delayMs: number) {
  const item = (n: number) =>
    `<div class="p"><span class="sku">SKU-${n}</span><a class="t" href="/item/${n}">Product ${n}</a><span class="price">${(n % 997) + 0.99}</span></div>`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const page = Number(url.searchParams.get('page') ?? '1');
    const first = (page - 1) * perPage + 1;
    const body: string[] = ['<html><body>'];
    for (let i = 0; i < perPage; i++) body.push(item(first + i));
    if (page < pages) body.push(`<a class="next" href="/list?page=${page + 1}">next</a>`);
    body.push('</body></html>');
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body.join('\n'));
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onCleanup('changes site', () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

function vmHwm(pid: number): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

interface Cpu {
  worker: number;
  runProcess: number;
  postgres: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchChanges() {
  installSignalCleanup();
  const keys = Number(process.env.BENCH_CHANGES_KEYS ?? 1_000_000);
  const records = Number(process.env.BENCH_CHANGES_RECORDS ?? 10_000);
  // 40 rounds by default: a Run's time scatters by about a quarter from round to round on a 2-core
  // machine, and 15 rounds' medians moved the overhead by about 8 points between invocations.
  const rounds = Number(process.env.BENCH_CHANGES_ROUNDS ?? 40);
  // BENCH_CHANGES_PER_PAGE: records per list page (1,000 by default: ten pages for 10,000 records).
  const perPage = Number(process.env.BENCH_CHANGES_PER_PAGE ?? 1000);
  const pages = Math.ceil(records / perPage);
  const bench = await createBenchEnvironment({
    RUN_WORKER_CONCURRENCY: '1',
    RUN_TIMEOUT_SECONDS: '3600',
    // The machine may be busy: the API must not shed the bench's own requests.
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  // BENCH_CHANGES_PAGE_DELAY_MS: each list page answered that much later, as a real site's catalog page
  // takes time to make; 0 (the default) is the worst case for change tracking, a crawl bound by CPU alone.
  const pageDelayMs = Number(process.env.BENCH_CHANGES_PAGE_DELAY_MS ?? 0);
  const siteUrl = await startSite(pages, perPage, pageDelayMs);
  const app = await buildApp(bench.config, { logger: false });
  await app.ready();
  onCleanup('app', () => app.close());
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  onCleanup('db', () => db.$disconnect());
  const org = await benchOrganization(db);
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: org.headers, ...(payload ? { payload } : {}) });
  const plain = {
    startUrl: `${siteUrl}/list?page=1`,
    list: {
      selector: 'div.p',
      fields: [
        { name: 'sku', selector: 'span.sku' },
        { name: 'title', selector: 'a.t' },
        { name: 'price', selector: 'span.price' },
      ],
    },
    next: { selector: 'a.next', maxPages: pages },
    export: { format: 'csv' },
  };
  const tracked = { ...plain, key: ['sku'], changes: { export: 'changed', trackDeletes: false } };
  const agent = async (name: string, definition: object) => {
    const res = await inject('POST', '/api/v1/agent', { name, spaceId: org.spaceId, definition });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json().id as number;
  };
  const plainId = await agent('Without changes', plain);
  const trackedId = await agent('With changes', tracked);

  // The worker first: on a busy machine its start competes with nothing else then.
  const worker = await startWorkerProcess(bench.env);
  note(`changes: seeding ${keys} known keys of Agent ${trackedId}...`);
  const seeded = Date.now();
  const own = Math.min(records, keys);
  const ownKeys: string[] = [];
  const ownValues: string[] = [];
  const ownLists: string[] = [];
  const ownJson: string[] = [];
  for (let n = 1; n <= own; n++) {
    const record = { sku: `SKU-${n}`, title: `Product ${n}`, price: String((n % 997) + 0.99) };
    const seen = n % 2 === 0 ? record : { ...record, price: '0.00' };
    ownKeys.push(recordKeyOf(record, ['sku'])!);
    ownValues.push(valuesHashOf(seen, ['title', 'price']));
    ownLists.push(valuesHashOf(seen, ['title', 'price']));
    ownJson.push(JSON.stringify(seen));
  }
  await db.$executeRaw(Prisma.sql`
    INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "changedRunId")
    SELECT ${trackedId}::int, k, v, l, j::jsonb, 0, 0
    FROM unnest(${ownKeys}::text[], ${ownValues}::text[], ${ownLists}::text[], ${ownJson}::text[]) AS t(k, v, l, j)`);
  await db.$executeRaw(Prisma.sql`
    INSERT INTO "AgentRecordState" ("agentId", "keyHash", "valuesHash", "listHash", "values", "firstRunId", "changedRunId")
    SELECT ${trackedId}::int, 'seed-' || g, md5(g::text), md5(g::text),
      jsonb_build_object('sku', 'OLD-' || g, 'title', 'Old product ' || g, 'price', '1.99'), 0, 0
    FROM generate_series(1, ${keys - own}::int) g`);
  await db.$executeRaw(Prisma.sql`VACUUM ANALYZE "AgentRecordState"`);
  // The seeding dirtied a few hundred MB of pages: written out now, not by the checkpointer during the
  // measured Runs (it made their times vary by a third between runs of the bench).
  await db.$executeRaw(Prisma.sql`CHECKPOINT`).catch(() => note('changes: CHECKPOINT not allowed; measuring anyway'));
  note(`changes: seeded in ${fmt((Date.now() - seeded) / 1000)} s`);
  // Every measured Run meets the same state: half of its keys with other values (so it finds them updated,
  // stages and merges them), half unchanged. A Run that ends Success makes the state current, so the seeded
  // values of the Run's own keys are put back before each round (not timed).
  const restoreOwnKeys = () =>
    db.$executeRaw(Prisma.sql`
      UPDATE "AgentRecordState" st SET "valuesHash" = t.v, "listHash" = t.l, "values" = t.j::jsonb
      FROM unnest(${ownKeys}::text[], ${ownValues}::text[], ${ownLists}::text[], ${ownJson}::text[]) AS t(k, v, l, j)
      WHERE st."agentId" = ${trackedId}::int AND st."keyHash" = t.k`);

  /**
   * CPU time (ms) used so far by the worker and its run processes (from /proc), and a snapshot of the
   * PostgreSQL processes': on this machine's two cores the Run's extra work competes with the crawl, so it is
   * shown where it goes.
   */
  const cpuNow = () => {
    const tree = processTreeCpuMs(worker.pid);
    return { worker: tree.own, runProcess: tree.children, services: serviceCpuSnapshot() };
  };
  const cpuSince = (before: ReturnType<typeof cpuNow>): Cpu => {
    const now = processTreeCpuMs(worker.pid);
    return {
      worker: now.own - before.worker,
      runProcess: now.children - before.runProcess,
      postgres: serviceCpuSince(before.services).postgres,
    };
  };
  const runOnce = async (agentId: number) => {
    const cpuBefore = cpuNow();
    const started = Date.now();
    const runId = (await inject('POST', `/api/v1/agent/${agentId}/start`, {})).json().id;
    let childPeak = 0;
    for (;;) {
      for (const pid of childPids(worker.pid)) childPeak = Math.max(childPeak, vmHwm(pid));
      const run = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/status`)).json();
      if ((TERMINAL_STATUSES as readonly number[]).includes(run.status)) {
        const polled = (Date.now() - started) / 1000;
        // The Run's time as the service recorded it, from its creation (the start request) to its end: to
        // the millisecond, where the polling above rounds up to its next 20 ms (8 % of a quarter second).
        const seconds = (Date.parse(run.endTime) - Date.parse(run.created)) / 1000;
        const cpu = cpuSince(cpuBefore);
        // What the Run staged is merged into the Agent's state after its end, by the worker: how long after.
        for (;;) {
          const left = await db.$queryRaw<unknown[]>(
            Prisma.sql`SELECT 1 FROM "RunChangeTracking" WHERE "runId" = ${runId}::int`,
          );
          if (left.length === 0) break;
          await sleep(5);
        }
        const merged = (Date.now() - started) / 1000 - polled;
        return { seconds, merged, status: run.status, exported: run.recordsExported, childPeak, cpu };
      }
      // Polled often: a Run of a third of a second must not be rounded up to the next 100 ms.
      await sleep(20);
    }
  };

  // A warm-up Run of each (the first Run of a worker pays for loading its run process's modules).
  await runOnce(plainId);
  await runOnce(trackedId);
  let updated = 0;
  const results: Record<'plain' | 'tracked', Array<Awaited<ReturnType<typeof runOnce>>>> = { plain: [], tracked: [] };
  for (let i = 0; i < rounds; i++) {
    note(`changes: round ${i + 1} of ${rounds}...`);
    updated = await restoreOwnKeys();
    // The rows just put back (and those the last Run's merge changed) are settled before either Run, as an
    // Agent's state is when its next Run comes: their dead versions vacuumed and their pages written out,
    // not left for the measured Runs (the tracked one reads those rows first) to clean up and flush.
    await db.$executeRaw(Prisma.sql`VACUUM "AgentRecordState"`);
    await db.$executeRaw(Prisma.sql`CHECKPOINT`).catch(() => {});
    results.plain.push(await runOnce(plainId));
    results.tracked.push(await runOnce(trackedId));
  }
  const state = await db.$queryRaw<Array<{ n: bigint }>>(
    Prisma.sql`SELECT count(*) AS n FROM "AgentRecordState" WHERE "agentId" = ${trackedId}::int`,
  );
  const workerPeak = vmHwm(worker.pid);
  await worker.stop();

  const row = (label: string, rs: Array<Awaited<ReturnType<typeof runOnce>>>) => [
    label,
    rs.map((r) => r.status).join(' '),
    rs.map((r) => r.exported).join(' '),
    rs.map((r) => fmt(r.seconds, 2)).join(' '),
    fmt(median(rs.map((r) => r.seconds)), 2),
    fmt(median(rs.map((r) => r.merged)), 2),
    fmt(Math.max(...rs.map((r) => r.childPeak))),
    fmt(median(rs.map((r) => r.cpu.runProcess))),
    fmt(median(rs.map((r) => r.cpu.worker))),
    fmt(median(rs.map((r) => r.cpu.postgres))),
  ];
  const plainMedian = median(results.plain.map((r) => r.seconds));
  const trackedMedian = median(results.tracked.map((r) => r.seconds));
  print(
    table(
      `Change tracking: a ${records}-record Run, ${keys} known keys, ${rounds} rounds, ${pages} list pages of ${perPage} records answered after ${pageDelayMs} ms (${machineSummary()})`,
      [
        'agent',
        'statuses',
        'exported',
        'seconds',
        'medianSeconds',
        'mergedAfterEndSeconds',
        'runProcessPeakMB',
        'runProcessCpuMs',
        'workerCpuMs',
        'postgresCpuMs',
      ],
      [row('without changes', results.plain), row(`changes, ${keys} keys`, results.tracked)],
    ),
  );
  const overhead = (trackedMedian / plainMedian - 1) * 100;
  // Each round's tracked Run against the plain Run just before it: the two share the machine's speed of
  // that moment (a 2-core VM's speed drifts from one minute to the next), so the middle of these ratios is
  // steadier than the ratio of the two medians.
  const paired = results.tracked.map((r, i) => (r.seconds / results.plain[i].seconds - 1) * 100).sort((a, b) => a - b);
  const quartile = (q: number) => paired[Math.min(paired.length - 1, Math.floor(q * paired.length))];
  print(
    `\nOverhead of change tracking: ${fmt(overhead)} % of the Run's time (limit 20 %); ` +
      `paired rounds: median ${fmt(median(paired))} %, quartiles ${fmt(quartile(0.25))} to ${fmt(quartile(0.75))} %; ` +
      `worker peak RSS ${fmt(workerPeak)} MB over all Runs; keys remembered after the Runs: ${state[0]?.n}; ` +
      `before each measured Run ${updated} of its keys were put back to the seeded values (half of them differ).`,
  );
  await runCleanups();
  return { results, overhead, workerPeak };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchChanges().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
