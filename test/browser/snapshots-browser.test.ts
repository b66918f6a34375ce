// A page rendered in Chromium whose list matches nothing leaves both snapshot files through the API with
// a real worker: the rendered HTML (`Html`) and a screenshot (`Png`), listed, downloadable and named
// in the diagnostics' evidence. A page whose list matches takes no screenshot.
import { describe, expect, it } from 'vitest';
import { inject as injectAs, scriptAgent, useBrowserSuite } from '../helpers/browser-suite.js';
import { waitFor } from '../helpers/process.js';
import { waitForRun } from '../helpers/runs.js';

const suite = useBrowserSuite({});
const inject = (method: 'GET' | 'POST', url: string) => injectAs(suite, method, url);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function runToEnd(extra: Record<string, unknown>, path: string) {
  const agent = await scriptAgent(suite, path, { render: 'browser', ...extra });
  // The worker announces Chromium with its first heartbeat: until then the start is refused.
  const runId = await waitFor(async () => {
    const res = await inject('POST', `/api/v1/agent/${agent.id}/start`);
    return res.statusCode === 202 ? (res.json().id as number) : null;
  }, 30_000);
  const run = await waitForRun(suite.ctx.app, suite.org.apiKey, agent.id, runId, undefined, 90_000);
  const files = (await inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/files`)).json() as Array<{
    id: number;
    name: string;
    fileType: string;
    fileSize: number;
  }>;
  const diagnostics = (await inject('GET', `/api/v1/analytics/agents/${agent.id}/runs/${runId}/diagnostics`)).json();
  const download = (id: number) => inject('GET', `/api/v1/agent/${agent.id}/run/${runId}/file/${id}/download`);
  return { run, files, diagnostics, download };
}

describe('snapshots of pages rendered in the browser', () => {
  it('an empty list page leaves Html and Png snapshots, named in the evidence', async () => {
    const list = { selector: 'li.product', fields: [{ name: 'name', selector: 'a.name' }] };
    const { run, files, diagnostics, download } = await runToEnd({ list }, '/static');
    expect(run.status).toBe(9);
    const html = files.find((f) => f.name === 'snapshot-1.html');
    const png = files.find((f) => f.name === 'snapshot-1.png');
    expect(html?.fileType).toBe('Html');
    expect(png?.fileType).toBe('Png');

    const page = await download(html!.id);
    expect(page.statusCode).toBe(200);
    // The rendered DOM: the list the script site built, which the Agent's selector no longer matches.
    expect(page.body).toContain('<li class="item">');
    const picture = await download(png!.id);
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    expect(picture.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(picture.rawPayload.length).toBe(png!.fileSize);

    expect(diagnostics.evidence.snapshots).toEqual([
      { html: 'snapshot-1.html', png: 'snapshot-1.png', url: `${suite.site.url}/static`, reason: 'emptyList' },
    ]);
    const finding = (diagnostics.findings as Array<{ rule: string; cause: string }>).find(
      (f) => f.rule === 'pageSnapshots',
    );
    expect(finding?.cause).toContain('snapshot-1.png');
  });

  it('a list page whose list matches keeps no snapshot', async () => {
    const { run, files } = await runToEnd({}, '/static');
    expect(run.status).toBe(10);
    expect(files.map((f) => f.fileType).sort()).toEqual(['Json', 'Log']);
  });
});
