import { defineConfig } from 'vitest/config';
import { BROWSER_SUITES, shared } from './vitest.config.js';

// `npm run test:browser`: the suites that drive Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH).
export default defineConfig({ test: { ...shared, include: BROWSER_SUITES } });
