// The web console in headless Chromium against the real API and worker: sign-in, every screen, a Run
// started from an Agent page followed to Success with its records and file (the preview reads at most
// 2 MiB of a large export), busy buttons that cannot send an action twice, confirmation before kill,
// revoke and delete, Agent names wherever a Run is shown, a Schedule with its next fire times, an API
// key used with curl, one request per chart, and a member without the admin screens.
// CONSOLE_SCREENSHOTS=docs/console also saves a screenshot of each screen.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/plugins/external/console.js';
import { auth, type TestContext } from '../helpers/app.js';
import { openConsole, screenshot, signIn, useConsoleEnvironment, PASSWORD } from '../helpers/console.js';
import type { FixtureSite } from '../helpers/fixture-site.js';
import { catalogDefinition, createAgent, waitForRun } from '../helpers/runs.js';

const env = useConsoleEnvironment();
let ctx: TestContext;
let site: FixtureSite;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
let admin: Page;
/** What Chromium reports the page's policy blocked (nothing may be). */
const blocked: string[] = [];
beforeAll(async () => {
  ({ ctx, site, org } = env);
  admin = await openConsole(env.browser, env.baseUrl);
  admin.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
  });
});

// A failed scenario says what the admin's page showed (an error box tells more than a timeout).
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail' && admin && !admin.isClosed())
    console.error(`page at the failure (${admin.url()}):\n${await admin.locator('body').innerText({ timeout: 2000 })}`);
});

const curl = promisify(execFile);
const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: auth(org.apiKey), ...(payload ? { payload } : {}) });
const text = (page: Page, selector: string) => page.locator(selector).innerText();
/** Waits for a page to show a value (the page loads and polls at its own pace). */
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });

/** Holds the page's requests to `pattern` until release(); count() says how many were sent. */
async function held(page: Page, pattern: string) {
  let sent = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(pattern, async (route) => {
    sent++;
    await released;
    await route.continue();
  });
  return { count: () => sent, release };
}

/** Counts the page's requests whose URL contains `part`, from now on. */
function countRequests(page: Page, part: string) {
  let n = 0;
  page.on('request', (r) => {
    if (r.url().includes(part)) n++;
  });
  return { count: () => n };
}

/** Does `act`, answers the confirmation it opens (accept or dismiss), and returns its question. */
async function answerDialog(page: Page, accept: boolean, act: () => Promise<void>): Promise<string> {
  let question = '';
  // Answered in the listener: the click that opened the dialog returns once it is answered.
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void (accept ? dialog.accept() : dialog.dismiss());
  });
  await act();
  expect(question, 'a confirmation was asked').not.toBe('');
  return question;
}

describe('signing in', () => {
  it('shows the server message for a wrong password, then signs in with the right one', async () => {
    const page = await admin.goto(`${env.baseUrl}/console`);
    expect(page!.headers()['content-security-policy']).toBe(CONSOLE_CSP);
    await admin.getByLabel('Email').fill(org.email);
    await admin.getByLabel('Password').fill('not the password');
    await admin.getByRole('button', { name: 'Sign in' }).click();
    const alert = admin.getByRole('alert');
    await alert.waitFor();
    const oauth = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'password', username: org.email, password: 'not the password' },
    });
    expect(oauth.statusCode).toBe(400);
    expect(await alert.innerText()).toBe(oauth.json().error_description);
    await screenshot(admin, 'sign-in');

    await signIn(admin, org.email);
    for (const name of ['Agents', 'Runs', 'Schedules', 'Builder', 'Billing', 'Analytics', 'API keys', 'Webhooks'])
      expect(await nav(admin, name).count(), name).toBe(1);
    // The token lives in this tab's session storage, never in local storage.
    expect(await admin.evaluate<number>('localStorage.length')).toBe(0);
    expect(await admin.evaluate<string>("sessionStorage.getItem('cxs.session')")).toContain('"role":"admin"');
  });
});

