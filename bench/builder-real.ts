// Agent Builder on real pages: pages other people saved from real sites and published (see
// bench/builder-real/manifest.json for each page's source), served byte for byte on 127.0.0.1, each
// with a plain-language prompt and records written by hand. Drives the real HTTP API end to end as a
// user would: a listening server, a worker process, POST /agent-builder/start, events until ready,
// POST /finish, then a synchronous Run of the new Agent. Prints per page the field accuracy, the
// record recall and the time to ready, then the totals of the tuning and the holdout pages side by
// side (bench/builder-real/split.ts says which site is which; the holdout's figures are the ones that
// count, as the Builder is developed on the tuning pages only).
//
//   npm run bench -- builder-real
//   BENCH_BUILDER_REAL_ONLY=id,id npm run bench -- builder-real       (some pages)
//   BENCH_BUILDER_REAL_SPLIT=tuning npm run bench -- builder-real     (one split)
//   BENCH_BUILDER_REAL_CLASSES=renamed npm run bench -- builder-real  (every class name and id replaced by a
//                                          made-up word; =hashed: by a generated-looking name; see corpus.ts)
//   BUILDER_LLM_URL=http://127.0.0.1:8080/v1 BUILDER_LLM_MODEL=name npm run bench -- builder-real
//                                          (the optional LLM step; each page's note says what it did)
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import {
  benchOrganization,
  createBenchEnvironment,
  fmt,
  machineSummary,
  median,
  note,
  onCleanup,
  print,
  startWorkerProcess,
  table,
} from './helpers.js';
import { loadManifest, pageFile, servePages, type ClassNames } from './builder-real/corpus.js';
import { namesOf, scorePage, type RealPage } from './builder-real/score.js';

interface Api {
  call(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }>;
}

