import { defineConfig } from 'vitest/config';
import { BROWSER_SUITES, shared } from './vitest.config.js';

// `npm run test:browser`: the suites that drive Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH).
// A browser Run takes seconds per page on two cores, and the drills interrupt and resume 30-page Runs:
// tests get 4 minutes, hooks (starting workers and browsers) 2. Each file has a process of its own:
// these tests count the browser processes under theirs, which another file's pool would add to.
export default defineConfig({
  test: { ...shared, include: BROWSER_SUITES, testTimeout: 240_000, hookTimeout: 120_000, isolate: true },
});
