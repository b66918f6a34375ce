// successCriteria through the HTTP API with a real worker: each criterion on each side of its threshold
// (status and errorCode, never the message), failBelow turning a miss into Failure without export
// files, the diagnosis naming the criterion, and the save-time 400s that name the definition path.
import { beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, org } = env));

const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method, url, headers: auth(org.apiKey), ...(payload !== undefined ? { payload } : {}) });

/** The fixture catalog: `pages` list pages of 10 products; every 5th product carries a badge. */
const catalog = (pages: number, successCriteria: Record<string, unknown>) => ({
  startUrl: `${env.site.url}/catalog?page=1`,
  list: {
    selector: 'div.product',
    fields: [
      { name: 'title', selector: 'a.title' },
      { name: 'badge', selector: 'span.badge' },
    ],
  },
  next: { selector: 'a.next', maxPages: pages },
  successCriteria,
});

/** `/links`: three records; the detail pages of two are fetched and one of them answers 403 (1 of 3 pages fails). */
const links = (successCriteria: Record<string, unknown>) => ({
  startUrl: `${env.site.url}/links`,
  list: { selector: 'div.product', fields: [{ name: 'title', selector: '.title' }] },
  follow: { selector: 'a.title', fields: [{ name: 'sku', selector: 'p.sku' }] },
  successCriteria,
});

async function runOf(definition: Record<string, unknown>) {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition);
  const start = await call('POST', `/api/v1/agent/${agent.id}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id, undefined, 60_000);
  const diagnostics = (await call('GET', `/api/v1/analytics/agents/${agent.id}/runs/${run.id}/diagnostics`)).json();
  const files = (await call('GET', `/api/v1/agent/${agent.id}/run/${run.id}/files`)).json() as Array<{
    fileType: string;
  }>;
  return {
    status: run.status as number,
    errorCode: diagnostics.errorCode as string | null,
    rules: (diagnostics.findings as Array<{ rule: string }>).map((f) => f.rule),
    fileTypes: files.map((f) => f.fileType).sort(),
    recordsExtracted: run.recordsExtracted as number,
  };
}

describe('successCriteria on each side of each threshold', () => {
  it('minRecords: 30 records meet 30 (Success), miss 31 (Completed, SUCCESS_CRITERIA_MISSED)', async () => {
    const met = await runOf(catalog(3, { minRecords: 30 }));
    expect(met).toMatchObject({ status: 10, errorCode: null, recordsExtracted: 30 });
    const missed = await runOf(catalog(3, { minRecords: 31 }));
    expect(missed).toMatchObject({ status: 9, errorCode: 'SUCCESS_CRITERIA_MISSED', recordsExtracted: 30 });
    expect(missed.rules).toContain('successCriteriaMissed');
    // A Completed Run keeps its export.
    expect(missed.fileTypes).toEqual(['Csv', 'Log']);
  });

  it('failBelow: a missed minRecords ends Failure, without export files; a met one still ends Success', async () => {
    const missed = await runOf(catalog(1, { minRecords: 11, failBelow: true }));
    expect(missed).toMatchObject({ status: 6, errorCode: 'SUCCESS_CRITERIA_MISSED' });
    expect(missed.fileTypes).toEqual(['Log']);
    expect(missed.rules).toContain('successCriteriaMissed');
    const met = await runOf(catalog(1, { minRecords: 10, failBelow: true }));
    expect(met).toMatchObject({ status: 10, errorCode: null });
  });

  it('maxErrorRatio: 1 failed page of 3 meets 0.34 and misses 0.33; failBelow fails it', async () => {
    // A failed page makes the Run Completed either way; the code tells whether the criterion was missed.
    const met = await runOf(links({ maxErrorRatio: 0.34 }));
    expect(met).toMatchObject({ status: 9, errorCode: null });
    const missed = await runOf(links({ maxErrorRatio: 0.33 }));
    expect(missed).toMatchObject({ status: 9, errorCode: 'SUCCESS_CRITERIA_MISSED' });
    const failed = await runOf(links({ maxErrorRatio: 0.33, failBelow: true }));
    expect(failed).toMatchObject({ status: 6, errorCode: 'SUCCESS_CRITERIA_MISSED' });
  });

  it('minFillRate: a badge on 2 of 10 records meets 0.2 (Success) and misses 0.21 (Completed)', async () => {
    const met = await runOf(catalog(1, { minFillRate: { badge: 0.2, title: 1 } }));
    expect(met).toMatchObject({ status: 10, errorCode: null });
    const missed = await runOf(catalog(1, { minFillRate: { title: 1, badge: 0.21 } }));
    expect(missed).toMatchObject({ status: 9, errorCode: 'SUCCESS_CRITERIA_MISSED' });
    const failed = await runOf(catalog(1, { minFillRate: { badge: 0.21 }, failBelow: true }));
    expect(failed).toMatchObject({ status: 6, errorCode: 'SUCCESS_CRITERIA_MISSED' });
  });

  it('without successCriteria the rules of today: a clean Run is Success', async () => {
    const { successCriteria: _none, ...plain } = catalog(1, {});
    expect(await runOf(plain)).toMatchObject({ status: 10, errorCode: null });
  });
});

describe('successCriteria at save time', () => {
  const save = (successCriteria: unknown) =>
    call('POST', '/api/v1/agent', {
      name: 'criteria',
      spaceId: org.spaceId,
      definition: { ...catalog(1, {}), successCriteria },
    });
  const expect400 = async (successCriteria: unknown, message: RegExp) => {
    const res = await save(successCriteria);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      statusCode: 400,
      errorCode: 'VALIDATION_FAILED',
      message: expect.stringMatching(message),
    });
  };

  it('a minFillRate field the definition does not have', () =>
    expect400(
      { minFillRate: { title: 0.5, colour: 0.5 } },
      /definition\.successCriteria\.minFillRate\.colour: names no field of list or follow \(fields: 'title', 'badge'\)/,
    ));
  it('a ratio above 1', () => expect400({ maxErrorRatio: 1.5 }, /definition\.successCriteria\.maxErrorRatio: /));
  it('a fill rate below 0', () =>
    expect400({ minFillRate: { title: -0.1 } }, /definition\.successCriteria\.minFillRate\.title: /));
  it('a negative minRecords', () => expect400({ minRecords: -1 }, /definition\.successCriteria\.minRecords: /));
  it('an unknown criterion', () => expect400({ minPages: 3 }, /definition\.successCriteria/));
  it('a valid one is saved and read back', async () => {
    const criteria = { minRecords: 5, maxErrorRatio: 0.1, minFillRate: { badge: 0.1 }, failBelow: true };
    const res = await save(criteria);
    expect(res.statusCode, res.body).toBe(201);
    const stored = (await call('GET', `/api/v1/agent/${res.json().id}/definition`)).json();
    expect(stored.definition.successCriteria).toEqual(criteria);
    expect(stored.validationStatus).toBe(3);
  });
});