describe('Agents', () => {
  it('lists Agents with server paging, search and sort', async () => {
    for (let n = 1; n <= 27; n++)
      await createAgent(
        ctx.app,
        org.apiKey,
        org.spaceId,
        catalogDefinition(site.url),
        `Catalog ${String(n).padStart(2, '0')}`,
      );
    await admin.reload();
    const rows = admin.getByRole('table', { name: 'Agents' }).locator('tbody tr');
    await poll(() => rows.count()).toBe(25);
    expect(await text(admin, '.pager span')).toBe('Page 1 of 2 (27 in all)');
    expect(await rows.first().locator('td').first().innerText()).toBe('Catalog 01');
    await screenshot(admin, 'agents');

    await admin.getByRole('button', { name: 'Next page' }).click();
    await poll(() => rows.count()).toBe(2);
    await admin.getByRole('button', { name: /^Name/ }).click(); // descending, back to page 1
    await poll(() => rows.first().locator('td').first().innerText()).toBe('Catalog 27');
    await admin.getByLabel('Search by name').fill('log 1');
    await poll(() => rows.count()).toBe(10);
    expect(await text(admin, '.pager span')).toBe('Page 1 of 1 (10 in all)');

    // Archived from the list, an Agent leaves it (the API hides archived Agents).
    await admin.getByRole('button', { name: 'Archive Catalog 13' }).click();
    await poll(() => text(admin, '.pager span')).toBe('Page 1 of 1 (9 in all)');
    const archived = (await api('GET', '/api/v1/agent/search?query=Catalog%2013')).json();
    expect(archived).toEqual([]);
    await admin.getByLabel('Search by name').fill('');
  });

  it('edits the definition, shows the problems the API reports, and restores a version', async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Editable');
    await admin.goto(`${env.baseUrl}/console/agents/${agent.id}`);
    const editor = admin.getByLabel('Definition (JSON)');
    await poll(() => editor.inputValue()).toContain('div.product');

    // Structurally wrong: the API answers 400 and its message is shown.
    await editor.fill(JSON.stringify({ list: { fields: [] } }));
    await admin.getByRole('button', { name: 'Save definition' }).click();
    await poll(() => admin.getByRole('alert').innerText()).toContain('definition.startUrl');

    // Semantically wrong: saved as version 2 with its problems listed.
    const broken = catalogDefinition(site.url);
    broken.list.fields.push({ name: 'title', selector: 'h3 a[' } as never);
    await editor.fill(JSON.stringify(broken));
    await admin.getByRole('button', { name: 'Save definition' }).click();
    await poll(() => admin.getByText('Saved as version 2.').count()).toBe(1);
    await poll(() => admin.getByText("duplicate field name 'title'").count()).toBe(1);
    await screenshot(admin, 'agent');

    await admin.getByRole('button', { name: 'Restore version 1' }).click();
    await poll(() => admin.getByText('Version 1 restored as version 3.').count()).toBe(1);
    const now = await api('GET', `/api/v1/agent/${agent.id}`);
    expect(now.json()).toMatchObject({ version: 3, validationStatus: 3 });

    await admin.getByRole('button', { name: 'Archive', exact: true }).click();
    await admin.getByRole('button', { name: 'Unarchive' }).waitFor();
    expect((await api('GET', `/api/v1/agent/${agent.id}`)).json().isArchived).toBe(true);
    await admin.getByRole('button', { name: 'Unarchive' }).click();
    await admin.getByRole('button', { name: 'Archive', exact: true }).waitFor();
    expect((await api('GET', `/api/v1/agent/${agent.id}`)).json().isArchived).toBe(false);
  });

  it('shows input parameters with encrypted values masked', async () => {
    const def = {
      ...catalogDefinition(site.url),
      parameters: [
        { name: 'token', encrypted: true, defaultValue: 'agent-default-secret' },
        { name: 'q', defaultValue: 'shoes' },
      ],
    };
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, def, 'With parameters');
    await admin.goto(`${env.baseUrl}/console/agents/${agent.id}`);
    const table = admin.getByRole('table', { name: 'Input parameters' });
    await table.waitFor();
    const body = await table.innerText();
    expect(body).toContain('yes (value hidden)');
    expect(body).toContain('shoes');
    expect(body).not.toContain('agent-default-secret');
    expect(await admin.content()).not.toContain('agent-default-secret');
  });
});

