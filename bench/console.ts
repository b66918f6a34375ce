// Benchmark of the web console over a large catalogue: seeds 100,000 Agents into an organization whose
// admin signs in with a password, serves the freshly built console, and times in headless Chromium
// how long each screen takes from navigation (a full page load: HTML, JavaScript, the session read
// back, the API calls) until its content is on screen. The bar: under 1 s on localhost.
// Run alone with `npx tsx bench/console.ts` or through `npm run bench -- console`.
// CONSOLE_BENCH_AGENTS (default 100000) and CONSOLE_BENCH_ITERATIONS (default 10) override the sizes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { buildApp } from '../src/app.js';
import { createPrisma } from '../src/db/prisma.js';
import { runSeed } from '../src/tools/seed.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { CHROMIUM_ARGS } from '../test/helpers/chromium.js';
import { createBenchEnvironment, machineSummary, note, print, table } from './helpers.js';

const PASSWORD = 'bench console password';

export async function benchConsole() {
  const total = Number(process.env.CONSOLE_BENCH_AGENTS ?? 100_000);
  const iterations = Number(process.env.CONSOLE_BENCH_ITERATIONS ?? 10);
  const loadAtStart = machineSummary();
  const consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-bench-console-'));
  await build({
    configFile: path.resolve(import.meta.dirname, '../console/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: consoleDir, emptyOutDir: true },
  });
  const bench = await createBenchEnvironment({ CONSOLE_DIR: consoleDir });
  const db = createPrisma(bench.config.databaseUrl, { max: 2 });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const app = await buildApp(bench.config, { logger: false });
  try {
    const org = await bootstrapOrganization(db, {
      org: 'Console bench',
      email: 'bench@example.com',
      password: PASSWORD,
      credits: 1000,
      apiKeyDays: 30,
      now: new Date(),
    });
    const seedStart = performance.now();
    await runSeed(bench.config, { agents: total, org: org.organizationId }, note);
    note(`seeded ${total} Agents in ${Math.round((performance.now() - seedStart) / 1000)} s`);
    const anAgent = await db.agent.findFirstOrThrow({ where: { organizationId: org.organizationId } });

    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${base}/console`);
    await page.getByLabel('Email').fill(org.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    const screens: Array<{ label: string; path: string; ready: string }> = [
      { label: 'Agents, page 1 by name', path: '/console/agents', ready: 'table[aria-label="Agents"] tbody tr' },
      { label: 'Agent page', path: `/console/agents/${anAgent.id}`, ready: 'table[aria-label="Versions"] tbody tr' },
      { label: 'Runs', path: '/console/runs', ready: 'table[aria-label="Runs"] tbody tr, main p.empty' },
      { label: 'Schedules (Agent picker)', path: '/console/schedules', ready: 'main select option:nth-child(2)' },
      { label: 'Billing', path: '/console/billing', ready: 'table[aria-label="Credit history"] tbody tr' },
    ];
    const rows: Array<Array<string | number>> = [];
    for (const s of screens) {
      const times: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const t0 = performance.now();
        await page.goto(`${base}${s.path}`);
        await page.locator(s.ready).first().waitFor({ state: 'attached' });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]);
      rows.push([s.label, at(0.5), at(0.95), Math.round(times[times.length - 1])]);
      note(`${s.label}: p50 ${at(0.5)} ms`);
    }
    // The first page of a search and of a sort by a column other than the default, through the UI.
    const t0 = performance.now();
    await page.goto(`${base}/console/agents`);
    await page.locator('table[aria-label="Agents"] tbody tr').first().waitFor();
    const first = await page.locator('table[aria-label="Agents"] tbody tr td').first().innerText();
    await page.getByRole('button', { name: 'Last activity' }).click();
    await page.locator('table[aria-label="Agents"] tbody tr td').first().filter({ hasNotText: first }).waitFor();
    rows.push(['Agents, load then sort by last activity', Math.round(performance.now() - t0), '-', '-']);

    print(
      table(
        `Console over ${total.toLocaleString('en-US')} Agents (${iterations} loads per screen; start: ${loadAtStart}; end load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')})`,
        ['screen', 'p50 ms', 'p95 ms', 'max ms'],
        rows,
      ),
    );
    return { rows };
  } finally {
    await browser.close();
    await app.close();
    await db.$disconnect();
    await bench.dispose();
    fs.rmSync(consoleDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchConsole().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
