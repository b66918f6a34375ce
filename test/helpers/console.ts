// The web console in a real browser: the console built by Vite into a temporary folder (so the test
// runs the sources as they are), the usual Run environment (app, worker, fixture site) serving it on a
// listening port, and Debian's Chromium driven headless by playwright-core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM_ARGS } from './chromium.js';
import { useRunEnvironment } from './runs.js';

export const PASSWORD = 'correct horse battery';

export function useConsoleEnvironment() {
  const consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-console-'));
  const h = {} as { browser: Browser; baseUrl: string };
  beforeAll(async () => {
    await build({
      configFile: path.resolve(import.meta.dirname, '../../console/vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: consoleDir, emptyOutDir: true },
    });
  }, 120_000);
  const env = useRunEnvironment({ env: { CONSOLE_DIR: consoleDir } });
  beforeAll(async () => {
    const address = await env.ctx.app.listen({ port: 0, host: '127.0.0.1' });
    h.baseUrl = address;
    h.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await h.browser?.close();
    fs.rmSync(consoleDir, { recursive: true, force: true });
  });
  // Getters: the values exist once the beforeAll hooks above have run.
  return Object.defineProperties(env, {
    browser: { get: () => h.browser },
    baseUrl: { get: () => h.baseUrl },
  }) as typeof env & { browser: Browser; baseUrl: string };
}

/** A fresh browser context (its own session storage) on the console's sign-in page. */
export async function openConsole(browser: Browser, baseUrl: string, pathname = '/console'): Promise<Page> {
  const context: BrowserContext = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  await page.goto(`${baseUrl}${pathname}`);
  return page;
}

export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Writes a screenshot to docs/console when CONSOLE_SCREENSHOTS is set (npm run console:screenshots). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.CONSOLE_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