describe('Runs', () => {
  let agentId: number;
  let runId: number;

  it('starts a Run from the Agent page, follows it to Success, previews its records and downloads its file', async () => {
    agentId = (await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Run from console')).id;
    await admin.goto(`${env.baseUrl}/console/agents/${agentId}`);
    await admin.getByLabel('Parallelism').fill('1');
    // While the start is on its way, Run now is busy: a second press sends nothing.
    const starts = await held(admin, `**/api/v1/agent/${agentId}/start`);
    const runNow = admin.getByRole('button', { name: 'Run now' });
    await runNow.click();
    await poll(() => runNow.getAttribute('aria-busy')).toBe('true');
    expect(await runNow.isDisabled()).toBe(true);
    await runNow.click({ force: true });
    starts.release();
    await admin.waitForURL(/\/console\/runs\/\d+\/\d+$/);
    expect(starts.count()).toBe(1);
    runId = Number(admin.url().split('/').pop());
    // The Agent by its name, not its id.
    await poll(() => admin.getByRole('heading', { level: 1 }).innerText()).toBe(`Run #${runId} of Run from console`);
    // The page polls the status by itself until the Run ends.
    await poll(() => admin.getByRole('region', { name: 'Run status' }).locator('.badge').innerText()).toBe('Success');
    const run = (await api('GET', `/api/v1/agent/${agentId}/run/${runId}/status`)).json();
    expect(run).toMatchObject({ status: 10, recordsExtracted: 30, startedBy: expect.any(String) });

    const records = admin.getByRole('table', { name: 'Records' });
    await poll(() => records.locator('tbody tr').count()).toBe(30);
    expect(await records.locator('thead').innerText()).toMatch(/title\s+price\s+url/);
    expect(await records.locator('tbody tr').first().innerText()).toContain('Product 1');
    await poll(() => admin.getByLabel('Run log').innerText()).toMatch(/30 records/);
    await screenshot(admin, 'run');

    const [download] = await Promise.all([
      admin.waitForEvent('download'),
      admin.getByRole('button', { name: 'Download data.csv' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('data.csv');
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('title,price,url');
    expect(csv.split('\r\n')[1]).toBe(`Product 1,$1.25,${site.url}/product/1`);
    expect(csv.trimEnd().split('\r\n')).toHaveLength(31);
  });

  it('previews the first 100 records of a large export from at most 2 MiB of it', async () => {
    // The Run's export replaced by a 40 MiB CSV: the preview must not download it whole.
    const file = (await ctx.db.runFile.findFirst({ where: { runId, fileType: 'Csv' } }))!;
    const row = (i: number) => `Row ${i},$1.00,https://example.com/${'x'.repeat(80)}/${i}\r\n`;
    const big = 'title,price,url\r\n' + Array.from({ length: 400_000 }, (_, i) => row(i + 1)).join('');
    fs.writeFileSync(path.join(ctx.env.STORAGE_DIR, file.storageKey), big);
    await ctx.db.runFile.update({ where: { id: file.id }, data: { fileSize: Buffer.byteLength(big) } });
    expect(Buffer.byteLength(big)).toBeGreaterThan(40 * 1024 * 1024);

    // What the browser received of the download, and whether the page ended it early.
    const cdp = await admin.context().newCDPSession(admin);
    await cdp.send('Network.enable');
    const download = { id: '', bytes: 0, cancelled: false };
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.url.includes(`/file/${file.id}/download`)) download.id = e.requestId;
    });
    cdp.on('Network.dataReceived', (e) => {
      if (e.requestId === download.id) download.bytes += e.dataLength;
    });
    cdp.on('Network.loadingFailed', (e) => {
      if (e.requestId === download.id) download.cancelled = e.canceled === true;
    });
    await admin.reload();
    const records = admin.getByRole('table', { name: 'Records' });
    await poll(() => records.locator('tbody tr').count()).toBe(100);
    expect(await records.locator('tbody tr').first().innerText()).toContain('Row 1');
    expect(await records.locator('tbody tr').last().innerText()).toContain('Row 100');
    await poll(async () => download.cancelled).toBe(true);
    // Ended early, far from whole: the browser's network layer reads ahead of the page's reader (8 MiB
    // and more on a loaded machine), so the bound is half the file rather than the 2 MiB the page reads.
    expect(download.bytes).toBeLessThan(Buffer.byteLength(big) / 2);
    await cdp.detach();
  });

  it('stops a Run gracefully, follows the log of one stuck on a page that never answers, and kills it', async () => {
    const slow = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url, { ms: 1200 }), 'Slow');
    await admin.goto(`${env.baseUrl}/console/agents/${slow.id}`);
    await admin.getByRole('button', { name: 'Run now' }).click();
    await admin.waitForURL(/\/console\/runs\/\d+\/\d+$/);
    const slowRun = Number(admin.url().split('/').pop());
    await waitForRun(ctx.app, org.apiKey, slow.id, slowRun, (r) => r.status === 1 && r.progress?.dataCount >= 10);
    const status = admin.getByRole('region', { name: 'Run status' });
    // Progress as words, not the raw object (at least the 10 records the API reported).
    await poll(() => status.innerText()).toMatch(/Progress\s+\d+ pages?, \d{2,} records, \d+ errors? so far/);
    expect(await status.innerText()).not.toContain('pageCount');
    const stops = await held(admin, `**/run/${slowRun}/stop`);
    const stop = admin.getByRole('button', { name: 'Stop', exact: true });
    await stop.click();
    await poll(() => stop.getAttribute('aria-busy')).toBe('true');
    expect(await admin.getByRole('button', { name: 'Kill' }).isDisabled()).toBe(true);
    await stop.click({ force: true });
    stops.release();
    const badge = status.locator('.badge');
    await poll(() => badge.innerText()).toBe('Stopped');
    expect(stops.count()).toBe(1);
    expect(await admin.getByRole('button', { name: 'Kill' }).count()).toBe(0);
    const stopped = (await api('GET', `/api/v1/agent/${slow.id}/run/${slowRun}/status`)).json();
    expect(stopped.recordsExported).toBeGreaterThanOrEqual(10);

    const stuck = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { startUrl: `${site.url}/hang`, list: { selector: 'div', fields: [{ name: 'x' }] } },
      'Stuck',
    );
    await admin.goto(`${env.baseUrl}/console/agents/${stuck.id}`);
    await admin.getByRole('button', { name: 'Run now' }).click();
    await admin.waitForURL(/\/console\/runs\/\d+\/\d+$/);
    const stuckRun = Number(admin.url().split('/').pop());
    await waitForRun(ctx.app, org.apiKey, stuck.id, stuckRun, (r) => r.status === 1);
    // The log is followed while the Run is still running.
    await poll(() => admin.getByLabel('Run log').innerText()).toMatch(new RegExp(`Run ${stuckRun} started`));
    // Kill asks first: dismissed, nothing is sent.
    const kill = admin.getByRole('button', { name: 'Kill' });
    expect(await answerDialog(admin, false, () => kill.click())).toMatch(new RegExp(`Kill Run #${stuckRun}\\?`));
    await new Promise((r) => setTimeout(r, 500));
    expect((await api('GET', `/api/v1/agent/${stuck.id}/run/${stuckRun}/status`)).json().status).toBe(1);
    await answerDialog(admin, true, () => kill.click());
    await poll(() => badge.innerText()).toBe('Stopping');
    await answerDialog(admin, true, () => kill.click());
    await poll(() => badge.innerText()).toBe('Stopped');
    expect(await admin.getByRole('region', { name: 'Run status' }).innerText()).toMatch(/Killed/);
  });

  it('lists Runs organization-wide with filters, and shows the diagnosis of a failed Run', async () => {
    const failing = await createAgent(
      ctx.app,
      org.apiKey,
      org.spaceId,
      { ...catalogDefinition(site.url), startUrl: `${site.url}/blocked` },
      'Blocked',
    );
    const start = await api('POST', `/api/v1/agent/${failing.id}/start`, {});
    expect(start.statusCode, start.body).toBe(202);
    const failed = await waitForRun(ctx.app, org.apiKey, failing.id, start.json().id);
    expect(failed.status).toBe(6);

    await admin.goto(`${env.baseUrl}/console/runs`);
    const rows = admin.getByRole('table', { name: 'Runs' }).locator('tbody tr');
    // Success, two Stopped (the stop and the kill above), and this Failure.
    await poll(() => rows.count()).toBe(4);
    await admin.getByLabel('Status').selectOption({ label: 'Success' });
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain(`#${runId}`);
    await admin.getByLabel('Status').selectOption({ label: 'Stopped' });
    await poll(() => rows.count()).toBe(2);
    await admin.getByLabel('Status').selectOption({ label: 'Skipped' });
    await poll(() => admin.getByText('No Run matches these filters.').count()).toBe(1);
    await admin.getByLabel('Status').selectOption({ label: 'Any' });
    // Each Run's Agent by name; the filter searches a part of the name.
    const agentColumn = await rows.locator('td:nth-child(2)').allInnerTexts();
    expect(agentColumn).toEqual(['Blocked', 'Stuck', 'Slow', 'Run from console']);
    await admin.getByLabel('Agent name').fill('bLOCK');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('Blocked');
    await screenshot(admin, 'runs');

    await rows
      .first()
      .getByRole('link', { name: `#${failed.id}` })
      .click();
    const diagnosis = admin.getByRole('region', { name: 'Diagnosis' });
    await poll(() => diagnosis.innerText()).toContain('Suggested actions');
    const expected = (await api('GET', `/api/v1/analytics/agents/${failing.id}/runs/${failed.id}/diagnostics`)).json();
    expect(await diagnosis.innerText()).toContain(expected.suggestedActions[0]);
    // The failure message once, in the Run's status (the log below keeps its own lines).
    const shown = [
      await admin.getByRole('region', { name: 'Run status' }).innerText(),
      await diagnosis.innerText(),
    ].join('\n');
    expect(shown.split(failed.errorMessage).length - 1).toBe(1);
    expect(await admin.getByRole('heading', { level: 1 }).innerText()).toBe(`Run #${failed.id} of Blocked`);
  });
});

