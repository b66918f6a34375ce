// A hostile page through the HTTP API with a real worker: a page that costs more than
// ENGINE_PAGE_CPU_SECONDS to parse fails with a message that says why, the Run goes on with its other
// input and ends Completed, and the Run's diagnostics name the page and the setting.
import { beforeAll, describe, expect, it } from 'vitest';
import { auth, type TestContext } from '../helpers/app.js';
import { createAgent, startRun, useRunEnvironment, waitForRun } from '../helpers/runs.js';

// The deep page below has text in a table: the fast parse path leaves it to parse5, which the budget is for.
const env = useRunEnvironment({ env: { ENGINE_PAGE_CPU_SECONDS: '1' } });
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(() => ({ ctx, org } = env));

const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: auth(org.apiKey) });

describe('a page over the page CPU budget', () => {
  it('fails alone: the Run extracts its other input, ends Completed, and its diagnosis names the page', async () => {
    // 20,000 nested divs take the HTML parser seconds (quadratic in the depth).
    const deepUrl = `${env.site.url}/deep?levels=20000`;
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
      startUrl: `${env.site.url}/deep?levels={{levels}}`,
      parameters: [{ name: 'levels' }],
      inputs: [{ levels: '20000' }, { levels: '0' }],
      list: { selector: 'div.product', fields: [{ name: 'title', selector: 'a.title' }] },
      export: { format: 'json' },
    });
    const run = await waitForRun(ctx.app, org.apiKey, agent.id, await startRun(ctx.app, org.apiKey, agent.id));
    expect(run).toMatchObject({ status: 9, recordsExtracted: 1, recordsExported: 1, errorMessage: null });

    const files = (await get(`/api/v1/agent/${agent.id}/run/${run.id}/files`)).json();
    const data = files.find((f: { fileType: string }) => f.fileType === 'Json');
    expect((await get(`/api/v1/agent/${agent.id}/run/${run.id}/file/${data.id}/download`)).json()).toEqual([
      { title: 'Product 1' },
    ]);
    const log = files.find((f: { fileType: string }) => f.fileType === 'Log');
    expect((await get(`/api/v1/agent/${agent.id}/run/${run.id}/file/${log.id}/download`)).body).toContain(
      `[Error] Page ${deepUrl} failed: the page took longer than 1 s to process: it is unusually large or deeply nested`,
    );

    const d = (await get(`/api/v1/analytics/agents/${agent.id}/runs/${run.id}/diagnostics`)).json();
    expect(d.evidence).toMatchObject({ requests: 2, overBudgetPages: 1, firstUrls: { overBudget: deepUrl } });
    expect(d.stats).toMatchObject({ pageCount: 2, dataCount: 1, errorCount: 1, inputCount: 2 });
    expect(d.findings.map((f: { rule: string }) => f.rule)).toEqual(['pageOverBudget']);
    expect(d.possibleCauses[0]).toBe(
      `1 page took longer than the page processing limit to parse and extract and failed (first: ${deepUrl}): they are unusually large or deeply nested.`,
    );
    expect(d.suggestedActions).toContain(
      'If such pages are expected, ask the operator to raise ENGINE_PAGE_CPU_SECONDS.',
    );
  });
});
