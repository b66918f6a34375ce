import { defineConfig, type ViteUserConfig } from 'vitest/config';

// `npm test`: everything but the suites that drive Chromium, which `npm run test:browser` runs
// (vitest.browser.config.ts); CI runs both.
export const BROWSER_SUITES = ['test/browser/**/*.test.ts', 'test/console/**/*.test.ts'];

export const shared: NonNullable<ViteUserConfig['test']> = {
  globalSetup: ['test/helpers/global-setup.ts'],
  pool: 'forks',
  // Three files at a time on two cores: most integration files (server + worker + engine) spend their
  // time waiting for a Run, a retry delay or a crawl delay, and two left a third of the CPU idle.
  // TEST_MAX_FORKS overrides it (a busier or a larger machine).
  poolOptions: { forks: { maxForks: Number(process.env.TEST_MAX_FORKS ?? 3), minForks: 1 } },
  testTimeout: 30_000,
  hookTimeout: 60_000,
  reporters: ['default'],
};

export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts', 'sdk/typescript/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...BROWSER_SUITES],
  },
});
