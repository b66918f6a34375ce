// Runs that fetch one page execute in the worker process itself; every other Run in a run process. Through the HTTP API with a
// real worker process, against the fixture site.
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, jsonInjector } from '../helpers/app.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, useRunEnvironment, waitForRun } from '../helpers/runs.js';

const env = useRunEnvironment();
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, site, org } = env));

const inject = jsonInjector(() => ({ app: ctx.app, apiKey: org.apiKey }));

const onePage = () => {
  const { next: _next, ...definition } = catalogDefinition(site.url);
  return definition;
};

async function files(agentId: number, runId: number) {
  const list = (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/files`)).json() as Array<{
    id: number;
    name: string;
  }>;
  const log = list.find((f) => f.name === 'run.log');
  const text = log ? (await inject('GET', `/api/v1/agent/${agentId}/run/${runId}/file/${log.id}/download`)).body : '';
  return { names: list.map((f) => f.name), log: text };
}

async function runToEnd(definition: object, name: string) {
  const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, definition, name);
  const start = await inject('POST', `/api/v1/agent/${agent.id}/start`, {});
  expect(start.statusCode, start.body).toBe(202);
  const run = await waitForRun(ctx.app, org.apiKey, agent.id, start.json().id);
  return { agentId: agent.id, run, ...(await files(agent.id, run.id)) };
}

describe('where a Run executes', () => {
  it('a one-page Run in the worker process, a Run that follows next pages in a run process; the same records', async () => {
    const one = await runToEnd(onePage(), 'One page');
    expect(one.run).toMatchObject({ status: 10, recordsExtracted: 10, recordsExported: 10 });
    expect(one.names).toEqual(['data.csv', 'run.log']);
    expect(one.log.split('\n')[0]).toMatch(/Run \d+ started: 1 input\(s\), .*, in the worker process$/);

    const three = await runToEnd(catalogDefinition(site.url), 'Three pages');
    expect(three.run).toMatchObject({ status: 10, recordsExtracted: 30, recordsExported: 30 });
    expect(three.log.split('\n')[0]).toMatch(/, in a run process$/);
  });

  it('a Run whose records outgrow what it holds in memory spools them to a file: every record is exported, in order', async () => {
    // 15,000 records are about 1.2 MB of JSON, past the 1 MB a run holds before it spools.
    const definition = { ...onePage(), startUrl: `${site.url}/catalog?page=1&per=15000` };
    const big = await runToEnd(definition, 'Spooled');
    expect(big.run).toMatchObject({ status: 10, recordsExtracted: 15_000, recordsExported: 15_000 });
    const list = (await inject('GET', `/api/v1/agent/${big.agentId}/run/${big.run.id}/files`)).json() as Array<{
      id: number;
      name: string;
    }>;
    const csv = list.find((f) => f.name === 'data.csv')!;
    const lines = (await inject('GET', `/api/v1/agent/${big.agentId}/run/${big.run.id}/file/${csv.id}/download`)).body
      .trimEnd()
      .split(/\r?\n/);
    expect(lines).toHaveLength(15_001);
    expect(lines[1]).toMatch(/^Product 1,/);
    expect(lines[15_000]).toMatch(/^Product 15000,/);
    expect(lines.slice(1).map((l) => Number(l.match(/^Product (\d+),/)![1]))).toEqual(
      Array.from({ length: 15_000 }, (_, i) => i + 1),
    );
  });

  it('a synchronous one-page start answers its records from the worker', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, onePage(), 'Sync one page');
    const res = await inject('POST', `/api/v1/agent/${agent.id}/start`, { isRunSynchronously: true });
    expect(res.statusCode, res.body).toBe(200);
    const records = res.json() as Array<{ title: string }>;
    expect(records.map((r) => r.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Product ${i + 1}`));
  });

  it('a second kill ends an inline Run stuck on its page at once: its log is kept, nothing is exported, the worker goes on', async () => {
    const agent = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Stuck inline',
    );
    const runId = (await inject('POST', `/api/v1/agent/${agent.id}/start`, {})).json().id as number;
    await waitForRun(ctx.app, org.apiKey, agent.id, runId, (r) => r.status === 1);
    expect((await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`)).json().status).toBe(5);
    const second = await inject('POST', `/api/v1/agent/${agent.id}/run/${runId}/kill`);
    expect(second.statusCode).toBe(200);
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, runId, undefined, 10_000);
    expect(run).toMatchObject({ status: 8, recordsExported: 0 });
    expect(run.errorMessage).toMatch(/^Killed by user/);
    const { names, log } = await files(agent.id, runId);
    expect(names).toEqual(['run.log']);
    const lines = log.trimEnd().split('\n');
    expect(lines[0]).toMatch(/in the worker process$/);
    expect(lines.at(-1)).toMatch(/\[Fatal\] Killed by user: the run process was terminated immediately\.$/);

    // The worker that hosted it still executes Runs.
    expect((await runToEnd(onePage(), 'After the kill')).run.status).toBe(10);
  });
});