describe('API keys and users', () => {
  it('creates a key shown once with a copy button, which works with curl until it is revoked', async () => {
    await nav(admin, 'API keys').click();
    await admin.getByLabel('Description').fill('console key');
    await admin.getByRole('button', { name: 'Create API key' }).click();
    const shown = admin.getByLabel('New API key');
    await shown.waitFor();
    const key = await shown.innerText();
    expect(key).toMatch(/^cx_/);
    await admin.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.baseUrl });
    await admin.getByRole('button', { name: 'Copy key' }).click();
    await poll(() => admin.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    expect(await admin.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    const keys = admin.getByRole('table', { name: 'API keys' });
    await poll(() => keys.innerText()).toContain('console key');
    await screenshot(admin, 'api-keys');

    const get = (k: string) =>
      curl('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-H',
        `Authorization: ApiKey ${k}`,
        `${env.baseUrl}/api/v1/agent/all`,
      ]);
    expect((await get(key)).stdout).toBe('200');
    // Only shown once: a reload lists the key by its prefix, never the key itself.
    await admin.reload();
    await poll(() => keys.innerText()).toContain('console key');
    expect(await admin.content()).not.toContain(key);

    const prefix = (await keys.locator('tbody tr', { hasText: 'console key' }).locator('code').innerText()).replace(
      '…',
      '',
    );
    const revoke = admin.getByRole('button', { name: `Revoke key ${prefix}` });
    // Revoke asks first: dismissed, the key still works.
    expect(await answerDialog(admin, false, () => revoke.click())).toContain(`Revoke the key ${prefix}`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await get(key)).stdout).toBe('200');
    await answerDialog(admin, true, () => revoke.click());
    await poll(() => keys.locator('tbody tr', { hasText: 'console key' }).innerText()).toContain('revoked');
    expect((await get(key)).stdout).toBe('401');
  });

  it('adds a member, who signs in to see their own keys and none of the admin screens', async () => {
    await nav(admin, 'API keys').click();
    await admin.getByLabel('User email').fill('member@example.com');
    await admin.getByLabel('Name').fill('A member');
    await admin.getByLabel('Initial password').fill(PASSWORD);
    await admin.getByRole('button', { name: 'Add user' }).click();
    await poll(() => admin.getByText('User member@example.com added.').count()).toBe(1);
    const users = (await api('GET', '/api/v1/users')).json();
    const memberId = users.find((u: { email: string }) => u.email === 'member@example.com').id;
    const memberKey = await api('POST', `/api/v1/users/${memberId}/api-keys`, { description: 'for the member' });
    expect(memberKey.statusCode).toBe(201);

    const member = await openConsole(env.browser, env.baseUrl, '/console/webhooks');
    await signIn(member, 'member@example.com');
    for (const name of ['Agents', 'Runs', 'Schedules', 'Builder', 'Billing', 'Analytics', 'API keys'])
      expect(await nav(member, name).count(), name).toBe(1);
    expect(await nav(member, 'Webhooks').count()).toBe(0);
    // A deep link to an admin screen is not a page for a member.
    await poll(() => member.getByRole('heading', { name: 'Not found' }).count()).toBe(1);

    // Their own keys, read only: no user list, no creating, no revoking.
    await nav(member, 'API keys').click();
    const keys = member.getByRole('table', { name: 'API keys' });
    await poll(() => keys.innerText()).toContain('for the member');
    expect(await keys.locator('tbody tr').count()).toBe(1);
    expect(await member.getByRole('button', { name: /Create API key|Revoke|Add user/ }).count()).toBe(0);
    expect(await member.getByLabel('User', { exact: true }).count()).toBe(0);
    // The API refuses it too, whatever the console shows.
    const token = await member.evaluate<string>("JSON.parse(sessionStorage.getItem('cxs.session')).token");
    const refused = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/users',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.statusCode).toBe(403);
    await member.context().close();
  });
});

