// Parallel Runs: an Agent's `inputs` split into `parallelism` sets run side by
// side; parallelExport Combined writes one data file, Separated one per set. `Separate` is an alias
// and the enum is case-insensitive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, jsonInjector } from '../helpers/app.js';
import { expectBadRequest } from '../helpers/assertions.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { createAgent, startWorker, waitForRun } from '../helpers/runs.js';

let ctx: TestContext;
let site: FixtureSite;
let worker: Awaited<ReturnType<typeof startWorker>>;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let agentId: number;

const QUERIES = ['alpha', 'beta', 'gamma'];

beforeAll(async () => {
  ctx = await createTestContext();
  site = await startFixtureSite();
  worker = await startWorker(ctx.env);
  org = await ctx.bootstrap();
  const agent = await createAgent(
    ctx.app,
    org.apiKey,
    org.spaceId,
    {
      startUrl: `${site.url}/search?q={{q}}`,
      parameters: [{ name: 'q' }],
      inputs: QUERIES.map((q) => ({ q })),
      list: {
        selector: 'div.result',
        fields: [
          { name: 'query', selector: 'span.query' },
          { name: 'n', selector: 'span.n' },
        ],
      },
      export: { format: 'csv' },
    },
    'Three inputs',
  );
  agentId = agent.id;
});
afterAll(async () => {
  await worker?.stop();
  await site?.close();
  await ctx?.close();
});

const inject = jsonInjector(() => ({ app: ctx.app, apiKey: org.apiKey }));

/** CSV of the given queries' results, 3 per query, in order. */
const csvOf = (queries: string[]) =>
  'query,n\r\n' + queries.flatMap((q) => [1, 2, 3].map((n) => `${q},${n}\r\n`)).join('');

async function runWith(body: Record<string, unknown>) {
  const start = await inject('POST', `/api/v1/agent/${agentId}/start`, body);
  expect(start.statusCode, start.body).toBe(202);
  const runId = start.json().id;
  const run = await waitForRun(ctx.app, org.apiKey, agentId, runId, undefined, 20_000);
  const files = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/files`)).json() as Array<{
    id: number;
    name: string;
    fileType: string;
  }>;
  const contents: Record<string, string> = {};
  for (const f of files)
    contents[f.name] = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${f.id}/download`)).body;
  const row = await ctx.db.run.findUniqueOrThrow({ where: { id: runId } });
  return { run, files: files.map((f) => [f.name, f.fileType]), contents, row };
}

describe('parallelism 2 over 3 inputs', () => {
  it('Combined: one data file with all 9 records, sets in order', async () => {
    const { run, files, contents, row } = await runWith({ parallelism: 2, parallelExport: 'Combined' });
    expect(run).toMatchObject({
      status: 10,
      parallelism: 2,
      recordsExtracted: 9,
      recordsExported: 9,
      errorMessage: null,
    });
    expect(files).toEqual([
      ['data.csv', 'Csv'],
      ['run.log', 'Log'],
    ]);
    expect(contents['data.csv']).toBe(csvOf(['alpha', 'beta', 'gamma']));
    expect(row).toMatchObject({
      inputCount: 3,
      pageCount: 3,
      exportCount: 9,
      parallelExport: 'Combined',
      parallelMaxConcurrency: 2,
      errorCount: 0,
    });
    expect(contents['run.log']).toContain('3 input(s), parallelism 2, concurrency 2');
  });

  it('Separated: one file per set, the records split by set (set 1: alpha, beta; set 2: gamma)', async () => {
    const { run, files, contents, row } = await runWith({ parallelism: 2, parallelExport: 'Separated' });
    expect(run).toMatchObject({ status: 10, parallelism: 2, recordsExtracted: 9, recordsExported: 9 });
    expect(files).toEqual([
      ['data-set1.csv', 'Csv'],
      ['data-set2.csv', 'Csv'],
      ['run.log', 'Log'],
    ]);
    expect(contents['data-set1.csv']).toBe(csvOf(['alpha', 'beta']));
    expect(contents['data-set2.csv']).toBe(csvOf(['gamma']));
    expect(row).toMatchObject({ inputCount: 3, pageCount: 3, exportCount: 9, parallelExport: 'Separated' });
  });

  const accepted = async (spelling: string) => {
    const { run, files, contents, row } = await runWith({ Parallelism: 2, ParallelExport: spelling });
    expect(run.status).toBe(10);
    expect(row.parallelExport).toBe('Separated');
    expect(files.map(([name]) => name)).toEqual(['data-set1.csv', 'data-set2.csv', 'run.log']);
    expect(contents['data-set1.csv']).toBe(csvOf(['alpha', 'beta']));
    expect(contents['data-set2.csv']).toBe(csvOf(['gamma']));
  };

  it('accepts parallelExport "separated" (lowercase) as Separated', async () => {
    await accepted('separated');
  });

  it('accepts parallelExport "SEPARATED" as Separated', async () => {
    await accepted('SEPARATED');
  });

  // `Separate` is an alias of `Separated`.
  for (const spelling of ['Separate', 'SEPARATE']) {
    it(`accepts the alias "${spelling}" as Separated`, async () => {
      await accepted(spelling);
    });
  }

  it('accepts "combined" in lowercase, and Combined is the default', async () => {
    const lower = await runWith({ parallelism: 2, parallelExport: 'combined' });
    expect(lower.row.parallelExport).toBe('Combined');
    expect(lower.files.map(([name]) => name)).toEqual(['data.csv', 'run.log']);
    const omitted = await runWith({ parallelism: 2 });
    expect(omitted.row.parallelExport).toBe('Combined');
    expect(omitted.contents['data.csv']).toBe(csvOf(['alpha', 'beta', 'gamma']));
    expect(omitted.row.inputCount).toBe(3);
  });

  it('refuses an unknown parallelExport with 400 VALIDATION_FAILED', async () => {
    expectBadRequest(
      await inject('POST', `/api/v1/agent/${agentId}/start`, { parallelism: 2, parallelExport: 'Split' }),
      'VALIDATION_FAILED',
    );
  });
});

describe('parallelism larger than the inputs', () => {
  it('runs one set per input: Separated gives 3 files of 3 records', async () => {
    const { run, files, contents, row } = await runWith({ parallelism: 4, parallelExport: 'Separated' });
    expect(run).toMatchObject({ status: 10, parallelism: 4, recordsExported: 9 });
    expect(files.map(([name]) => name)).toEqual(['data-set1.csv', 'data-set2.csv', 'data-set3.csv', 'run.log']);
    QUERIES.forEach((q, i) => expect(contents[`data-set${i + 1}.csv`]).toBe(csvOf([q])));
    expect(row.inputCount).toBe(3);
  });
});