function api(base: string, apiKey: string): Api {
  return {
    async call(method, url, body) {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: {
          authorization: `ApiKey ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: text === '' ? null : JSON.parse(text) };
    },
  };
}

interface BuilderEvent {
  index: number;
  type: string;
  message: string;
  created: string;
}

/** Long-polls the session's events until it is ready or failed. */
async function untilSettled(client: Api, sessionId: string): Promise<{ status: string; events: BuilderEvent[] }> {
  const events: BuilderEvent[] = [];
  const deadline = Date.now() + 600_000;
  for (;;) {
    const last = events.at(-1)?.index ?? 0;
    const res = await client.call('GET', `/api/v1/agent-builder/${sessionId}/events?lastEventIndex=${last}`);
    if (res.status !== 200) throw new Error(`events: HTTP ${res.status} ${JSON.stringify(res.json)}`);
    events.push(...res.json.events);
    if (
      ['ready', 'error', 'cancelled'].includes(res.json.status) &&
      events.some((e) => ['ready', 'error'].includes(e.type))
    ) {
      return { status: res.json.status, events };
    }
    if (Date.now() > deadline)
      throw new Error(`session ${sessionId} did not settle: ${events.map((e) => e.type).join(',')}`);
  }
}

export async function benchBuilderReal(): Promise<void> {
  const only = process.env.BENCH_BUILDER_REAL_ONLY?.split(',');
  const split = process.env.BENCH_BUILDER_REAL_SPLIT;
  const pages = loadManifest().filter((p) => (!only || only.includes(p.id)) && (!split || p.split === split));
  const asked = process.env.BENCH_BUILDER_REAL_CLASSES;
  const classNames: ClassNames = asked === 'hashed' || asked === 'renamed' ? asked : 'kept';
  const site = await servePages(pages, { classNames });
  onCleanup('real pages site', () => site.close());
  // Not shed under a busy machine: the figures are about the builder, not the load shedder.
  const bench = await createBenchEnvironment({ LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
  const app = await buildApp(bench.config, { logger: false });
  onCleanup('app', () => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  await startWorkerProcess(bench.env);
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  onCleanup('bench db client', () => db.$disconnect());
  const org = await benchOrganization(db);
  const client = api(base, org.apiKey);

  const rows: Array<Array<string | number>> = [];
  const scores: PageScore[] = [];
  for (const page of pages) {
    note(`builder-real: ${page.id}`);
    const t0 = performance.now();
    const start = await client.call('POST', '/api/v1/agent-builder/start', {
      prompt: page.prompt,
      url: `${site.url}/${page.id}/`,
      spaceId: org.spaceId,
    });
    if (start.status !== 201) throw new Error(`start: HTTP ${start.status} ${JSON.stringify(start.json)}`);
    const sessionId = start.json.sessionId as string;
    const settled = await untilSettled(client, sessionId);
    const readyMs = performance.now() - t0;
    let records: Array<Record<string, unknown>> = [];
    let draftFields: string[] = [];
    if (settled.status === 'ready') {
      const session = (await client.call('GET', `/api/v1/agent-builder/${sessionId}`)).json;
      draftFields = [...(session.draft?.list?.fields ?? []), ...(session.draft?.follow?.fields ?? [])].map(
        (f: { name: string }) => f.name,
      );
      const finish = await client.call('POST', `/api/v1/agent-builder/${sessionId}/finish`, {
        name: `Real ${page.id}`,
      });
      if (finish.status !== 201) throw new Error(`finish: HTTP ${finish.status} ${JSON.stringify(finish.json)}`);
      const run = await client.call('POST', `/api/v1/agent/${finish.json.id}/start`, {
        isRunSynchronously: true,
        timeout: 120,
      });
      if (run.status === 200 && Array.isArray(run.json)) records = run.json;
      else note(`builder-real: ${page.id}: run answered HTTP ${run.status}`);
    } else note(`builder-real: ${page.id}: ${settled.events.at(-1)?.message ?? settled.status}`);
    // With BUILDER_LLM_URL set (the worker inherits it), whether the model's suggestion was used and why not.
    const llm = settled.events.filter((e) => e.type === 'llm').at(-1);
    if (llm) note(`builder-real: ${page.id}: ${llm.message}`);
    const score = scorePage(page, records, site.url);
    const asked = Object.keys(page.expected[0] ?? {});
    const inDraft = asked.filter((f) => namesOf(page, f).some((n) => draftFields.includes(n)));
    const missingReported = asked.filter(
      (f) =>
        !inDraft.includes(f) &&
        settled.events.some((e) =>
          namesOf(page, f).some((n) => e.message.toLowerCase().includes(n.replace(/_/g, ' '))),
        ),
    );
    scores.push({
      page,
      accuracy: score.fieldAccuracy,
      recall: score.recordRecall,
      readyMs,
      steps: stepTimes(settled.events),
    });
    rows.push([
      page.id,
      page.split,
      page.kind,
      `${page.language.page}/${page.language.prompt}`,
      fmt(fs.statSync(pageFile(page)).size / 1024, 0),
      fmt(readyMs / 1000, 2),
      `${inDraft.length}/${asked.length}${missingReported.length ? ` (+${missingReported.length} reported)` : ''}`,
      `${page.count}/${records.length}`,
      fmt(score.fieldAccuracy, 2),
      fmt(score.recordRecall, 2),
    ]);
  }
  print(
    table(
      `Agent Builder on ${pages.length} real pages${classNames === 'kept' ? '' : `, class names and ids ${classNames}`} (${machineSummary()})`,
      [
        'page',
        'split',
        'kind',
        'language page/prompt',
        'KB',
        'ready s',
        'asked fields in draft',
        'expected/extracted records',
        'field accuracy',
        'record recall',
      ],
      rows,
    ),
  );
  print(splitSummary(scores, classNames));
}

interface PageScore {
  page: RealPage;
  accuracy: number;
  recall: number;
  readyMs: number;
  /** Seconds from each event to the next, by the later event's type ("rendered 2.10, preview 0.40"). */
  steps: string;
}

/** Where a session's time went: the seconds before each event since the one before it. */
function stepTimes(events: BuilderEvent[]): string {
  return events
    .slice(1)
    .map((e, i) => `${e.type} ${fmt((Date.parse(e.created) - Date.parse(events[i].created)) / 1000, 2)}`)
    .join(', ');
}

/** Mean field accuracy, pages at 0.9, record recall and time to ready, tuning and holdout side by side. */
function splitSummary(scores: PageScore[], classNames: ClassNames): string {
  const splits = ['tuning', 'holdout'] as const;
  const of = splits.map((s) => scores.filter((x) => x.page.split === s));
  const cell = (f: (xs: PageScore[]) => string) => of.map((xs) => (xs.length === 0 ? '-' : f(xs)));
  const mean = (ns: number[]) => ns.reduce((a, b) => a + b, 0) / Math.max(1, ns.length);
  const lists = (xs: PageScore[]) => xs.filter((x) => x.page.count > 1);
  return table(
    `Agent Builder on the real pages${classNames === 'kept' ? '' : ` with class names and ids ${classNames}`}: tuning and holdout (the holdout figures are the ones that count)`,
    ['measure', ...splits],
    [
      ['pages (sites)', ...cell((xs) => `${xs.length} (${new Set(xs.map((x) => x.page.site)).size})`)],
      ['mean field accuracy', ...cell((xs) => fmt(mean(xs.map((x) => x.accuracy)), 2))],
      ['pages at 0.9 or better', ...cell((xs) => `${xs.filter((x) => x.accuracy >= 0.9).length}/${xs.length}`)],
      ['mean record recall, list pages', ...cell((xs) => fmt(mean(lists(xs).map((x) => x.recall)), 2))],
      [
        'list pages at record recall 0.95',
        ...cell((xs) => `${lists(xs).filter((x) => x.recall >= 0.95).length}/${lists(xs).length}`),
      ],
      ['ready p50 s', ...cell((xs) => fmt(median(xs.map((x) => x.readyMs)) / 1000, 2))],
      ['ready max s', ...cell((xs) => fmt(Math.max(...xs.map((x) => x.readyMs)) / 1000, 2))],
      // Where the slowest page's time went, step by step (no page named: the holdout's pages stay unseen).
      [
        'slowest page, s before each event',
        ...cell((xs) => xs.reduce((a, b) => (b.readyMs > a.readyMs ? b : a)).steps),
      ],
    ],
  );
}
