import { defineConfig } from 'vitest/config';
import { BROWSER_SUITES, shared } from './vitest.config.js';

// `npm run test:browser`: the suites that drive Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH).
// Two files at a time: each drives Chromium, which keeps a core busy while it renders.
export default defineConfig({
  test: { ...shared, include: BROWSER_SUITES, poolOptions: { forks: { maxForks: 2, minForks: 1 } } },
});