describe('Schedules', () => {
  it("shows a CRON Schedule's description and next five fire times before saving, then saves it", async () => {
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, catalogDefinition(site.url), 'Scheduled');
    await admin.goto(`${env.baseUrl}/console/schedules?agentId=${agent.id}`);
    await admin.getByRole('button', { name: 'New Schedule' }).click();
    await admin.getByLabel('Schedule name').fill('Every morning');
    const preview = admin.getByRole('status', { name: 'Schedule preview' });
    await admin.getByLabel('CRON expression').fill('30 6 * * * * *');
    await poll(() => preview.innerText()).toMatch(/cronExpression "30 6 \* \* \* \* \*" is invalid/);
    await admin.getByLabel('CRON expression').fill('30 6 * * *');
    await admin.getByLabel('Time zone').fill('UTC');
    await poll(() => preview.innerText()).toMatch(/^At 06:30 \(UTC\)/);
    const before = await preview.getByRole('list', { name: 'Next fire times' }).locator('li').allInnerTexts();
    expect(before).toHaveLength(5);
    await screenshot(admin, 'schedules');
    await admin.getByRole('button', { name: 'Save Schedule' }).click();
    const list = admin.getByRole('table', { name: 'Schedules' });
    await poll(() => list.innerText()).toContain('Every morning');
    const saved = (await api('GET', `/api/v1/agent/${agent.id}/schedules`)).json()[0];
    expect(saved).toMatchObject({ name: 'Every morning', schedule: '30 6 * * *', scheduleType: 3, isEnabled: true });
    expect(await list.innerText()).toContain(saved.localSchedule);

    const times = admin.getByRole('list', { name: 'Next fire times of Every morning' }).locator('li');
    await poll(() => times.count()).toBe(5);
    const first = new Date(saved.nextRunTime);
    expect(first.getUTCHours() * 60 + first.getUTCMinutes()).toBe(6 * 60 + 30);
    const shown = await times.allInnerTexts();
    expect(shown).toEqual(before);
    const expected = [0, 1, 2, 3, 4].map((d) => new Date(first.getTime() + d * 86_400_000));
    expect(shown).toEqual(
      await admin.evaluate(
        (ms) => ms.map((t) => new Date(t).toLocaleString()),
        expected.map((d) => d.getTime()),
      ),
    );

    await list.getByRole('button', { name: 'Disable' }).click();
    await poll(() => list.getByRole('button', { name: 'Enable' }).count()).toBe(1);
    expect((await api('GET', `/api/v1/agent/${agent.id}/schedules/${saved.id}`)).json().isEnabled).toBe(false);

    // Delete asks first; confirmed, the Schedule is gone.
    const del = list.getByRole('button', { name: 'Delete' });
    expect(await answerDialog(admin, false, () => del.click())).toContain('Delete the Schedule Every morning?');
    expect((await api('GET', `/api/v1/agent/${agent.id}/schedules/${saved.id}`)).statusCode).toBe(200);
    await answerDialog(admin, true, () => del.click());
    await poll(() => admin.getByText(/This Agent has no Schedule yet/).count()).toBe(1);
    expect((await api('GET', `/api/v1/agent/${agent.id}/schedules/${saved.id}`)).statusCode).toBe(404);
  });
});

