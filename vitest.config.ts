import { defineConfig, type ViteUserConfig } from 'vitest/config';

// `npm test`: everything but the suites that drive Chromium, which `npm run test:browser` runs
// (vitest.browser.config.ts); CI runs both.
export const BROWSER_SUITES = ['test/browser/**/*.test.ts', 'test/console/**/*.test.ts'];

export const shared: NonNullable<ViteUserConfig['test']> = {
  globalSetup: ['test/helpers/global-setup.ts'],
  pool: 'forks',
  // Two cores: two files at a time keeps integration tests (server + worker + engine) honest.
  poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  // Files share their fork's modules: importing the service (fastify, Prisma, the engine) once per fork
  // instead of once per file took a third of the suite's CPU. Each file still builds its own app,
  // database and Redis prefix and closes them; nothing in the tests mocks modules or changes the
  // environment, so no file sees another's state.
  isolate: false,
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