describe('Billing, Analytics, Builder and Webhooks', () => {
  it('shows the balance, the credit history and a chart of daily usage (one request)', async () => {
    const spending = countRequests(admin, '/api/v1/billing/spending');
    await nav(admin, 'Billing').click();
    const credits = (await api('GET', '/api/v1/billing/credits')).json();
    await poll(() => admin.locator('.stat b').innerText()).toBe(credits.availableCredits.toLocaleString('en-US'));
    await poll(() => admin.getByRole('table', { name: 'Credit history' }).locator('tbody tr').count()).toBeGreaterThan(
      0,
    );
    await poll(() => admin.getByRole('img', { name: /Credits spent per day/ }).count()).toBe(1);
    expect(await admin.locator('svg.chart rect').count()).toBe(14);
    expect(spending.count()).toBe(1);
    await screenshot(admin, 'billing');
  });

  it('charts Runs and records per day from one request and lists the failed Runs', async () => {
    const summaries = countRequests(admin, '/api/v1/analytics/records/summary');
    await nav(admin, 'Analytics').click();
    const runs = (await api('GET', '/api/v1/runs')).json();
    expect(runs).toHaveLength(4);
    await poll(() => admin.getByRole('img', { name: /Runs per day/ }).getAttribute('aria-label')).toBe(
      'Runs per day (last 14 days): 4 in all',
    );
    await poll(() => admin.getByRole('table', { name: 'Failed Runs' }).innerText()).toContain('Blocked');
    expect(await admin.getByRole('img', { name: /Records extracted per day/ }).getAttribute('aria-label')).toMatch(
      /in all$/,
    );
    expect(summaries.count()).toBe(1);
    await screenshot(admin, 'analytics');
  });

  it('builds an Agent from a prompt: progress, draft records, then an Agent', { timeout: 60_000 }, async () => {
    await nav(admin, 'Builder').click();
    await admin.getByLabel('What to extract').fill('Product titles and prices, please');
    await admin.getByLabel('List page URL').fill(`${site.url}/catalog?page=1`);
    await admin.getByRole('button', { name: 'Start building' }).click();
    await poll(() => admin.locator('p', { hasText: 'Session status: ready' }).count()).toBe(1);
    expect(await admin.getByRole('list', { name: 'Progress' }).locator('li').count()).toBeGreaterThan(2);
    const draft = admin.getByRole('table', { name: 'Draft records' });
    await poll(() => draft.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await draft.innerText()).toContain('Product 1');
    await screenshot(admin, 'builder');
    await admin.getByLabel('Agent name').fill('Built in the console');
    await admin.getByRole('button', { name: 'Create the Agent' }).click();
    await admin.waitForURL(/\/console\/agents\/\d+$/);
    await poll(() => admin.getByRole('heading', { level: 1 }).innerText()).toBe('Built in the console');
  });

  it('subscribes a webhook and lists its deliveries', async () => {
    await nav(admin, 'Webhooks').click();
    await poll(() => admin.getByText(/No subscriptions/).count()).toBe(1);
    await admin.getByLabel('Endpoint URL').fill(`${site.url}/hook`);
    await admin.getByRole('button', { name: 'Subscribe to every event' }).click();
    await poll(() => admin.getByText(/Signing secret \(shown once\)/).count()).toBe(1);
    const table = admin.getByRole('table', { name: 'Webhooks' });
    await poll(() => table.innerText()).toContain(`${site.url}/hook`);
    await table.getByRole('button', { name: `Deliveries of ${site.url}/hook` }).click();
    await poll(() => admin.getByText(/No deliveries yet/).count()).toBe(1);
    await screenshot(admin, 'webhooks');
  });
});

describe('the session', () => {
  it('asks to sign in again when the token is refused, and signs out', async () => {
    // A token the API no longer accepts (here: its signature broken).
    await admin.evaluate(`(() => {
      const s = JSON.parse(sessionStorage.getItem('cxs.session'));
      sessionStorage.setItem('cxs.session', JSON.stringify({ ...s, token: s.token + 'x' }));
    })()`);
    await admin.goto(`${env.baseUrl}/console/runs`);
    await poll(() => admin.getByRole('alert').innerText()).toBe('Your session expired. Sign in again.');
    await signIn(admin, org.email);
    await admin.getByRole('button', { name: 'Sign out' }).click();
    await admin.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await admin.evaluate<number>('sessionStorage.length + localStorage.length')).toBe(0);
    // Every screen above ran under the strict policy without a violation; a third-party image is one.
    expect(blocked).toEqual([]);
    await admin.evaluate(`document.body.insertAdjacentHTML('beforeend', '<img src="https://cdn.example.com/x.png">')`);
    await poll(async () => blocked.length).toBe(1);
    expect(blocked[0]).toContain("img-src 'self' data:");
  });
});
